"""RemoteAgent: an agent that runs on an AG-UI server, driven by the same panel as a local one.

``await agent(msg)`` records ``msg`` and runs a reply task of its own (``AgentBase``'s
lifecycle, unchanged) whose body is one or more AG-UI runs: ``POST`` the conversation, stream
the events back as nb_hitl events (``RunMapper``), park on the run's interrupts as approval
cards and questions (``agent.decisions``, ``_decisions.py``), and resume with
``RunAgentInput.resume``. Memory mirrors the server's through ``agent.mirror`` (``_memory.py``).

- **Stop** is ``agent.interrupt()``: the reply task is cancelled, which closes the HTTP stream
  (AG-UI's cancel: the server sees the client go away), and on nb_hitl's server the thread's
  stop endpoint is called as well. The text so far is kept (``metadata["_partial"]``) and the
  reply returns the interrupted message (``metadata["_is_interrupted"]``), as in the kernel.
- **Memory** mirrors the server: ``MESSAGES_SNAPSHOT`` reconciles it (the server's messages,
  in its order; messages only the client has stay after their predecessor), and on nb_hitl's
  server the thread's history is loaded on attach and after a reply that ended uncleanly.
- **Errors** (HTTP, unreachable, stalled, dropped, malformed, ``RUN_ERROR``) end the reply
  with a ``RemoteAgentError`` the panel shows in an error row; the partial text is kept as a
  partial message and tool calls left open get an error result, so memory stays valid.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from nb_hitl.agent import AgentBase, PendingApproval, PendingQuestion, PermissionPolicy
from nb_hitl.events import RemoteConnected
from nb_hitl.exceptions import RemoteAgentError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import MetaKey, Msg
from nb_hitl.tool import Toolkit

from ._client import RemoteClient
from ._convert import to_agui
from ._decisions import RemoteDecisions, read_interrupt
from ._limits import UNSUPPORTED
from ._memory import LOCAL, MirroredMemory
from ._run import RunMapper
from ._sse import DEFAULT_MAX_EVENT_BYTES

logger = logging.getLogger("nb_hitl.remote")

BUSY_WAIT_S = 5.0
"""How long a run waits while the server answers 409 busy (finishing a stopped run)."""
ADOPT_POLL_S = 0.005
"""After Stop, how often the history is read until the server's run has ended (a few ms)."""
ADOPT_WAIT_S = 2.0
"""How long Stop waits for the server's interrupted message before making a stand-in."""


