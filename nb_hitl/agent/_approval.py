"""Tool approval: a reply parks before consequential tool calls until a person decides.

A tool registered with ``needs_approval=True`` (or a predicate on the call) does not run when
the model asks for it. Instead the reply *parks*: it stays a running reply task, awaiting a
future, so the event loop and the widgets stay responsive and ``agent.interrupt()`` works
exactly as elsewhere. ``agent.pending_approvals`` lists the waiting calls; a decision resolves
each one:

- ``agent.approve(call_id)``, or ``agent.approve(call_id, arguments={...})`` with edited
  arguments (validated against the tool's schema);
- ``agent.deny(call_id, reason)``: the model receives ``"denied by the user: <reason>"``;
- ``agent.always_allow(tool_name)``: approves the waiting calls of that tool and skips the
  question for the rest of the session.

All the calls of one model turn that need approval are asked together; once every one is
decided the turn's calls run in the order the model gave them, and the reply goes on without
calling the model again for that turn. Decisions may come from any thread (widget callbacks):
they hop onto the agent's event loop. A decision for an unknown call, or one that is no longer
waiting (already decided, or closed by an interrupt), raises ``ApprovalError`` and changes
nothing.

Parked calls survive a kernel restart: ``state_dict()`` (and so ``save_session``) records them
with the decisions made so far; after ``load_session`` they are pending again, and
``await agent.resume_pending()`` (the same as ``await agent()``) parks on the undecided ones,
runs the turn and continues the reply. Sending a new message instead closes them unrun.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nb_hitl.events import ApprovalDecided, ApprovalRequested
from nb_hitl.exceptions import ApprovalError, ToolError
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock

from ._approval_saved import ParkedCallsMixin
from ._approval_state import (
    CLOSED_MEMORY,
    DENIED_PREFIX,
    DISCARDED_RESULT,
    POLICY_DENIED_PREFIX,
    ApprovalState,
    Decision,
    DecisionKind,
    PendingApproval,
    Waiting,
    loop_if_running,
    on_thread_of,
    parse_arguments,
    submit,
)
from ._permission import PermissionPolicy

if TYPE_CHECKING:
    from nb_hitl.tool import Toolkit


class ToolApprovalMixin(ParkedCallsMixin):
    """Parking before tool calls that need approval, decisions, and their saved state.

    Mixed into ``ReActAgent``, which calls ``_await_approvals`` before acting and
    ``_take_parked_calls`` when a reply starts.
    """

    toolkit: Toolkit
    _open_calls: dict[str, ToolUseBlock]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._permissions = PermissionPolicy()
        self._approvals = ApprovalState()
        self.approval_log: list[dict[str, Any]] = []
        """Every decision so far (call, tool, decision, arguments, reason): widgets redraw
        decided cards from it, and sessions save it."""

    async def _commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None:
        raise NotImplementedError  # ReActAgent's implementation is used

    def _commit_sync(self, msg: Msg) -> None:
        raise NotImplementedError  # ReActAgent's implementation is used

    # -- reading -----------------------------------------------------------------------------
    @property
    def pending_approvals(self) -> list[PendingApproval]:
        """The tool calls waiting for a decision, in the order the model asked for them."""
        policy = self._permissions
        return [
            PendingApproval(
                w.call.id,
                w.call.name,
                dict(w.call.input),
                w.call,
                w.reason,
                policy.suggest(w.call.name, w.call.input),
                w.asked_at,
            )
            for w in self._approvals.waiting.values()
            if w.decision is None
        ]

    @property
    def is_waiting_for_approval(self) -> bool:
        """True while a reply is parked (on approvals or ``ask_user`` questions), or a loaded
        session holds parked calls."""
        return self._parked_live() or bool(self._approvals.parked)

    def _parked_live(self) -> bool:
        st = self._approvals
        asking = bool(getattr(self, "_questions", None))
        return asking or (st.all_decided is not None and not st.all_decided.done())

    def needs_approval(self, call: ToolUseBlock) -> bool:
        """Whether ``call`` must wait for a decision before it runs (the policy says ask)."""
        return self.permission_verdict(call).behavior == "ask"

    # -- deciding ----------------------------------------------------------------------------
    def approve(self, call_id: str, arguments: str | dict[str, Any] | None = None) -> None:
        """Approve a waiting call, optionally with edited ``arguments`` (dict or JSON text).

        Raises:
            ApprovalError: unknown or closed call id, or arguments that are not a JSON object
                fitting the tool's schema. Nothing changes then.
        """
        self._on_agent_loop(lambda: self._approve(call_id, arguments))

    def deny(self, call_id: str, reason: str = "") -> None:
        """Deny a waiting call; the model receives ``"denied by the user: <reason>"``."""
        self._on_agent_loop(lambda: self._deny(call_id, reason))

    def always_allow(self, tool_name: str) -> None:
        """Stop asking about ``tool_name`` for this session and approve its waiting calls."""
        self._on_agent_loop(lambda: self._always_allow(tool_name))

    def approve_all(self) -> None:
        """Approve every waiting call."""
        self._on_agent_loop(self._approve_all)

    def deny_all(self, reason: str = "") -> None:
        """Deny every waiting call with the same reason."""
        self._on_agent_loop(lambda: self._deny_all(reason))

    def approve_threadsafe(
        self, call_id: str, arguments: str | dict[str, Any] | None = None
    ) -> concurrent.futures.Future[None]:
        """``approve`` from any thread without blocking; the future holds any ``ApprovalError``."""
        return self._submit(lambda: self._approve(call_id, arguments))

    def deny_threadsafe(self, call_id: str, reason: str = "") -> concurrent.futures.Future[None]:
        """``deny`` from any thread without blocking."""
        return self._submit(lambda: self._deny(call_id, reason))

    def always_allow_threadsafe(self, tool_name: str) -> concurrent.futures.Future[None]:
        """``always_allow`` from any thread without blocking."""
        return self._submit(lambda: self._always_allow(tool_name))

    def _approve(self, call_id: str, arguments: str | dict[str, Any] | None) -> None:
        waiting = self._undecided(call_id)
        if arguments is None:
            self._set_decision(waiting, Decision("approved"))
            return
        args = parse_arguments(arguments)
        edited = waiting.call.model_copy(update={"input": args, "raw_input": None})
        try:
            self.toolkit.validate_call(edited)
        except ToolError as exc:
            raise ApprovalError(
                f"{exc} Fix the arguments and approve again.", call_id=call_id
            ) from None
        kind: DecisionKind = "approved" if args == waiting.call.input else "edited"
        self._set_decision(waiting, Decision(kind, args if kind == "edited" else None))

    def _approve_all(self) -> None:
        for pending in self.pending_approvals:
            self._approve(pending.call_id, None)

    def _deny_all(self, reason: str) -> None:
        for pending in self.pending_approvals:
            self._deny(pending.call_id, reason)

    def _deny(self, call_id: str, reason: str) -> None:
        waiting = self._undecided(call_id)
        self._set_decision(waiting, Decision("denied", reason=str(reason or "").strip()))

    def _always_allow(self, tool_name: str) -> None:
        if tool_name not in self.toolkit.tools:
            known = ", ".join(sorted(self.toolkit.tools)) or "none"
            raise ApprovalError(f"No tool named {tool_name!r} is registered (tools: {known}).")
        self.always_allowed.add(tool_name)
        for w in list(self._approvals.waiting.values()):
            if w.call.name == tool_name and w.decision is None:
                self._set_decision(w, Decision("approved", reason="always allowed"))

    def _undecided(self, call_id: str) -> Waiting:
        st = self._approvals
        waiting = st.waiting.get(call_id)
        if waiting is not None and waiting.decision is None:
            return waiting
        if waiting is not None and waiting.decision is not None:
            raise ApprovalError(
                f"Tool call {call_id!r} ({waiting.call.name}) already decided: "
                f"{waiting.decision.describe()}. A call is decided once; nothing was changed.",
                call_id=call_id,
            )
        if call_id in st.decided:
            raise ApprovalError(
                f"Tool call {call_id!r} already decided: {st.decided[call_id].describe()}. "
                "A call is decided once; nothing was changed.",
                call_id=call_id,
            )
        if call_id in st.closed:
            raise ApprovalError(
                f"Tool call {call_id!r} is no longer waiting for a decision: it was "
                f"{st.closed[call_id]}. Nothing was changed.",
                call_id=call_id,
            )
        open_ids = ", ".join(repr(p.call_id) for p in self.pending_approvals) or "none"
        raise ApprovalError(
            f"No tool call {call_id!r} is waiting for approval (waiting: {open_ids}). "
            "See agent.pending_approvals.",
            call_id=call_id,
        )

    def _set_decision(self, waiting: Waiting, decision: Decision) -> None:
        waiting.decision = decision
        self._announce(waiting.call, decision.kind, decision.arguments, decision.reason)
        fut = self._approvals.all_decided
        if fut is not None and not fut.done() and not self.pending_approvals:
            fut.set_result(None)

    def _announce(
        self,
        call: ToolUseBlock,
        decision: str,
        arguments: dict[str, Any] | None = None,
        reason: str = "",
    ) -> None:
        self.approval_log.append(
            {
                "call_id": call.id,
                "tool_name": call.name,
                "input": call.input,
                "decision": decision,
                "arguments": arguments,
                "reason": reason,
            }
        )
        del self.approval_log[:-CLOSED_MEMORY]
        self._emit(
            ApprovalDecided(
                self.name, self._reply_id, call.id, call.name, decision, arguments, reason
            )
        )

    def _close(self, call: ToolUseBlock, how: str, decision: Decision | None = None) -> None:
        closed = self._approvals.closed
        closed[call.id] = how
        while len(closed) > CLOSED_MEMORY:
            del closed[next(iter(closed))]
        if decision is not None:
            decided = self._approvals.decided
            decided[call.id] = decision
            while len(decided) > CLOSED_MEMORY:
                del decided[next(iter(decided))]

    # -- thread hopping ----------------------------------------------------------------------
    def _on_agent_loop(self, fn: Callable[[], None]) -> None:
        loop = loop_if_running(self._loop)
        if loop is None or on_thread_of(loop):
            fn()
        else:
            submit(loop, fn).result()  # another thread: hop, wait, re-raise its error

    def _submit(self, fn: Callable[[], None]) -> concurrent.futures.Future[None]:
        return submit(self._loop, fn)

    # -- parking (called by ReActAgent) ------------------------------------------------------
    async def _await_approvals(self, calls: list[ToolUseBlock]) -> list[ToolUseBlock]:
        """Park until every call of this turn that needs approval is decided.

        Denied calls get their result here; the calls to run (approved ones with their edited
        arguments) are returned in the model's order.
        """
        st = self._approvals
        for call in calls:
            if call.id in st.waiting:
                continue
            verdict = self._verdict(call)
            if verdict.behavior == "ask":
                st.waiting[call.id] = Waiting(call, reason=verdict.reason)
            elif verdict.behavior == "deny":
                denied = Decision("denied", reason=verdict.reason, by="policy")
                st.waiting[call.id] = Waiting(call, denied, reason=verdict.reason)
                self._announce(call, "denied", None, verdict.reason)
        gated = [st.waiting[c.id] for c in calls if c.id in st.waiting]
        if not gated:
            return calls
        undecided = [w for w in gated if w.decision is None]
        if undecided:
            self._where = "waiting for approval: " + ", ".join(w.call.name for w in undecided)
            st.all_decided = asyncio.get_running_loop().create_future()
            for w in undecided:
                self._emit(ApprovalRequested(self.name, self._reply_id, w.call))
            try:
                await st.all_decided
            except asyncio.CancelledError:
                for w in gated:
                    st.waiting.pop(w.call.id, None)
                    self._close(w.call, "closed by an interrupt")
                    self._announce(w.call, "interrupted")
                raise
            finally:
                st.all_decided = None
        runnable: list[ToolUseBlock] = []
        for call in calls:
            waiting = st.waiting.pop(call.id, None)
            if waiting is None or waiting.decision is None:
                runnable.append(call)
                continue
            decision = waiting.decision
            self._close(call, f"already {decision.kind}", decision)
            if decision.kind == "denied":
                reason = decision.reason or "no reason given"
                prefix = POLICY_DENIED_PREFIX if decision.by == "policy" else DENIED_PREFIX
                await self._commit_result(
                    call, ToolResultBlock(id=call.id, name=call.name, output=prefix + reason)
                )
            elif decision.kind == "edited" and decision.arguments is not None:
                edited = call.model_copy(update={"input": decision.arguments, "raw_input": None})
                self._record_edit(call, edited)
                self._open_calls[call.id] = edited
                runnable.append(edited)
            else:
                runnable.append(call)
        return runnable

    def _record_edit(self, old: ToolUseBlock, new: ToolUseBlock) -> None:
        """Make memory say what really ran: the edited call, with the original kept aside."""
        if self.memory is None:
            return
        for msg in reversed(self.memory.messages):
            if isinstance(msg.content, str) or not any(
                b.type == "tool_use" and b.id == old.id for b in msg.content
            ):
                continue
            copy = msg.model_copy(deep=True)
            copy.content = [
                new if b.type == "tool_use" and b.id == old.id else b
                for b in msg.get_content_blocks()
            ]
            edits = dict(copy.metadata.get(MetaKey.EDITED_TOOL_CALLS, {}))
            edits[old.id] = {"original_input": old.input}
            copy.metadata = {**copy.metadata, MetaKey.EDITED_TOOL_CALLS: edits}
            self.memory.replace(copy)
            return


__all__ = ["DENIED_PREFIX", "DISCARDED_RESULT", "PendingApproval", "ToolApprovalMixin"]
