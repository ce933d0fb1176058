"""ReActAgent: reason (stream the model), act (run tools), repeat, interruptible anywhere.

After an interrupt, memory holds, in order: the user's message; the partial assistant message
(text so far, ``metadata["_partial"] = True``; tool calls whose arguments had not finished
streaming are dropped); exactly one ``tool_result`` for every ``tool_use`` (real results for
finished calls, an interrupted result for the running call and every call not yet started);
the interrupted message. So the next prompt is valid for OpenAI-style APIs.

AgentScope's extension points work as there: ``_reasoning(tool_choice)`` and
``_acting(tool_call)`` (one call; the acting step lives in ``_acting.py``) can be overridden
and are wrapped by the ``pre_/post_reasoning`` and ``pre_/post_acting`` hooks;
``await agent(msg, structured_model=Model)`` fills ``reply.metadata`` through the
``generate_response`` tool (``_structured.py``); messages go through ``print`` as they stream
(``_console.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from nb_hitl.compression import CompressionConfig
from nb_hitl.compression._summary import SUMMARIZE_PROMPT
from nb_hitl.events import MessageAdded, Steered, StoppedAfterStep
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.formatter import FormatterBase, OpenAIChatFormatter
from nb_hitl.memory import COMPRESSED, InMemoryMemory
from nb_hitl.message import MetaKey, Msg, ToolUseBlock
from nb_hitl.model import ChatModelBase
from nb_hitl.tool import Toolkit

from ._acting import ActingMixin
from ._base import DEFAULT_INTERRUPT_TEXT
from ._branches import BranchMixin
from ._compression_agent import CompressionMixin
from ._hooks import REACT_HOOK_TYPES
from ._lifecycle import ACTIVE_STATES, on_loop_thread
from ._react_base import ReActAgentBase
from ._resume import ResumeMixin
from ._resume_point import ResumePoint, answer_text, text_digest
from ._steering import SteeringInbox, parse_queue, steer_message
from ._streaming import StreamingMixin
from ._structured import (
    FINISH_FUNCTION_NAME,
    StructuredTurn,
    check_structured_model,
)
from .approvals import PermissionPolicy

STOPPED_TEXT = (
    "[Stopped] The user asked the agent to stop after this step; the task may be unfinished."
)
"""Text of the message a reply stopped by ``stop_after_step()`` returns."""


class ReActAgent(
    CompressionMixin,
    ResumeMixin,
    BranchMixin,
    StreamingMixin,
    ActingMixin,
    ReActAgentBase,
):
    """An agent that alternates model reasoning and tool calls until it can answer.

    Args:
        name: the agent's name.
        sys_prompt: the system prompt.
        model: any ``ChatModelBase`` (``ScriptedModel`` offline, ``OpenAIChatModel``...).
        formatter: ``Msg`` list to chat format (default ``OpenAIChatFormatter(plain_content=True)``,
            which every OpenAI-compatible server takes, llama.cpp's included).
        toolkit: the tools the model may call.
        memory: the message store (default a new ``InMemoryMemory``).
        compression_config: when and how to summarise old memory (``CompressionConfig``).
        max_iters: reasoning steps per reply before a summarising final answer.
        parallel_tool_calls: run the tool calls of one step concurrently.
        interrupt_text: text of the message ``handle_interrupt()`` returns.
        permissions: which tool calls run, wait for a person or are refused
            (``PermissionPolicy``; default: calls wait when their tool needs approval).
    """

    CompressionConfig = CompressionConfig
    """AgentScope's ``ReActAgent.CompressionConfig`` (the same class as
    ``nb_hitl.agent.CompressionConfig``)."""

    supported_hook_types = REACT_HOOK_TYPES
    _loop_runs_step_hooks = True
    supports_stop_after_step = True
    finish_function_name: str = FINISH_FUNCTION_NAME
    """The tool through which the model returns structured output (AgentScope's name)."""

    def __init__(
        self,
        name: str,
        sys_prompt: str,
        model: ChatModelBase,
        formatter: FormatterBase | None = None,
        toolkit: Toolkit | None = None,
        memory: InMemoryMemory | None = None,
        compression_config: Any = None,
        max_iters: int = 10,
        parallel_tool_calls: bool = False,
        *,
        interrupt_text: str = DEFAULT_INTERRUPT_TEXT,
        permissions: PermissionPolicy | None = None,
    ) -> None:
        super().__init__(name, interrupt_text=interrupt_text)
        if max_iters < 1:
            raise ValueError(f"max_iters must be at least 1 (got {max_iters}).")
        if not isinstance(model, ChatModelBase):
            raise TypeError(
                f"model must be a ChatModelBase (e.g. ScriptedModel.demo()), got {model!r}."
            )
        self.sys_prompt = sys_prompt
        self.model = model
        self.formatter = formatter or OpenAIChatFormatter(plain_content=True)
        self.toolkit = toolkit or Toolkit()
        self.memory = memory if memory is not None else InMemoryMemory()
        self.compression_config = compression_config
        self.max_iters = max_iters
        self.parallel_tool_calls = parallel_tool_calls
        # In-flight state of the running reply, read by handle_interrupt().
        self._live: Msg | None = None
        self._open_calls: dict[str, ToolUseBlock] = {}
        self._tool_partial: dict[str, str] = {}
        self._started_calls: set[str] = set()
        self._resume_calls: list[ToolUseBlock] = []
        self._active_resume: ResumePoint | None = None
        self._structured = StructuredTurn()
        self.steering = SteeringInbox()
        """Messages ``steer()`` queued for the next step boundary (``_steering.py``)."""
        if permissions is not None:
            self.permissions = permissions  # checked against the toolkit now

    # -- prompt ------------------------------------------------------------------------------
    @property
    def sys_prompt(self) -> str:
        """The system prompt, followed by the toolkit's agent-skill prompt when it has skills
        (``Toolkit.register_agent_skill``), as AgentScope's ``ReActAgent.sys_prompt``."""
        skills = getattr(self.toolkit, "get_agent_skill_prompt", lambda: None)()
        return f"{self._sys_prompt}\n\n{skills}" if skills else self._sys_prompt

    @sys_prompt.setter
    def sys_prompt(self, value: str) -> None:
        self._sys_prompt = value

    def system_msg(self) -> Msg:
        """The system message sent first: the system prompt, plus the summary if any."""
        text = self.sys_prompt
        summary = self.memory.summary
        if summary:
            text = f"{text}\n\n{summary}" if text else summary
        return Msg("system", text, "system")

    def prompt_msgs(self) -> list[Msg]:
        """The messages the next model call will see (compressed ones left out)."""
        return [self.system_msg(), *self.memory.select(exclude_mark=COMPRESSED)]

    async def format_prompt(self) -> list[dict[str, Any]]:
        """The formatted prompt of the next model call."""
        return await self.formatter.format(self.prompt_msgs())

    # -- helpers -------------------------------------------------------------------------------
    async def _commit(self, msg: Msg) -> None:
        await self.memory.add(msg)
        self._emit(MessageAdded(self.name, self._reply_id, msg))

    def _commit_sync(self, msg: Msg) -> None:
        self.memory.add_sync(msg)
        self._emit(MessageAdded(self.name, self._reply_id, msg))

    def _record_incoming(self, msg: Msg | list[Msg] | None) -> None:
        """Start a reply's in-flight state and record ``msg``, synchronously.

        ``agent(msg)`` calls this before the reply task exists, so no interrupt or cancel can
        lose the question. Calls parked in a loaded session are closed unrun first when a new
        message is sent (their results must come before it), or kept to be resumed.
        """
        self._live = None
        self._active_resume = None
        self._open_calls = {}
        self._tool_partial = {}
        self._started_calls = set()
        self._resume_calls = self.approvals.start_reply(msg)
        incoming = [msg] if isinstance(msg, Msg) else list(msg or [])
        self.steering.drop(incoming)  # steered and then sent: recorded once, as the input
        if not self._resume_calls:  # parked calls resume first: their results come before it
            self._take_steering("reply start")  # steering a reply left unanswered, in order
        for m in incoming:
            if self.memory.get(m.id) is None:  # recorded exactly once
                self._commit_sync(m)

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        """Add messages to memory without replying."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        for m in [msg] if isinstance(msg, Msg) else list(msg or []):
            await self._commit(m)

    # -- steering (``_steering.py``) ---------------------------------------------------------
    @property
    def pending_steering(self) -> list[Msg]:
        """Steering messages queued and not yet recorded in memory (oldest first)."""
        return self.steering.pending

    async def steer(self, msg: Msg | str) -> bool:
        """Queue ``msg`` for the running reply, which takes it in at its next step boundary.

        Args:
            msg: a ``Msg`` (usually ``role="user"``) or its text.

        Returns:
            ``True`` when a reply is running (it, or the next reply if it ends first, will
            answer ``msg``); ``False`` when none is: ``msg`` waits for the next reply.
        """
        return self.steer_nowait(msg)

    def steer_nowait(self, msg: Msg | str) -> bool:
        """``steer()`` for sync callbacks running on the agent's event loop thread."""
        return self._queue_steer(steer_message(msg))

    def steer_threadsafe(self, msg: Msg | str) -> concurrent.futures.Future[bool]:
        """Steer from any thread (e.g. a widget callback); returns a future of the result."""
        m = steer_message(msg)
        return on_loop_thread(
            self._loop, lambda: self._queue_steer(m), lambda: self._queue_steer(m)
        )

    def _queue_steer(self, msg: Msg) -> bool:
        self.steering.put(msg, self._recorded)
        ctx = self._reply
        return ctx is not None and ctx.state in ("starting", "running")

    def _recorded(self, msg_id: str) -> bool:
        return self.memory.get(msg_id) is not None

    def _take_steering(self, where: str) -> None:
        """Record the queued steering messages in memory now, synchronously (at a step
        boundary, or at a reply's start); emits ``MessageAdded`` and ``Steered``."""
        if not len(self.steering):
            return
        ctx = self._reply
        reply_id = ctx.id if ctx is not None and ctx.state in ACTIVE_STATES else None
        for msg in self.steering.take(where, self._recorded):
            self.memory.add_sync(msg)
            self._emit(MessageAdded(self.name, reply_id, msg))
            self._emit(Steered(self.name, reply_id, msg, where))

    # -- the loop ------------------------------------------------------------------------------
    async def reply(
        self,
        msg: Msg | list[Msg] | None = None,
        structured_model: Any = None,
        **kwargs: Any,
    ) -> Msg:
        """Answer ``msg`` (or what memory holds), calling tools as the model asks.

        Args:
            msg: the new message(s), recorded in memory first.
            structured_model: a pydantic model whose validated fields the reply's ``metadata``
                must carry; the model fills them by calling ``generate_response``.
        """
        ctx = self._reply
        if ctx is None or not ctx.recorded or ctx.task is not asyncio.current_task():
            self._record_incoming(msg)  # called directly, not through agent()
        wanted = None if structured_model is None else check_structured_model(structured_model)
        turn = self._structured = StructuredTurn(wanted, self.finish_function_name)
        resuming = self._take_resume()  # set by resume(): this reply continues an interrupted one
        self._active_resume = resuming
        parked, self._resume_calls = self._resume_calls, []
        if parked:  # calls parked in a loaded session, resumed
            await self._act(parked)
        result = await self._steps(turn, resuming)
        return result if resuming is None else self._tag_continued(result, resuming)

    async def _steps(self, turn: StructuredTurn, resuming: ResumePoint | None) -> Msg:
        tool_choice = turn.first_tool_choice
        for _ in range(self.max_iters):
            if self._step_boundary():
                return await self._stopped_after_step()
            await self._compress_if_needed()
            if self._step_boundary():  # steering sent while compression summarised
                return await self._stopped_after_step()
            response = None
            if resuming is not None:
                response = await self._resume_step(resuming)  # the continued answer or calls
                resuming = None
            if response is None:
                response = await self._call_hooked(
                    "reasoning", self._reasoning, tool_choice=tool_choice
                )
            calls = [c for c in response.get_content_blocks("tool_use") if c.id in self._open_calls]
            outputs: list[dict[str, Any] | None] = []
            if calls:
                self._where = "between reasoning and acting"
                await asyncio.sleep(0)  # an interrupt requested while reasoning lands here
                outputs = await self._act(calls)
            if turn.model is not None:
                tool_choice, done = turn.after_step(self.name, response, outputs, tool_choice)
                if done is not None:
                    return done
            elif not calls:
                return turn.finish(response)
        if self._step_boundary():
            return await self._stopped_after_step()
        return turn.finish(await self._summarizing())

    def _step_boundary(self) -> bool:
        """Between two steps of the loop: the one place where the reply stops for an accepted
        interrupt that a tool swallowed, where ``stop_after_step()`` ends it (True), and
        where steering (``steer(msg)``) is taken in (left queued when the reply stops)."""
        self._checkpoint()
        ctx = self._reply
        if ctx is not None and ctx.stop_after_step and ctx.task is asyncio.current_task():
            return True
        self._take_steering("step boundary")
        return False

    async def _stopped_after_step(self) -> Msg:
        metadata = {
            MetaKey.STOPPED_AFTER_STEP: True,
            MetaKey.STOPPED_AT: self._where or "step boundary",
        }
        resumed = self._interrupted_resume(self._active_resume, metadata)
        if resumed is not None:  # a resumed reply stopped: the next resume() goes on from it
            metadata.update(continued_by=resumed.continued_by, continues=resumed.interrupted_id)
        msg = Msg(self.name, STOPPED_TEXT, "assistant", metadata=metadata)
        await self._commit(msg)
        self._emit(StoppedAfterStep(self.name, self._reply_id, msg))
        if self._printing():
            await self.print(msg, True)
        return msg

    async def _reasoning(self, tool_choice: str | None = None) -> Msg:
        """One model call: stream it, record the message, open its tool calls.

        Args:
            tool_choice: ``"auto"``, ``"none"``, ``"required"`` or ``None`` (the model's
                default), passed to the model when tools are offered.
        """
        hint = self._structured.take_hint()
        if hint:  # for this prompt only (AgentScope adds it and deletes it right after)
            prompt = await self.formatter.format([*self.prompt_msgs(), Msg("user", hint, "user")])
        else:
            prompt = await self.format_prompt()
        tools = [*self.toolkit.get_json_schemas(), *self._structured.tool_schemas()] or None
        msg = await self._stream_model(prompt, tools, tool_choice)
        self._ingest_calls(msg)
        for call in msg.get_content_blocks("tool_use"):
            self._open_calls[call.id] = call
        await self._commit(msg)
        if self._printing():
            await self.print(msg, True)
        return msg

    async def _summarizing(self) -> Msg:
        prompt = await self.format_prompt()
        prompt.append({"role": "user", "content": SUMMARIZE_PROMPT})
        msg = await self._stream_model(prompt, None)
        msg.content = [b for b in msg.get_content_blocks() if b.type != "tool_use"]
        msg.metadata[MetaKey.MAX_ITERS_REACHED] = True
        await self._commit(msg)
        if self._printing():
            await self.print(msg, True)
        return msg

    # -- interruption ------------------------------------------------------------------------
    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Close the history consistently, then return the interrupted message."""
        await self._stop_background()
        if self._repark_unstarted():  # a resumed reply stopped before it began: no trace
            return self._interrupted_msg(reparked=True)
        live, self._live = self._live, None
        if live is not None:
            kept = [
                b
                for b in live.get_content_blocks()
                if not (isinstance(b, ToolUseBlock) and b.raw_input is not None)
            ]
            dropped = len(live.get_content_blocks()) - len(kept)
            if kept:
                live.metadata[MetaKey.PARTIAL] = True
                if dropped:
                    live.content = kept
                    live.metadata[MetaKey.DROPPED_TOOL_CALLS] = dropped
                self._ingest_calls(live)
                for call in live.get_content_blocks("tool_use"):
                    self._open_calls[call.id] = call
                await self._commit(live)
                if self._printing():  # its chunks went out with last=False: now it is final
                    await self.print(live, True)
        closed = await self._close_interrupted_calls()
        extra: dict[str, Any] = {}
        if live is not None and live.metadata.get(MetaKey.PARTIAL):
            extra[MetaKey.PARTIAL_MSG_ID] = live.id
            extra[MetaKey.PARTIAL_DIGEST] = text_digest(answer_text(live))
        if closed["not_run"] or closed["interrupted"]:
            extra[MetaKey.CLOSED_CALLS] = closed  # what resume() runs again
        resumed = self._interrupted_resume(self._active_resume, extra)
        if resumed is not None:  # a resumed reply, interrupted again
            extra.update(continued_by=resumed.continued_by, continues=resumed.interrupted_id)
        result = self._interrupted_msg(**extra)
        await self._commit(result)
        if self._printing():
            await self.print(result, True)
        return result

    async def _on_error(self, exc: BaseException) -> None:
        """Keep memory valid when a model call fails: close open calls with an error result."""
        live, self._live = self._live, None
        if live is not None and live.get_text_content():
            live.content = [b for b in live.get_content_blocks() if b.type == "text"]
            live.metadata[MetaKey.PARTIAL] = True
            live.metadata[MetaKey.ERROR] = f"{type(exc).__name__}: {exc}"
            await self._commit(live)
        await self._close_failed_calls(exc)

    # -- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Memory and settings (never the model client or keys), and the steering messages
        still queued (``"steering"``)."""
        state = super().state_dict()
        state.update(
            sys_prompt=self._sys_prompt,  # the skills' prompt comes from the toolkit
            max_iters=self.max_iters,
            parallel_tool_calls=self.parallel_tool_calls,
            steering=self.steering.state(),
        )
        return state

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output; the steering queue becomes the saved one.

        Raises:
            ValueError: ``state["steering"]`` is not a list of messages (nothing changed).
        """
        queued = parse_queue(state.get("steering") if isinstance(state, dict) else None)
        super().load_state_dict(state, strict=strict)
        # one recorded meanwhile is never taken in twice
        self.steering = SteeringInbox([m for m in queued if not self._recorded(m.id)])
        self.sys_prompt = state.get("sys_prompt", self.sys_prompt)
        self.max_iters = int(state.get("max_iters", self.max_iters))
        self.parallel_tool_calls = bool(state.get("parallel_tool_calls", self.parallel_tool_calls))
