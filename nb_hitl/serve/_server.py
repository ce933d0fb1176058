"""``AgentServer``: AG-UI runs, stops, steering and history over nb_hitl agents, HTTP aside.

The web layer (``_app.py``) parses requests and calls these methods; everything a request may
get wrong is checked here first and refused with a ``ServeError`` (HTTP status, code, what to
do) before a run starts, so a refused request changes nothing.

Input rules (docs/serve.md): the server's memory is the thread's history. Of
``RunAgentInput.messages`` only messages with ids the server does not know are new input, and
they must be user messages with text. A run with ``resume`` entries answers the interrupts the
thread waits on; a run with neither is *Continue* (``agent.resume()``), or, when the thread is
parked, re-sends the pending interrupts.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from ag_ui.core import Interrupt, ResumeEntry, RunAgentInput

from nb_hitl.events import ApprovalRequested, QuestionAsked
from nb_hitl.exceptions import ServeError
from nb_hitl.message import Msg

from ._convert import QUESTION_REASON, messages_to_agui, pending_interrupts
from ._run import ActiveRun, RunPlan
from ._state import agent_state
from ._threads import AgentFactory, Threads, ThreadSlot, check_thread_id

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.session import SessionBase

__all__ = ["AgentServer"]

MAX_TEXT = 200_000
"""Characters of one input message (a larger one is refused with 422)."""


class AgentServer:
    """nb_hitl agents behind AG-UI: one agent per thread, saved after every run.

    Args:
        agent_or_factory: a function building a fresh agent (given the thread id when it
            has a ``thread_id`` or a required first parameter), or one agent instance (then
            the server has one thread).
        session: where threads are saved: a ``JSONSession``, ``RedisSession`` or any
            ``SessionBase`` (None: kept in this process only, gone on restart).
        max_idle_threads: idle threads kept in memory; older ones are loaded again on use.
    """

    def __init__(
        self,
        agent_or_factory: AgentBase | AgentFactory,
        session: SessionBase | None = None,
        *,
        max_idle_threads: int = 1000,
    ) -> None:
        from nb_hitl.agent import AgentBase

        if isinstance(agent_or_factory, AgentBase):
            self.threads = Threads(None, session, single=agent_or_factory)
            self.name = agent_or_factory.name
        elif callable(agent_or_factory):
            self.threads = Threads(agent_or_factory, session, max_idle=max_idle_threads)
            self.name = getattr(agent_or_factory, "__name__", "agent")
        else:
            raise TypeError(
                f"serve() takes an agent or a function that builds one, got "
                f"{type(agent_or_factory).__name__}."
            )

    # -- runs --------------------------------------------------------------------------------
    async def start_run(self, data: RunAgentInput) -> ActiveRun:
        """Check ``data`` against the thread, then start the run (its events: ``run.stream()``).

        Raises:
            ServeError: 409 a run is in progress on the thread; 422 bad input (what to fix).
        """
        thread_id = check_thread_id(data.thread_id)
        async with self.threads.lock(thread_id):
            slot = await self.threads.slot(thread_id)
            if slot.busy:
                raise ServeError(
                    409,
                    "busy",
                    f"A run ({slot.run.run_id if slot.run else '?'}) is in progress on thread "
                    f"{thread_id!r}. Stop it (POST .../threads/{thread_id}/interrupt), steer it "
                    f"(POST .../threads/{thread_id}/steer), or wait for its RUN_FINISHED.",
                )
            history = await slot.agent.memory.get_memory(prepend_summary=False)
            plan = self._plan(slot, data, history)
            run = ActiveRun(self.threads, slot, data.run_id or uuid.uuid4().hex, plan, history)
            slot.run = run
            run.start()
            return run

    def _plan(self, slot: ThreadSlot, data: RunAgentInput, history: list[Msg]) -> RunPlan:
        known = {m.id for m in history} | {m.id for m in messages_to_agui(history)}
        new = [m for m in data.messages if m.id not in known]
        msgs = [_user_msg(m, slot.agent) for m in new]
        waiting = self._waiting(slot)
        if data.resume:
            if msgs:
                raise ServeError(
                    422,
                    "bad_input",
                    "A run with `resume` answers the pending interrupts; send new messages "
                    "in a run of their own (without `resume`).",
                )
            return RunPlan("resume", answers=self._check_resume(data.resume, waiting))
        if msgs:
            return RunPlan("message", new_msgs=msgs)
        if waiting:
            return RunPlan("reattach")
        if not getattr(slot.agent, "can_resume", False):
            raise ServeError(
                422,
                "nothing_to_continue",
                f"The run has no new user message and thread {slot.thread_id!r} has no "
                "interrupted reply to continue: add a user message with a new id to "
                "`messages`.",
            )
        return RunPlan("continue")

    def _waiting(self, slot: ThreadSlot) -> list[dict[str, Any]]:
        """The interrupts the thread waits on (JSON): live ones, else those saved with it."""
        if slot.parked:
            return [
                i.model_dump(mode="json", by_alias=True) for i in pending_interrupts(slot.agent)
            ]
        return list(slot.record.interrupts) if slot.reply is None else []

    def _check_resume(
        self, entries: list[ResumeEntry], waiting: list[dict[str, Any]]
    ) -> dict[str, ResumeEntry]:
        from nb_hitl.agent._ask_user import check_answers, parse_questions

        by_id = {i["id"]: i for i in waiting}
        if not by_id:
            raise ServeError(
                422,
                "nothing_to_resume",
                "The thread waits on no interrupt (it finished, or was stopped); send a new "
                "user message instead of `resume`.",
            )
        out: dict[str, ResumeEntry] = {}
        for entry in entries:
            interrupt = by_id.get(entry.interrupt_id)
            if interrupt is None:
                raise ServeError(
                    422,
                    "unknown_interrupt",
                    f"No pending interrupt {entry.interrupt_id!r} on this thread; pending: "
                    f"{sorted(by_id)}. Answer those ids (GET .../threads/ID/messages lists them).",
                )
            payload = entry.payload if isinstance(entry.payload, dict) else {}
            if entry.status == "resolved" and interrupt.get("reason") == QUESTION_REASON:
                questions = (interrupt.get("metadata") or {}).get("questions", [])
                answers = payload["answers"] if "answers" in payload else entry.payload
                try:
                    check_answers(parse_questions([_snake(q) for q in questions]), answers)
                except Exception as exc:
                    raise ServeError(422, "bad_answer", f"{exc}") from exc
            elif entry.status == "resolved":
                word = payload.get("decision")
                if word not in ("approve", "edit", "deny"):
                    raise ServeError(
                        422,
                        "bad_decision",
                        f"Resume entry for {entry.interrupt_id!r} needs payload "
                        '{"decision": "approve" | "edit" | "deny"} (with "arguments" for '
                        f'edit, "reason" for deny); got {entry.payload!r:.200}.',
                    )
                if word == "edit" and not isinstance(payload.get("arguments"), dict):
                    raise ServeError(
                        422, "bad_decision", 'An "edit" decision needs "arguments": {...}.'
                    )
            out[entry.interrupt_id] = entry
        return out

    # -- outside a run -----------------------------------------------------------------------
    async def interrupt(self, thread_id: str, run_id: str | None = None) -> dict[str, Any]:
        """Stop the thread's run (``agent.interrupt()``), or a reply parked between runs.

        A reply parked on approvals or questions is stopped wherever it was parked: live in
        this process, or saved in the store by another worker (or before a restart), where it
        is loaded, resumed and interrupted, so memory ends as after an in-kernel Stop.
        """
        check_thread_id(thread_id)
        slot = self.threads.slots.get(thread_id)
        if slot is not None and slot.run is not None and not slot.run.finished:
            return self._stop_run(slot, run_id)
        async with self.threads.lock(thread_id):
            slot = await self.threads.slot(thread_id)
            if slot.run is not None and not slot.run.finished:
                return self._stop_run(slot, run_id)
            if not slot.parked:
                if slot.reply is not None or not slot.record.interrupts:
                    return {"interrupted": False, "reason": "no run in progress"}
                asked = asyncio.Event()
                sub = slot.agent.subscribe(
                    lambda e: (
                        asked.set() if isinstance(e, (ApprovalRequested, QuestionAsked)) else None
                    )
                )
                slot.reply = asyncio.get_running_loop().create_task(
                    slot.agent.resume_pending()  # type: ignore[attr-defined]
                )
                waiter = asyncio.ensure_future(asked.wait())
                try:  # until the loaded reply parks again (a Stop before that re-parks it)
                    await asyncio.wait(
                        {waiter, slot.reply}, timeout=10, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    waiter.cancel()
                    sub.close()
            reply = slot.reply
            await slot.agent.interrupt()
            if reply is not None:
                try:
                    await reply
                except Exception:  # the stopped reply failed: reported, memory stays valid
                    pass
            slot.reply = None
            await self.threads.save(slot, [])
        return {"interrupted": True, "parked": True}

    def _stop_run(self, slot: ThreadSlot, run_id: str | None) -> dict[str, Any]:
        run = slot.run
        assert run is not None
        if run_id and run_id != run.run_id:
            raise ServeError(
                409,
                "other_run",
                f"Run {run_id!r} is not the run in progress ({run.run_id!r}); nothing was stopped.",
            )
        return {"interrupted": run.request_stop("stop"), "runId": run.run_id}

    async def steer(self, thread_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Give the running reply a new user message at its next step (``agent.steer``)."""
        check_thread_id(thread_id)
        content = body.get("content")
        if not isinstance(content, str) or not content.strip() or len(content) > MAX_TEXT:
            raise ServeError(
                422,
                "bad_input",
                f'Steering needs {{"content": "text"}} (1-{MAX_TEXT} characters).',
            )
        slot = self.threads.slots.get(thread_id)
        if slot is None or not slot.busy:
            raise ServeError(
                409,
                "no_run",
                f"No run is in progress on thread {thread_id!r}: send the message as a new "
                "run (POST to the run endpoint) instead.",
            )
        name = body.get("name") if isinstance(body.get("name"), str) else "user"
        extra: dict[str, Any] = {}
        if isinstance(body.get("id"), str) and body["id"]:
            extra["id"] = body["id"]
        msg = Msg(name or "user", content, "user", **extra)
        queued = await slot.agent.steer(msg)  # type: ignore[attr-defined]
        return {"queued": bool(queued), "messageId": msg.id}

    async def history(self, thread_id: str) -> dict[str, Any]:
        """The thread's messages, state and pending interrupts, without running anything."""
        check_thread_id(thread_id)
        async with self.threads.lock(thread_id):
            slot = await self.threads.slot(thread_id)
            memory = await slot.agent.memory.get_memory(prepend_summary=False)
            waiting = self._waiting(slot)
        return {
            "threadId": thread_id,
            "exists": bool(memory) or slot.record.version > 0,
            "running": slot.busy,
            "messages": [
                m.model_dump(mode="json", by_alias=True) for m in messages_to_agui(memory)
            ],
            "state": agent_state(slot.agent),
            "interrupts": [
                Interrupt.model_validate(i).model_dump(mode="json", by_alias=True) for i in waiting
            ],
        }

    def info(self) -> dict[str, Any]:
        """What this server can do (``GET {path}/info``)."""
        return {
            "protocolVersion": "1.0",
            "server": "nb_hitl",
            "agent": self.name,
            "capabilities": {
                "stop": True,
                "steer": True,
                "resume": True,
                "continue": True,
                "history": True,
                "persistent": self.threads.session is not None,
            },
        }

    async def aclose(self) -> None:
        """Stop every running or parked reply (server shutdown); nothing more is saved."""
        for slot in list(self.threads.slots.values()):
            if slot.run is not None and not slot.run.finished:
                slot.run.request_stop("shutdown")
        for task in list(self.threads.background):
            try:
                await task
            except Exception:
                pass


