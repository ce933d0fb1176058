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
import functools
from typing import TYPE_CHECKING, Any

from nb_hitl._lazy import LazyAttribute
from nb_hitl.events import (
    MessageUpdated,
    Steered,
    StoppedAfterStep,
    ToolResultReady,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.memory import COMPRESSED, InMemoryMemory
from nb_hitl.message import MetaKey, Msg, TextBlock, ToolResultBlock, ToolUseBlock
from nb_hitl.model import ChatModelBase, ChatResponse, continuation_blocks

from ._acting import ToolCalls
from ._base import DEFAULT_INTERRUPT_TEXT
from ._hooks import REACT_HOOK_TYPES
from ._lifecycle import ACTIVE_STATES, on_loop_thread
from ._react_base import ReActAgentBase
from ._steering import SteeringInbox, parse_queue, steer_message
from ._structured import (
    FINISH_FUNCTION_NAME,
    StructuredTurn,
    check_structured_model,
)
from .approvals import ApprovalMethods

# Loaded when an agent is made or uses a part (the import stays cheap); type checkers read them.
if TYPE_CHECKING:
    from nb_hitl.compression import CompressionConfig as Config
    from nb_hitl.compression import CompressionPlan, CompressionResult
    from nb_hitl.formatter import FormatterBase
    from nb_hitl.tool import Toolkit

    from ._branches import BranchInfo, BranchTable
    from ._compressor import Compressor
    from .approvals import PermissionPolicy
    from .resume import ResumePoint, Resumer


STOPPED_TEXT = (
    "[Stopped] The user asked the agent to stop after this step; the task may be unfinished."
)
"""Text of the message a reply stopped by ``stop_after_step()`` returns."""


class ReActAgent(ReActAgentBase):
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

    if TYPE_CHECKING:
        CompressionConfig = Config
    else:  # loaded when first read
        CompressionConfig = LazyAttribute("nb_hitl.compression", "CompressionConfig")
    """AgentScope's ``ReActAgent.CompressionConfig`` (``nb_hitl.agent.CompressionConfig``)."""

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
        from nb_hitl.formatter import OpenAIChatFormatter
        from nb_hitl.tool import Toolkit

        from .approvals import ApprovalGate

        super().__init__(name, interrupt_text=interrupt_text)
        self.approvals = ApprovalGate(self)
        """The approval gate: policy, waiting calls, decisions, saved state, questions."""
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
        self._structured = StructuredTurn()
        self.tool_calls = ToolCalls(self)
        """The running reply's tool calls: opening, running, one result each (``_acting.py``)."""
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
        self._said(self._reply_id, msg)

    def _commit_sync(self, msg: Msg) -> None:
        self.memory.add_sync(msg)
        self._said(self._reply_id, msg)

    def _record_incoming(self, msg: Msg | list[Msg] | None) -> None:
        """Start a reply's in-flight state and record ``msg``, synchronously.

        ``agent(msg)`` calls this before the reply task exists, so no interrupt or cancel can
        lose the question. Calls parked in a loaded session are closed unrun first when a new
        message is sent (their results must come before it), or kept to be resumed.
        """
        self._live = None
        self.resumer.active = None
        self.tool_calls.start()
        self.tool_calls.resuming = self.approvals.start_reply(msg)  # it may open parked calls
        incoming = [msg] if isinstance(msg, Msg) else list(msg or [])
        self.steering.drop(incoming)  # steered and then sent: recorded once, as the input
        if not self.tool_calls.resuming:  # parked calls resume first: their results come before it
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

    # -- compression (``_compressor.py``) -----------------------------------------------------
    @functools.cached_property
    def compressor(self) -> Compressor:
        """Memory compression: settings, plan, summaries, undo and pins."""
        from ._compressor import Compressor

        return Compressor(self)

    @property
    def compression_config(self) -> Config | None:
        """When and how memory is compressed (None: only on demand, with default settings)."""
        return self.compressor.config

    @compression_config.setter
    def compression_config(self, value: Config | dict[str, Any] | None) -> None:
        self.compressor.config = value

    def current_question_id(self) -> str | None:
        """The message the agent is answering: the last uncompressed ``user`` message.

        Without one (agents talking to agents), the last message not written by this agent.
        """
        return self.compressor.current_question_id()

    def compression_plan(
        self, trigger_threshold: int | None = None, keep_recent: int | None = None
    ) -> CompressionPlan:
        """What compressing would do now; pure and cheap (see ``plan_compression``).

        Args:
            trigger_threshold: plan with this threshold instead of the config's (what-if).
            keep_recent: plan with this ``keep_recent`` instead of the config's (what-if).
        """
        return self.compressor.plan(trigger_threshold, keep_recent)

    def pin(self, msg_id: str) -> None:
        """Never compress message ``msg_id`` (it stays in the prompt verbatim)."""
        self.compressor.pin(msg_id)

    def unpin(self, msg_id: str) -> None:
        """Let message ``msg_id`` be compressed again."""
        self.compressor.unpin(msg_id)

    async def compress_memory(
        self, force: bool = False, *, keep_recent: int | None = None
    ) -> CompressionResult | None:
        """Compress now if the plan triggers (or, with ``force``, whatever it can compress).

        Args:
            force: compress even below the threshold.
            keep_recent: keep this many latest messages this once (what-if; default the
                config's), as ``compression_plan(keep_recent=...)`` shows it.

        Returns None when nothing was compressed (under the threshold, nothing compressible,
        or the summary failed: see the ``CompressionFailed`` event).

        Raises:
            AgentBusyError: a reply is running (it compresses before each step by itself).
        """
        return await self.compressor.compress_now(force, keep_recent=keep_recent)

    @property
    def can_undo_compression(self) -> bool:
        """Whether ``undo_compression()`` has a compression to undo."""
        return self.compressor.can_undo

    async def undo_compression(self) -> bool:
        """Undo the last compression: its messages return and the previous summary is back.

        Returns False when there is nothing to undo, or when the summary was changed since
        (by another compression's undo stack being lost, ``memory.clear()``, a loaded state).
        """
        return await self.compressor.undo_last()

    # -- resuming (``resume/``) --------------------------------------------------------------
    @functools.cached_property
    def resumer(self) -> Resumer:
        """Continuing the last interrupted reply: its resume point and the continuation."""
        from .resume import Resumer

        return Resumer(self)

    async def resume(
        self, instruction: str | Msg | None = None, *, rerun_interrupted: bool = False
    ) -> Msg:
        """Continue the last interrupted reply where it stopped (see ``nb_hitl.agent.resume``).

        Args:
            instruction: how to go on ("continue, but shorter"): recorded as a user message
                right before the continuation. ``None``: just continue.
            rerun_interrupted: run the tool call that was interrupted mid-run again (by
                default it stays reported as interrupted).

        Returns:
            The reply's message, with ``metadata["continued_by"]`` and ``["continues"]``.

        Raises:
            AgentBusyError: a reply is running (or parked on an approval).
            NothingToResumeError: no interrupted reply to continue.
            ResumeError: memory was edited or compressed past the interrupted reply.
        """
        if self.is_replying:
            raise AgentBusyError(self.name)
        msg = self.resumer.prepare(instruction, rerun_interrupted=rerun_interrupted)
        try:
            return await self(msg)
        finally:
            self.resumer.pending = None

    @property
    def can_resume(self) -> bool:
        """Whether ``resume()`` has an interrupted reply to continue right now."""
        return not self.is_replying and self.resumer.can_resume()

    def resume_point(self) -> ResumePoint:
        """What ``resume()`` would continue, without changing anything.

        Raises:
            NothingToResumeError: the last reply finished (or was already continued), or none
                was interrupted.
            ResumeError: memory was compressed or edited past the interrupted reply.
        """
        return self.resumer.point()

    # -- branches (``_branches.py``) ----------------------------------------------------------
    @functools.cached_property
    def branch_table(self) -> BranchTable:
        """The branches of the conversation: rewind, fork, check out."""
        from ._branches import BranchTable

        return BranchTable(self)

    @property
    def branches(self) -> list[BranchInfo]:
        """Every branch of the conversation, oldest first (the checked-out one ``active``)."""
        return self.branch_table.branches

    @property
    def branch(self) -> BranchInfo:
        """The checked-out branch."""
        return self.branch_table.branch

    def checkout(self, branch: str | BranchInfo) -> BranchInfo:
        """Switch memory to ``branch`` (an id, a name, or a ``BranchInfo``); returns it.

        Raises:
            AgentBusyError: a reply is running.
            BranchError: no such branch, or calls are parked on an approval.
        """
        return self.branch_table.checkout(branch)

    def fork(
        self, at_msg_id: str, new_msg: Msg | str | None = None, *, name: str | None = None
    ) -> BranchInfo:
        """Start a new branch holding the messages before ``at_msg_id`` and check it out.

        Args:
            at_msg_id: the first message the new branch does not have.
            new_msg: recorded on the new branch right away (a ``str`` is a user message); it
                is not answered (``await agent()`` does that).
            name: a label (default ``"branch N"``).

        Raises:
            AgentBusyError: a reply is running.
            BranchError: ``at_msg_id`` is not in memory, the fork would separate a tool call
                from its result, or the summary covers messages the branch would not have
                and the compression cannot be undone.
        """
        return self.branch_table.fork(at_msg_id, new_msg, name=name)

    async def edit_and_resend(self, msg_id: str, new_content: Any, **kwargs: Any) -> Msg:
        """Re-send the earlier user message ``msg_id`` with ``new_content`` on a new branch.

        The new branch holds what came before that message, then the edited one (a new id,
        ``metadata["edited_from"]``), answered as a normal reply (interruptible as any).

        Returns:
            The reply (``await agent(edited)``); ``kwargs`` go to it.

        Raises:
            AgentBusyError, BranchError: as ``fork``; ``msg_id`` must be a user message.
        """
        return await self.branch_table.edit_and_resend(msg_id, new_content, **kwargs)

    async def regenerate(self, msg_id: str, **kwargs: Any) -> Msg:
        """Answer the question of the earlier answer ``msg_id`` again, on a new branch.

        The new branch holds the conversation up to that answer's question (the last user
        message before it that was not steering or a resume instruction); the reply to it is
        run again. Its message has ``metadata["regenerates"] = msg_id``.

        Raises:
            AgentBusyError, BranchError: as ``fork``; ``msg_id`` must be an answer (not a user
                message) with a question before it.
        """
        return await self.branch_table.regenerate(msg_id, **kwargs)

    def branches_state(self) -> dict[str, Any]:
        """JSON-able branches: the inactive ones with their memory (the active one's is the
        agent's own ``memory``)."""
        return self.branch_table.branches_state()

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
            self._said(reply_id, msg)
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
        resuming = self.resumer.take()  # set by resume(): this reply continues an interrupted one
        parked, self.tool_calls.resuming = self.tool_calls.resuming, []
        if parked:  # calls parked in a loaded session, resumed
            await self.tool_calls.act(parked)
        result = await self._steps(turn, resuming)
        return result if resuming is None else self.resumer.tag(result, resuming)

    async def _steps(self, turn: StructuredTurn, resuming: ResumePoint | None) -> Msg:
        tool_choice = turn.first_tool_choice
        for _ in range(self.max_iters):
            if self._step_boundary():
                return await self._stopped_after_step()
            await self.compressor.compress_if_needed()
            if self._step_boundary():  # steering sent while compression summarised
                return await self._stopped_after_step()
            response = None
            if resuming is not None:
                response = await self.resumer.step(resuming)  # the continued answer or calls
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
                outputs = await self.tool_calls.act(calls)
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
        resumed = self.resumer.interrupted(metadata)
        if resumed is not None:  # a resumed reply stopped: the next resume() goes on from it
            metadata.update(continued_by=resumed.continued_by, continues=resumed.interrupted_id)
        msg = Msg(self.name, STOPPED_TEXT, "assistant", metadata=metadata)
        await self._commit(msg)
        self._emit(StoppedAfterStep(self.name, self._reply_id, msg))
        if self._print_wanted():
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
        self.tool_calls.open_calls_of(msg)
        await self._commit(msg)
        if self._print_wanted():
            await self.print(msg, True)
        return msg

    async def _stream_model(
        self,
        prompt: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: str | None = None,
        *,
        prefix: str | None = None,
        model_kwargs: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Msg:
        """Stream one model call into the live message (and return it, not yet recorded).

        With ``prefix`` (a continuation, ``resume()``), the model's text is the rest of
        ``prefix``: the live message shows ``prefix`` followed by it (a repeat of ``prefix`` by
        a model that started over is dropped), and each update's delta is only the new text.
        """
        blocks: list[Any] = [TextBlock(text=prefix)] if prefix else []
        live = Msg(self.name, blocks, "assistant", metadata=dict(metadata or {}))
        self._live = live
        self._where = "streaming"
        choice: dict[str, Any] = (
            {} if tool_choice is None or not tools else {"tool_choice": tool_choice}
        )
        stream = self.model(prompt, tools=tools, **choice, **(model_kwargs or {}))
        printing = self._print_wanted()
        last: ChatResponse | None = None
        text_len = len(prefix or "")
        pieces = 0
        try:
            async for chunk in stream:
                last = chunk
                pieces += 1
                blocks = [b.copy() for b in chunk.content]
                if prefix is not None:
                    blocks = continuation_blocks(prefix, blocks, complete=chunk.is_last)
                live.content = blocks
                text = live.get_text_content() or ""
                delta, text_len = text[text_len:], len(text)
                if any(b.type == "tool_use" and b.raw_input is not None for b in chunk.content):
                    self._where = "streaming tool-call arguments"
                self._emit(MessageUpdated(self.name, self._reply_id, live, delta, pieces))
                if printing:
                    await self.print(live, False)
        finally:
            await stream.aclose()  # closes HTTP streams at once on interrupt or error
        if prefix is not None and last is not None:
            # the model's own blocks: live's hold the prefix already (joined twice, doubled)
            blocks = [b.copy() for b in last.content]
            live.content = continuation_blocks(prefix, blocks, complete=True)
        if last is not None and last.usage is not None:
            live.usage = last.usage.model_dump()
        self._live = None
        return live

    async def _summarizing(self) -> Msg:
        from nb_hitl.compression import SUMMARIZE_PROMPT

        prompt = await self.format_prompt()
        prompt.append({"role": "user", "content": SUMMARIZE_PROMPT})
        msg = await self._stream_model(prompt, None)
        msg.content = [b for b in msg.get_content_blocks() if b.type != "tool_use"]
        msg.metadata[MetaKey.MAX_ITERS_REACHED] = True
        await self._commit(msg)
        if self._print_wanted():
            await self.print(msg, True)
        return msg

    # -- acting (``agent.tool_calls``, ``_acting.py``) ----------------------------------------
    async def _acting(self, tool_call: ToolUseBlock) -> dict[str, Any] | None:
        """Run one tool call and record its result (AgentScope's ``_acting``).

        Returns:
            The validated structured output when this was a correct ``generate_response``
            call of a reply asked for ``structured_model``, else ``None``.
        """
        return await self.tool_calls.run(tool_call)

    @property
    def _open_calls(self) -> dict[str, ToolUseBlock]:
        """Calls of the running reply that have no result yet, by id."""
        return self.tool_calls.open

    def _ingest_calls(self, msg: Msg) -> None:
        self.tool_calls.ingest(msg)

    async def _commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None:
        await self.tool_calls.commit_result(call, block)

    def _end_reply(self, reply_id: str) -> None:
        self.approvals.end_reply(reply_id)  # its reply-scope rules end with it

    # -- approvals (``agent.approvals``): AgentScope-style names, each written in
    # ``approvals/_agent.py`` as one line handing over to the gate ----------------------------
    permissions = ApprovalMethods.permissions
    always_allowed = ApprovalMethods.always_allowed
    permission_verdict = ApprovalMethods.permission_verdict
    needs_approval = ApprovalMethods.needs_approval
    pending_approvals = ApprovalMethods.pending_approvals
    is_waiting_for_approval = ApprovalMethods.is_waiting_for_approval
    approval_log = ApprovalMethods.approval_log
    decide = ApprovalMethods.decide
    decide_threadsafe = ApprovalMethods.decide_threadsafe
    approve = ApprovalMethods.approve
    deny = ApprovalMethods.deny
    allow_for_session = ApprovalMethods.allow_for_session
    approve_waiting = ApprovalMethods.approve_waiting
    deny_waiting = ApprovalMethods.deny_waiting
    always_allow = allow_for_session  # the older names (``approvals/_agent.py`` says why)
    approve_all = approve_waiting
    deny_all = deny_waiting
    approve_threadsafe = ApprovalMethods.approve_threadsafe
    deny_threadsafe = ApprovalMethods.deny_threadsafe
    allow_for_session_threadsafe = ApprovalMethods.allow_for_session_threadsafe
    always_allow_threadsafe = allow_for_session_threadsafe
    pending_questions = ApprovalMethods.pending_questions
    question_input = ApprovalMethods.question_input
    ask = ApprovalMethods.ask
    answer = ApprovalMethods.answer
    resume_pending = ApprovalMethods.resume_pending
    approvals_state = ApprovalMethods.approvals_state
    load_approvals_state = ApprovalMethods.load_approvals_state
    save_session = ApprovalMethods.save_session
    load_session = ApprovalMethods.load_session

    # -- interruption ------------------------------------------------------------------------
    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Close the history consistently, then return the interrupted message.

        What the interrupt leaves (the partial answer, one result per open call, the
        interrupted message) is recorded in one ``memory.add``, in that order; then each gets
        its ``MessageAdded`` (and a result its ``ToolResultReady``) and is printed, in order.
        """
        calls = self.tool_calls
        await calls.stop_background()
        printing = self._print_wanted()  # asked once: nothing changes it while this runs
        if calls.repark_unstarted():  # a resumed reply stopped before it began: no trace
            return self._interrupted_msg(reparked=True)
        live, self._live = self._live, None
        partial: Msg | None = None
        extra: dict[str, Any] = {}
        if live is not None:
            blocks = live.get_content_blocks()
            kept = [
                b for b in blocks if not (isinstance(b, ToolUseBlock) and b.raw_input is not None)
            ]
            if kept:
                partial = live
                live.metadata[MetaKey.PARTIAL] = True
                if len(kept) < len(blocks):
                    live.content = kept
                    live.metadata[MetaKey.DROPPED_TOOL_CALLS] = len(blocks) - len(kept)
                if any(isinstance(b, ToolUseBlock) for b in kept):
                    calls.open_calls_of(live)
                extra[MetaKey.PARTIAL_MSG_ID] = live.id
                extra[MetaKey.PARTIAL_DIGEST] = self.resumer.partial_digest(live)
        closed, results = calls.close_interrupted()
        if closed["not_run"] or closed["interrupted"]:
            extra[MetaKey.CLOSED_CALLS] = closed  # what resume() runs again
        resumed = self.resumer.interrupted(extra)
        if resumed is not None:  # a resumed reply, interrupted again
            extra.update(continued_by=resumed.continued_by, continues=resumed.interrupted_id)
        result = self._interrupted_msg(**extra)
        records = [*results, result] if partial is None else [partial, *results, result]
        await self.memory.add(records)
        reply_id = self._reply_id
        for m in records:
            self._said(reply_id, m)
            if m is not result and m is not partial:  # a closed call's result
                block = m.get_content_blocks("tool_result")[0]
                self._emit(ToolResultReady(self.name, reply_id, block))
        if printing:  # the partial's chunks went out with last=False: now it is final
            for m in records:
                await self.print(m, True)
        return result

    async def _on_error(self, exc: BaseException) -> None:
        """Keep memory valid when a model call fails: close open calls with an error result."""
        live, self._live = self._live, None
        if live is not None and live.get_text_content():
            live.content = [b for b in live.get_content_blocks() if b.type == "text"]
            live.metadata[MetaKey.PARTIAL] = True
            live.metadata[MetaKey.ERROR] = f"{type(exc).__name__}: {exc}"
            await self._commit(live)
        await self.tool_calls.close_failed(exc)

    # -- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Memory and settings (never the model client or keys), the approval state
        (``"approvals"``), the steering messages still queued (``"steering"``) and the
        branches (``"branches"``)."""
        state = super().state_dict()
        state["approvals"] = self.approvals_state()
        state.update(
            sys_prompt=self._sys_prompt,  # the skills' prompt comes from the toolkit
            max_iters=self.max_iters,
            parallel_tool_calls=self.parallel_tool_calls,
            steering=self.steering.state(),
            branches=self.branch_table.branches_state(),
        )
        return state

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output, approvals included; the steering queue and the
        branches become the saved ones (a state without branches has only ``main``).

        Raises:
            ValueError: ``state["steering"]`` or ``state["branches"]`` is malformed (nothing
                changed).
        """
        from ._branches import BranchTable

        queued = parse_queue(state.get("steering") if isinstance(state, dict) else None)
        table, active = BranchTable.parse(
            state.get("branches") if isinstance(state, dict) else None
        )
        super().load_state_dict(state, strict=strict)
        self.load_approvals_state(state.get("approvals", {}))
        self.compressor.undo.clear()  # it refers to the old memory
        self.branch_table.load(table, active)
        # one recorded meanwhile is never taken in twice
        self.steering = SteeringInbox([m for m in queued if not self._recorded(m.id)])
        self.sys_prompt = state.get("sys_prompt", self.sys_prompt)
        self.max_iters = int(state.get("max_iters", self.max_iters))
        self.parallel_tool_calls = bool(state.get("parallel_tool_calls", self.parallel_tool_calls))


ApprovalMethods.register(ReActAgent)  # isinstance(agent, ApprovalMethods) for widgets
