"""ReAct's acting step: a reply's tool calls, each answered by exactly one ``tool_result``.

``ToolCalls`` (``agent.tool_calls``) is the part of a ``ReActAgent`` that owns the calls of the
running reply. The agent opens the calls of every model message (``ingest`` gives them ids
unique across memory), runs them after approval (``act``: in order, or concurrently with
``parallel_tool_calls``), and records one result per call (``commit_result``). When the reply
is interrupted or fails, the calls still open are closed with an interrupted or error result, so
the next prompt stays valid for OpenAI-style APIs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl.events import Event, ToolCallStarted, ToolResultReady
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock
from nb_hitl.tool import ToolResponse, background_owner

from ._structured import StructuredTurn, validate_structured

if TYPE_CHECKING:
    from nb_hitl.tool import Toolkit

    from ._lifecycle import ReplyRecord
    from .approvals import ApprovalGate

INTERRUPTED_RESULT = "[Interrupted] The tool call was interrupted by the user before it finished."
NOT_STARTED_RESULT = "[Interrupted] The tool call was not run because the user interrupted."


class ActingHost(Protocol):
    """What the acting step uses of its agent: tools, approvals, memory, the reply, hooks."""

    name: str
    memory: Any
    parallel_tool_calls: bool
    _where: str
    _structured: StructuredTurn
    _reply: ReplyRecord | None

    @property
    def toolkit(self) -> Toolkit: ...

    @property
    def approvals(self) -> ApprovalGate: ...

    @property
    def _reply_id(self) -> str | None: ...

    def _emit(self, event: Event) -> None: ...

    def _checkpoint(self) -> None: ...

    async def _commit(self, msg: Msg) -> None: ...

    def _print_wanted(self) -> bool: ...

    async def print(self, msg: Msg, last: bool = True, speech: Any = None) -> None: ...

    async def _call_hooked(
        self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Any: ...

    async def _acting(self, tool_call: ToolUseBlock) -> dict[str, Any] | None: ...

    async def ask(self, questions: Any, *, call_id: str = "") -> dict[str, Any]: ...


class ToolCalls:
    """The open tool calls of the running reply, running them, and their results.

    Args:
        host: the agent (``ActingHost``); ``start()`` sets up the state of each reply.
    """

    def __init__(self, host: ActingHost) -> None:
        self._host = host
        self.open: dict[str, ToolUseBlock] = {}
        """Calls of the reply that have no result yet, by id."""
        self.partial: dict[str, str] = {}
        """The text a streaming tool has produced so far, by call id."""
        self.started: set[str] = set()
        """Ids of the calls whose tool has started."""
        self.resuming: list[ToolUseBlock] = []
        """Calls parked in a loaded session that this reply resumes (until it starts them)."""

    def start(self) -> None:
        """A new reply: no call open, none started, none resumed (yet)."""
        self.open = {}
        self.partial = {}
        self.started = set()
        self.resuming = []

    # -- opening -----------------------------------------------------------------------------
    def _used_ids(self) -> set[str]:
        used = set(self.open)
        for m in self._host.memory.messages:
            if not isinstance(m.content, str):
                used.update(b.id for b in m.content if b.type in ("tool_use", "tool_result"))
        return used

    def ingest(self, msg: Msg) -> None:
        """Give every tool call of a model message an id unique across the whole memory.

        Some servers omit call ids or repeat them (``call_0`` every turn); pairing results,
        approvals and compression all go by id, so a clash would cross two calls. A changed id
        keeps the provider's in ``metadata["provider_tool_call_ids"]`` (new id -> old id).
        """
        calls = msg.get_content_blocks("tool_use")
        if not calls:
            return
        used = self._used_ids()
        renamed: dict[str, str] = {}
        for call in calls:
            if not call.id or call.id in used:
                base, k = call.id or "call", 1
                while f"{base}_{k}" in used:
                    k += 1
                renamed[f"{base}_{k}"] = call.id
                call.id = f"{base}_{k}"
            used.add(call.id)
        if renamed:
            msg.metadata[MetaKey.PROVIDER_TOOL_CALL_IDS] = {
                **msg.metadata.get(MetaKey.PROVIDER_TOOL_CALL_IDS, {}),
                **renamed,
            }

    def open_calls_of(self, msg: Msg) -> None:
        """``ingest`` ``msg``'s calls, then hold them open until their results come."""
        self.ingest(msg)
        for call in msg.get_content_blocks("tool_use"):
            self.open[call.id] = call

    # -- running -----------------------------------------------------------------------------
    async def act(self, calls: list[ToolUseBlock]) -> list[dict[str, Any] | None]:
        """Run the tool calls of one step (after approval); what each ``_acting`` returned."""
        host = self._host
        calls = await host.approvals.park(calls)  # parks while calls wait for a person
        if host.parallel_tool_calls and len(calls) > 1:
            host._where = "running tools in parallel: " + ", ".join(c.name for c in calls)
            done = await asyncio.gather(
                *(host._call_hooked("acting", host._acting, tool_call=c) for c in calls),
                return_exceptions=True,  # every call ends before an error (a hook's) is raised
            )
            outputs: list[dict[str, Any] | None] = []
            for item in done:
                if isinstance(item, BaseException):
                    raise item
                outputs.append(item)
            return outputs
        outputs = []
        for call in calls:
            host._checkpoint()  # a tool that swallowed an interrupt: later calls never start
            host._where = f"tool {call.name}"
            outputs.append(await host._call_hooked("acting", host._acting, tool_call=call))
        return outputs

    async def run(self, tool_call: ToolUseBlock) -> dict[str, Any] | None:
        """Run one tool call and record its result (the body of AgentScope's ``_acting``).

        Returns:
            The validated structured output when this was a correct ``generate_response``
            call of a reply asked for ``structured_model``, else ``None``.
        """
        if self._host._structured.handles(tool_call):
            return await self._finish_call(tool_call)
        await self._run_tool(tool_call)
        return None

    async def _finish_call(self, call: ToolUseBlock) -> dict[str, Any] | None:
        host = self._host
        assert host._structured.offered is not None
        self.started.add(call.id)
        host._emit(ToolCallStarted(host.name, host._reply_id, call))
        fields, text = validate_structured(host._structured.offered, call.input)
        block = ToolResultBlock(id=call.id, name=call.name, output=text, is_error=fields is None)
        await self.commit_result(call, block)
        return fields

    async def _run_tool(self, call: ToolUseBlock) -> None:
        from .approvals._ask_user import current_tool_call  # loaded with the gate, not here

        host = self._host
        self.started.add(call.id)
        host._emit(ToolCallStarted(host.name, host._reply_id, call))
        final: ToolResponse | None = None
        owner = background_owner.set(host._reply_id)  # background tasks it starts are ours
        running = current_tool_call.set((host, call))  # for ask_user() inside the tool
        gen = host.toolkit.call_tool_function(call)
        try:
            async for chunk in gen:
                final = chunk
                self.partial[call.id] = chunk.get_text()
        finally:
            await gen.aclose()
            current_tool_call.reset(running)
            background_owner.reset(owner)
        assert final is not None
        await self.commit_result(
            call,
            ToolResultBlock(
                id=call.id,
                name=call.name,
                # media blocks (AgentScope tools may return images) travel as blocks
                output=final.get_text()
                if all(b.type == "text" for b in final.content)
                else list(final.content),
                is_error=final.is_error,
                is_interrupted=final.is_interrupted,
            ),
        )

    async def commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None:
        """Record ``block`` as the one result of ``call`` (a second result is dropped)."""
        if self.open.pop(call.id, None) is None:
            return  # already answered: never two results for one call
        self.partial.pop(call.id, None)
        host = self._host
        result = Msg("system", [block], "system")
        await host._commit(result)
        host._emit(ToolResultReady(host.name, host._reply_id, block))
        if host._print_wanted():
            await host.print(result, True)

    # -- closing -----------------------------------------------------------------------------
    async def stop_background(self) -> None:
        """An interrupted reply cancels the background tasks it started (their results say
        they were interrupted), except those of tools registered with ``outlive_reply``."""
        host = self._host
        reply_id = host._reply_id
        if reply_id is not None and host.toolkit.background:  # most replies: none running
            await host.toolkit.cancel_owned(reply_id)

    def repark_unstarted(self) -> bool:
        """A resumed reply interrupted before it reached its parked calls leaves them parked,
        their decisions kept and memory untouched (unless an interrupt brought a message)."""
        calls = self.resuming
        reply = self._host._reply
        steering = reply.steering if reply is not None else []
        if not calls or steering:
            return False
        for call in calls:
            self.open.pop(call.id, None)
        self._host.approvals.repark(calls)
        self.resuming.clear()
        return True

    def close_interrupted(self) -> tuple[dict[str, list[str]], list[Msg]]:
        """Close every open call with an interrupted result (with a tool's partial output).

        Returns the closed call ids by kind, ``"not_run"`` (never started: ``resume()`` runs
        them) and ``"interrupted"`` (stopped mid-run: re-run only if asked), and the result
        messages, in order: not yet recorded (``handle_interrupt`` records them with the rest
        of the interrupted reply, then emits ``MessageAdded`` and ``ToolResultReady`` for each).
        """
        closed: dict[str, list[str]] = {"not_run": [], "interrupted": []}
        results: list[Msg] = []
        for call_id, call in self.open.items():
            partial = self.partial.pop(call_id, None)
            if partial:
                output = f"{INTERRUPTED_RESULT}\nPartial output:\n{partial}"
            elif call_id in self.started:
                output = INTERRUPTED_RESULT
            else:
                output = NOT_STARTED_RESULT
            closed["interrupted" if output != NOT_STARTED_RESULT else "not_run"].append(call_id)
            block = ToolResultBlock(id=call_id, name=call.name, output=output, is_interrupted=True)
            results.append(Msg("system", [block], "system"))
        self.open.clear()
        return closed, results

    async def close_failed(self, exc: BaseException) -> None:
        """Answer every open call with an error result: the reply failed with ``exc``."""
        for call_id, call in list(self.open.items()):
            await self.commit_result(
                call,
                ToolResultBlock(
                    id=call_id,
                    name=call.name,
                    output=f"Error: the reply failed before this call finished ({exc}).",
                    is_error=True,
                ),
            )
        self.open.clear()


__all__ = ["INTERRUPTED_RESULT", "NOT_STARTED_RESULT", "ActingHost", "ToolCalls"]