class RemoteAgent(AgentBase):
    """An agent served over AG-UI (nb_hitl's own server, LangGraph through ag-ui-langgraph...).

    Args:
        url: the server's run endpoint (``http://127.0.0.1:8000/``).
        thread_id: the conversation on the server (default: a new one). Attaching with an
            existing id loads its history from nb_hitl's server.
        name: the agent's name in the panel.
        token: a bearer token, sent as ``Authorization: Bearer ...`` (kept out of reprs,
            widget traits and saved state).
        headers: more request headers.
        user_name: the name on messages taken from the server's history.
        read_timeout: seconds without a byte before a run counts as stalled.
        connect_timeout: seconds to connect.
        max_event_bytes: the largest SSE event accepted.
        max_message_chars: the longest streamed message accepted.
    """

    supports_stop_after_step = False
    remote_decisions = True
    """The panel draws the server's interrupts as its approval cards and questions."""

    def __init__(
        self,
        url: str,
        thread_id: str | None = None,
        *,
        name: str = "Remote",
        token: str | None = None,
        headers: dict[str, str] | None = None,
        user_name: str = "User",
        read_timeout: float = 60.0,
        connect_timeout: float = 10.0,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_message_chars: int = 2_000_000,
    ) -> None:
        super().__init__(name)
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        self.client = RemoteClient(
            url,
            sent,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            max_event_bytes=max_event_bytes,
        )
        self.url = url
        self.thread_id = thread_id or f"thread-{uuid.uuid4().hex[:12]}"
        self.user_name = user_name
        self.max_message_chars = max_message_chars
        self.memory = InMemoryMemory()
        """The conversation as the server has it (plus what only this client made)."""
        self.remote_state: Any = None
        """The server's state for this thread (``STATE_SNAPSHOT`` / ``STATE_DELTA``)."""
        self.capabilities: dict[str, bool] = {}
        """What the server can do besides runs: ``stop``, ``steer``, ``history``,
        ``continue`` (nb_hitl's server says so at ``GET <url>/info``; others: none)."""
        self.server_info: dict[str, Any] | None = None
        self.unsupported: dict[str, str] = dict(UNSUPPORTED)
        """Panel features a remote agent does not have, each with the reason (greyed out)."""
        self._steering_kept: list[Msg] = []
        """Steering the server did not take (its run had ended): the next run sends it."""
        self._steering_queued: list[Msg] = []
        """Steering the server queued: its next reply takes it in, as a local agent's does."""
        self.server_interrupts: list[Any] = []
        """Interrupts the thread waits on at the server (its history on attach):
        ``resume_pending()`` shows them and resumes."""
        self.last_run_id: str | None = None
        self.last_error: BaseException | None = None
        """What ended the last reply (or the first attempt to reach the server), ``None`` once
        a reply ends well: a ``RemoteAgentError`` says with its ``kind`` what happened."""
        self.mirror = MirroredMemory(self)
        """Memory kept as the server's (``_memory.py``)."""
        self.decisions = RemoteDecisions(self)
        """The server's interrupts as parked approvals and questions (``_decisions.py``)."""
        self.permissions = PermissionPolicy()
        """An empty policy: the server applies its own (nothing here is sent to it)."""
        self.toolkit = Toolkit()
        """Empty: the tools run on the server."""
        self._connected = False
        self._needs_sync = False
        self._mapper: RunMapper | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self._connecting: asyncio.Task[Any] | None = None
        self._start_connect()

    def __repr__(self) -> str:
        status = "replying" if self.is_replying else "idle"
        where = f"url={self.url!r}, thread_id={self.thread_id!r}"
        return f"RemoteAgent(name={self.name!r}, {where}, {status})"

    # -- connecting ---------------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        """Whether the server has said what it can do (``connect()`` succeeded once)."""
        return self._connected

    async def wait_connected(self) -> bool:
        """Wait for the attempt to reach the server made when the agent was created (in a
        notebook), if one is under way; whether the agent is connected now."""
        if self._connecting is not None and not self._connecting.done():
            await asyncio.shield(self._connecting)
        return self._connected

    def _start_connect(self) -> None:
        """In a notebook (a running loop), learn the server's capabilities and load the
        thread's history at once, so the panel shows them; elsewhere on the first reply."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._connecting = loop.create_task(self._connect_quietly())

    async def _connect_quietly(self) -> None:
        try:
            await self.connect()
        except RemoteAgentError as exc:  # told again, in the panel, by the first run
            logger.info("%s: not connected yet: %s", self.name, exc)
            self.last_error = exc
            return
        if self.server_interrupts and not self.is_replying:  # parked there: show its cards
            self._spawn(self.resume_pending())

    async def connect(self) -> dict[str, bool]:
        """Ask the server what it can do and load this thread's history (nb_hitl's server)."""
        info = await self.client.info()
        self.server_info = info
        caps = info.get("capabilities") if isinstance(info, dict) else None
        self.capabilities = {k: bool(v) for k, v in caps.items()} if isinstance(caps, dict) else {}
        self._connected = True
        self.last_error = None
        if self.capabilities.get("steer"):
            self.unsupported.pop("steer", None)
        if self.capabilities.get("continue"):
            self.unsupported.pop("continue", None)
        have = tuple(sorted(k for k, v in self.capabilities.items() if v))
        self.emit(RemoteConnected(self.name, self.reply_id, have))
        if self.capabilities.get("history") and not self.is_replying:
            await self.sync()
        return self.capabilities

    async def sync(self) -> bool:
        """Load the thread's messages and state from the server (nb_hitl's server); False
        when the server keeps no history this client can read."""
        history = await self.client.history(self.thread_id)
        if history is None:
            return False
        self._apply_history(history)
        return True

    def _apply_history(self, history: dict[str, Any]) -> None:
        """Make memory, state and parked interrupts the server's ``history``."""
        from pydantic import TypeAdapter

        try:
            from ag_ui.core import Interrupt, Message

            messages = TypeAdapter(list[Message]).validate_python(history.get("messages") or [])
            parked = TypeAdapter(list[Interrupt]).validate_python(history.get("interrupts") or [])
        except ValueError as exc:
            raise RemoteAgentError(
                f"The server's history of {self.thread_id!r} is malformed "
                f"({str(exc).splitlines()[0]}).",
                kind="protocol",
            ) from None
        self.mirror.reconcile(list(messages), drop_local=True)
        if "state" in history:
            self.remote_state = history.get("state")
        self.server_interrupts = list(parked)
        self._needs_sync = False

    async def resume_pending(self) -> Msg:
        """Park on the interrupts the thread already waits on at the server (a parked approval
        or question found on attach), then resume it as any parked reply."""
        return await self(None, _pending=True)

    def _record_incoming(self, msg: Any) -> None:
        incoming = [msg] if isinstance(msg, Msg) else list(msg or [])
        if not incoming and self._steering_kept:  # steering a run that ended first
            incoming, self._steering_kept = list(self._steering_kept), []
        for m in incoming:
            if self.memory.get(m.id) is None:
                self.mirror.commit(m)

    # -- the reply ---------------------------------------------------------------------------
    async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """One or more AG-UI runs until the server finishes (or Stop)."""
        self.where = "connecting"
        if self._connecting is not None and not self._connecting.done():
            await self._connecting
        if not self._connected:
            await self.connect()
        elif self._needs_sync and self.capabilities.get("history"):
            await self.sync()
        resume = self._take_abandoned()
        pending, self.server_interrupts = self.server_interrupts, []
        if kwargs.get("_pending") and pending:
            self.where = "waiting for you"
            resume = await self.decisions.park([read_interrupt(i, {}) for i in pending])
        while True:
            mapper = await self._one_run(resume)
            outcome = mapper.outcome
            kind = getattr(outcome, "type", "success")
            if kind == "interrupt":
                self.where = "waiting for you"
                waits = [read_interrupt(i, mapper.calls) for i in outcome.interrupts]
                resume = await self.decisions.park(waits)
                self.where = "resuming"
                continue
            if kind == "cancelled":  # the server stopped it (another client, a steer...)
                self.interrupt_nowait(cause="server")
                await asyncio.sleep(0)
            self.last_error = None
            return mapper.result or Msg(self.name, "", "assistant")

    async def _one_run(self, resume: list[dict[str, Any]] | None) -> RunMapper:
        run_id = uuid.uuid4().hex
        body: dict[str, Any] = {
            "threadId": self.thread_id,
            "runId": run_id,
            "state": self.remote_state if isinstance(self.remote_state, dict) else {},
            "messages": [
                m.model_dump(by_alias=True, mode="json") for m in to_agui(self.memory.messages)
            ],
            "tools": [],
            "context": [],
            "forwardedProps": {},
        }
        if resume:
            body["resume"] = resume
        mapper = RunMapper(self, self.max_message_chars)
        self._mapper = mapper
        self.last_run_id = run_id
        self.where = "waiting for the server"
        waited = 0.0
        while True:
            try:
                await self._stream(body, mapper)
                break
            except RemoteAgentError as exc:
                # 409: the thread is still finishing the run we just stopped (Stop returns
                # at once here, the server follows): wait for it a little, then go on.
                if exc.status_code != 409 or waited >= BUSY_WAIT_S:
                    raise
                await asyncio.sleep(0.05)
                waited += 0.05
        if not mapper.finished:
            raise RemoteAgentError(
                f"The server at {self.url} ended the stream before the run finished "
                "(no RUN_FINISHED); the text so far is kept. Retry when it is back.",
                kind="dropped",
            )
        mapper.summary()
        self._mapper = None if mapper.live is None else mapper
        return mapper

    async def _stream(self, body: dict[str, Any], mapper: RunMapper) -> None:
        events = self.client.run(body)
        try:
            async for event in events:
                mapper.feed(event)
                if mapper.run_id:
                    self.last_run_id = mapper.run_id
                if mapper.finished:
                    break
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    def _take_abandoned(self) -> list[dict[str, Any]] | None:
        """Interrupts a Stop left open: other servers are told they are cancelled (nb_hitl's
        server closes them itself when a new message comes)."""
        left, self.decisions.abandoned = self.decisions.abandoned, []
        if not left or self.capabilities.get("history"):
            return None
        return [{"interruptId": i, "status": "cancelled"} for i in left]

    # -- stopping ------------------------------------------------------------------------------
    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Keep the text so far, close open calls, tell the server; the interrupted message."""
        self.decisions.close_waiting()  # (a Stop while parked closed them already)
        partial = self.mirror.keep_partial(error=None)
        # In a task of its own: httpx's cancel scopes must open and close in one task, and the
        # interrupted path may step through more than one.
        adopted = await asyncio.ensure_future(self._adopt_server_stop())
        if adopted is not None:
            return adopted
        extra: dict[str, Any] = {LOCAL: True}
        if partial is not None:
            extra[MetaKey.PARTIAL_MSG_ID] = partial.id
        self.mirror.close_open_calls("interrupted: the reply was stopped", interrupted=True)
        self._needs_sync = bool(self.capabilities.get("history"))
        result = self._interrupted_msg(**extra)
        self.mirror.commit(result)
        return result

    async def _adopt_server_stop(self) -> Msg | None:
        """Stop the run on the server; on nb_hitl's server (it keeps the history), take the
        interrupted message its agent recorded, so memory and the transcript hold the server's
        record rather than a stand-in of this client's that the next sync would replace (the
        transcript would keep drawing the stand-in). ``None``: make a stand-in here."""
        if not (self.capabilities.get("stop") and self.last_run_id):
            return None
        if not self.capabilities.get("history"):
            self._spawn(self.client.stop(self.thread_id, self.last_run_id))
            return None
        try:
            await self.client.stop(self.thread_id, self.last_run_id)
            for _ in range(int(ADOPT_WAIT_S / ADOPT_POLL_S)):  # the server ends it in a few ms
                history = await self.client.history(self.thread_id)
                if history is None:
                    return None
                if not history.get("running"):
                    self._apply_history(history)
                    break
                await asyncio.sleep(ADOPT_POLL_S)
        except RemoteAgentError as exc:
            logger.info("%s: the server's interrupted message is not known: %s", self.name, exc)
            return None
        last = self.memory.messages[-1] if self.memory.messages else None
        return last if last is not None and last.is_interrupted else None

    async def _on_error(self, exc: BaseException) -> None:
        """Keep memory valid after a failed run: partial text kept, open calls closed."""
        self.last_error = exc
        self.mirror.keep_partial(error=f"{type(exc).__name__}: {exc}")
        self.mirror.close_open_calls(f"not completed: {exc}", interrupted=False)
        self._needs_sync = bool(self.capabilities.get("history"))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.info("%s: background request failed: %r", self.name, task.exception())

    # -- decisions (``self.decisions``): the local agent's names -----------------------------
    @property
    def pending_approvals(self) -> list[PendingApproval]:
        """The approvals the remote run waits for, in the server's order."""
        return self.decisions.pending_approvals

    @property
    def pending_questions(self) -> list[PendingQuestion]:
        """The questions the remote run waits for."""
        return self.decisions.pending_questions

    @property
    def is_waiting_for_approval(self) -> bool:
        """True while the reply is parked on the server's interrupts."""
        return self.decisions.is_waiting_for_approval

    @property
    def approval_log(self) -> list[dict[str, Any]]:
        """Every decision so far (call, tool, decision, arguments, reason)."""
        return self.decisions.approval_log

    @approval_log.setter
    def approval_log(self, log: list[dict[str, Any]]) -> None:
        self.decisions.approval_log = log

    def approve(self, call_id: str, arguments: str | dict[str, Any] | None = None) -> None:
        """Approve a waiting call, optionally with edited ``arguments`` (dict or JSON text)."""
        self.decisions.approve(call_id, arguments)

    def deny(self, call_id: str, reason: str = "") -> None:
        """Deny a waiting call; the server's agent receives the reason."""
        self.decisions.deny(call_id, reason)

    def decide(
        self,
        call_id: str,
        decision: str,
        *,
        arguments: Any = None,
        reason: str = "",
        rule: Any = None,
        **_ignored: Any,
    ) -> None:
        """``approve`` / ``edit`` / ``deny`` by word; ``rule`` is refused (the server's rules)."""
        self.decisions.decide(call_id, decision, arguments=arguments, reason=reason, rule=rule)

    def always_allow(self, tool_name: str) -> None:
        """Refused: the server keeps its own permission rules."""
        self.decisions.always_allow(tool_name)

    def approve_all(self) -> None:
        """Approve every waiting call."""
        self.decisions.approve_all()

    def deny_all(self, reason: str = "") -> None:
        """Deny every waiting call with the same reason."""
        self.decisions.deny_all(reason)

    def allow_for_session(self, tool_name: str) -> None:
        """``always_allow``: for this session only."""
        self.decisions.allow_for_session(tool_name)

    def approve_waiting(self) -> None:
        """``approve_all``: every call waiting now."""
        self.decisions.approve_waiting()

    def deny_waiting(self, reason: str = "") -> None:
        """``deny_all``: every call waiting now."""
        self.decisions.deny_waiting(reason)

    def answer(self, question_id: str, answers: Any, **_ignored: Any) -> None:
        """Answer the remote run's questions (as ``ReActAgent.answer``)."""
        self.decisions.answer(question_id, answers)

    # -- Continue, steering ------------------------------------------------------------------
    @property
    def can_resume(self) -> bool:
        """Whether Continue can continue the interrupted answer on the server."""
        last = self.memory.messages[-1] if self.memory.messages else None
        return bool(self.capabilities.get("continue") and last is not None and last.is_interrupted)

    async def resume(self, instruction: Msg | str | None = None) -> Msg:
        """Continue the interrupted reply on the server, as ``agent.resume()`` does locally.

        nb_hitl's server continues it mid-sentence (a run without new input); an
        ``instruction`` goes with that run marked as one (``metadata["_resume_instruction"]``),
        so the server finishes the cut sentence, then follows it. A server that cannot
        continue gets the instruction as a new message.
        """
        if isinstance(instruction, str):
            instruction = Msg(self.user_name, instruction, "user")
        if instruction is not None and self.can_resume:
            instruction.metadata[MetaKey.RESUME_INSTRUCTION] = True
        return await self(instruction)

    @property
    def steer_nowait(self) -> Any:
        """``steer_nowait(msg)``: give the running reply new input at its next step (servers
        with a steer endpoint only; others have no such attribute, so the chat redirects)."""
        if not self.capabilities.get("steer"):
            raise AttributeError("this server takes no steering")
        return self._steer

    def _steer(self, msg: Msg) -> bool:
        async def send() -> None:
            if not await self.client.steer(
                self.thread_id, msg.get_text_content() or "", msg.id, msg.name
            ):
                self._steering_kept.append(msg)  # the run ended first: the next one takes it
            else:
                self._steering_queued.append(msg)

        self._spawn(send())
        return True

    @property
    def pending_steering(self) -> list[Msg]:
        """Steering messages no reply has taken in yet (the chat's next reply answers them,
        as for a local agent): kept here, or queued on the server and not in memory yet."""
        self._steering_queued = [m for m in self._steering_queued if self.memory.get(m.id) is None]
        return [*self._steering_kept, *self._steering_queued]

    async def aclose(self) -> None:
        """Close the HTTP connections (and cancel a connect or request still under way).

        A reply still finishing its Stop (it reads the server's interrupted message) is let
        finish first, for a few seconds at most."""
        reply = self._reply_task
        if reply is not None and not reply.done():
            self.interrupt_nowait()
            await asyncio.wait({reply}, timeout=BUSY_WAIT_S)
        pending = [
            t for t in (self._connecting, *self._background) if t is not None and not t.done()
        ]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await self.client.aclose()

    def state_dict(self) -> dict[str, Any]:
        """The URL, thread and mirrored memory (never the token or headers)."""
        state = super().state_dict()
        state.update(url=self.url, thread_id=self.thread_id)
        return state


__all__ = ["LOCAL", "RemoteAgent"]
