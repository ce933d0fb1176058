"""ReAct's acting step: a reply's tool calls, each answered by exactly one ``tool_result``.

``ReActAgent`` opens the calls of every model message (``_ingest_calls`` gives them ids unique
across memory), runs them after approval (``_act``: in order, or concurrently with
``parallel_tool_calls``), and records one result per call (``_commit_result``). When the reply
is interrupted or fails, the calls still open are closed with an interrupted or error result, so
the next prompt stays valid for OpenAI-style APIs.
"""

from __future__ import annotations

import asyncio
from typing import Any

from nb_hitl.events import Event, ReplyFinished, ToolCallStarted, ToolResultReady
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock
from nb_hitl.tool import ToolResponse
from nb_hitl.tool._background import background_owner

from ._structured import StructuredTurn, validate_structured
from .approvals._agent import ApprovalMethods
from .approvals._ask_user import current_tool_call

INTERRUPTED_RESULT = "[Interrupted] The tool call was interrupted by the user before it finished."
NOT_STARTED_RESULT = "[Interrupted] The tool call was not run because the user interrupted."


class ActingMixin(ApprovalMethods):
    """The open tool calls of the running reply, running them, and their results.

    Mixed into ``ReActAgent``, which sets up the in-flight state below when a reply starts.
    """

    _open_calls: dict[str, ToolUseBlock]
    """Calls of the reply that have no result yet, by id."""
    _tool_partial: dict[str, str]
    """The text a streaming tool has produced so far, by call id."""
    _started_calls: set[str]
    """Ids of the calls whose tool has started."""
    _resume_calls: list[ToolUseBlock]
    """Calls parked in a loaded session that this reply resumes (until it starts them)."""
    _structured: StructuredTurn
    parallel_tool_calls: bool

    async def _commit(self, msg: Msg) -> None:
        raise NotImplementedError  # ReActAgent's implementation is used

    # -- opening -----------------------------------------------------------------------------
    def _used_call_ids(self) -> set[str]:
        used = set(self._open_calls)
        for m in self.memory.messages:
            if not isinstance(m.content, str):
                used.update(b.id for b in m.content if b.type in ("tool_use", "tool_result"))
        return used

    def _ingest_calls(self, msg: Msg) -> None:
        """Give every tool call of a model message an id unique across the whole memory.

        Some servers omit call ids or repeat them (``call_0`` every turn); pairing results,
        approvals and compression all go by id, so a clash would cross two calls. A changed id
        keeps the provider's in ``metadata["provider_tool_call_ids"]`` (new id -> old id).
        """
        calls = msg.get_content_blocks("tool_use")
        if not calls:
            return
        used = self._used_call_ids()
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

    # -- running -----------------------------------------------------------------------------
    async def _act(self, calls: list[ToolUseBlock]) -> list[dict[str, Any] | None]:
        """Run the tool calls of one step (after approval); what each ``_acting`` returned."""
        calls = await self.approvals.park(calls)  # parks while calls wait for a person
        if self.parallel_tool_calls and len(calls) > 1:
            self._where = "running tools in parallel: " + ", ".join(c.name for c in calls)
            done = await asyncio.gather(
                *(self._call_hooked("acting", self._acting, tool_call=c) for c in calls),
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
            self._checkpoint()  # a tool that swallowed an interrupt: later calls never start
            self._where = f"tool {call.name}"
            outputs.append(await self._call_hooked("acting", self._acting, tool_call=call))
        return outputs

    async def _acting(self, tool_call: ToolUseBlock) -> dict[str, Any] | None:
        """Run one tool call and record its result (AgentScope's ``_acting``).

        Returns:
            The validated structured output when this was a correct ``generate_response``
            call of a reply asked for ``structured_model``, else ``None``.
        """
        if self._structured.handles(tool_call):
            return await self._finish_call(tool_call)
        await self._run_tool(tool_call)
        return None

    async def _finish_call(self, call: ToolUseBlock) -> dict[str, Any] | None:
        assert self._structured.offered is not None
        self._started_calls.add(call.id)
        self._emit(ToolCallStarted(self.name, self._reply_id, call))
        fields, text = validate_structured(self._structured.offered, call.input)
        block = ToolResultBlock(id=call.id, name=call.name, output=text, is_error=fields is None)
        await self._commit_result(call, block)
        return fields

    async def _run_tool(self, call: ToolUseBlock) -> None:
        self._started_calls.add(call.id)
        self._emit(ToolCallStarted(self.name, self._reply_id, call))
        final: ToolResponse | None = None
        owner = background_owner.set(self._reply_id)  # background tasks it starts are ours
        running = current_tool_call.set((self, call))  # for ask_user() inside the tool
        gen = self.toolkit.call_tool_function(call)
        try:
            async for chunk in gen:
                final = chunk
                self._tool_partial[call.id] = chunk.get_text()
        finally:
            await gen.aclose()
            current_tool_call.reset(running)
            background_owner.reset(owner)
        assert final is not None
        await self._commit_result(
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

    async def _commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None:
        if self._open_calls.pop(call.id, None) is None:
            return  # already answered: never two results for one call
        self._tool_partial.pop(call.id, None)
        result = Msg("system", [block], "system")
        await self._commit(result)
        self._emit(ToolResultReady(self.name, self._reply_id, block))
        if self._print_wanted():
            await self.print(result, True)

    # -- closing -----------------------------------------------------------------------------
    def _emit(self, event: Event) -> None:
        if isinstance(event, ReplyFinished):  # its reply-scope rules end with it
            self.approvals.end_reply(event.reply_id)
        super()._emit(event)

    async def _stop_background(self) -> None:
        """An interrupted reply cancels the background tasks it started (their results say
        they were interrupted), except those of tools registered with ``outlive_reply``."""
        if self._reply_id is not None and self.toolkit.background_tasks:  # most replies: none
            await self.toolkit.cancel_owned(self._reply_id)

    def _repark_unstarted(self) -> bool:
        """A resumed reply interrupted before it reached its parked calls leaves them parked,
        their decisions kept and memory untouched (unless an interrupt brought a message)."""
        calls = self._resume_calls
        steering = self._reply.steering if self._reply is not None else []
        if not calls or steering:
            return False
        for call in calls:
            self._open_calls.pop(call.id, None)
        self.approvals.repark(calls)
        self._resume_calls.clear()
        return True

    async def _close_interrupted_calls(self) -> dict[str, list[str]]:
        """Answer every open call with an interrupted result (with a tool's partial output).

        Returns the closed call ids by kind: ``"not_run"`` (never started: ``resume()`` runs
        them) and ``"interrupted"`` (stopped mid-run: re-run only if asked).
        """
        closed: dict[str, list[str]] = {"not_run": [], "interrupted": []}
        for call_id, call in list(self._open_calls.items()):
            partial = self._tool_partial.get(call_id)
            if partial:
                output = f"{INTERRUPTED_RESULT}\nPartial output:\n{partial}"
            elif call_id in self._started_calls:
                output = INTERRUPTED_RESULT
            else:
                output = NOT_STARTED_RESULT
            closed["interrupted" if output != NOT_STARTED_RESULT else "not_run"].append(call_id)
            await self._commit_result(
                call,
                ToolResultBlock(id=call_id, name=call.name, output=output, is_interrupted=True),
            )
        self._open_calls.clear()
        return closed

    async def _close_failed_calls(self, exc: BaseException) -> None:
        """Answer every open call with an error result: the reply failed with ``exc``."""
        for call_id, call in list(self._open_calls.items()):
            await self._commit_result(
                call,
                ToolResultBlock(
                    id=call_id,
                    name=call.name,
                    output=f"Error: the reply failed before this call finished ({exc}).",
                    is_error=True,
                ),
            )
        self._open_calls.clear()