def _snake(question: dict[str, Any]) -> dict[str, Any]:
    q = dict(question)
    if "multiSelect" in q:
        q["multi_select"] = q.pop("multiSelect")
    if "allowOther" in q:
        q["allow_other"] = q.pop("allowOther")
    return q


def _user_msg(message: Any, agent: Any) -> Msg:
    """A new AG-UI input message as an nb_hitl ``Msg`` (user text only), keeping its id."""
    role = getattr(message, "role", "?")
    if role != "user":
        raise ServeError(
            422,
            "bad_input",
            f"Message {message.id!r} has role {role!r} and is not in this thread's history. "
            "The server keeps the history: send only new user messages (ids it has not seen); "
            "GET .../threads/ID/messages shows the history it has.",
        )
    content = message.content
    if isinstance(content, list):
        texts = [getattr(p, "text", None) for p in content]
        if any(t is None for t in texts):
            raise ServeError(
                422, "bad_input", f"Message {message.id!r}: only text parts are accepted."
            )
        content = "\n".join(t for t in texts if t)
    if not isinstance(content, str) or not content.strip():
        raise ServeError(422, "bad_input", f"Message {message.id!r} has no text.")
    if len(content) > MAX_TEXT:
        raise ServeError(
            422,
            "bad_input",
            f"Message {message.id!r} has {len(content)} characters; the limit is {MAX_TEXT}.",
        )
    name = message.name if isinstance(message.name, str) and message.name else "User"
    return Msg(name, content, "user", id=message.id)
