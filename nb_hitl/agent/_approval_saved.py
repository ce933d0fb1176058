"""Parked tool calls across a kernel restart: saved state, sessions, and resuming.

``state_dict()`` (and so ``save_session``) records the calls a reply is parked on, with the
decisions made so far, and the permissions; after ``load_state_dict`` / ``load_session`` they
are pending again. ``await agent.resume_pending()`` parks on the undecided ones, runs the turn
and continues the reply; sending a new message instead closes them unrun (each gets a
"discarded" result, so the history stays valid). ``ParkedCallsMixin`` is the base of
``ToolApprovalMixin``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_hitl.events import ToolResultReady
from nb_hitl.exceptions import AgentBusyError, ApprovalError
from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock

from ._approval_permissions import PermissionsMixin
from ._approval_state import DISCARDED_RESULT, ApprovalState, Decision, parse_parked

if TYPE_CHECKING:
    from nb_hitl.session import SessionInfo


class ParkedCallsMixin(PermissionsMixin):
    """The saved and resumed half of tool approval (``ToolApprovalMixin`` is the rest)."""

    _approvals: ApprovalState
    _open_calls: dict[str, ToolUseBlock]

    if TYPE_CHECKING:

        def _close(
            self, call: ToolUseBlock, how: str, decision: Decision | None = None
        ) -> None: ...

        def _announce(self, *args: Any, **kwargs: Any) -> None: ...

        def _commit_sync(self, msg: Msg) -> None: ...

        def _parked_live(self) -> bool: ...

    def _take_parked_calls(self, msg: Msg | list[Msg] | None) -> list[ToolUseBlock]:
        """Calls parked in a loaded session: resumed by a reply to nothing, else closed unrun
        (synchronously: ``agent(msg)`` records the new message right after)."""
        st = self._approvals
        self._permissions.start_reply(self._reply_id)
        parked, st.parked = st.parked, []
        for call in parked:
            self._open_calls[call.id] = call
        if not parked or not msg:
            self._where = "resuming parked tool calls" if parked else self._where
            return parked
        for call in parked:
            if st.waiting.pop(call.id, None) is not None:
                self._close(call, "discarded because a new message was sent")
                self._announce(call, "discarded")
            self._open_calls.pop(call.id, None)
            block = ToolResultBlock(
                id=call.id, name=call.name, output=DISCARDED_RESULT, is_interrupted=True
            )
            self._commit_sync(Msg("system", [block], "system"))
            self._emit(ToolResultReady(self.name, self._reply_id, block))
        return []

    async def resume_pending(self) -> Msg:
        """Continue a reply whose tool calls were parked when the session was saved.

        Decisions made since loading apply; calls still undecided park again (with their
        approval requests re-emitted, so a widget shows them). Equivalent to ``await agent()``.
        """
        if self.is_replying:
            raise AgentBusyError(self.name)
        if not self._approvals.parked:
            raise ApprovalError(
                "Nothing to resume: no tool calls are parked. Send a message with "
                "`await agent(msg)` instead."
            )
        return await self()

    # -- state ------------------------------------------------------------------------------
    def _parked_calls(self) -> list[ToolUseBlock]:
        st = self._approvals
        if st.parked:
            return list(st.parked)
        if self._parked_live():  # a question's tool call runs again from its start on resume
            return list(self._open_calls.values())
        return []

    def approvals_state(self) -> dict[str, Any]:
        """JSON-able approval state: the allow-list and the parked calls with decisions."""
        st = self._approvals
        parked = []
        for call in self._parked_calls():
            waiting = st.waiting.get(call.id)
            decision = waiting.decision if waiting else None
            parked.append(
                {
                    "call": call.model_dump(mode="json"),
                    "needs_approval": waiting is not None,
                    "decision": decision.to_dict() if decision else None,
                }
            )
        return {
            "always_allowed": sorted(self.always_allowed),
            "parked": parked,
            "permissions": self._permissions.state_dict(),
        }

    def load_approvals_state(self, state: dict[str, Any]) -> None:
        """Restore ``approvals_state()`` output; validates everything before changing anything."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        messages = self.memory.messages if self.memory is not None else []
        allowed, approvals = parse_parked(state, self.toolkit, messages)
        policy = self.permissions
        saved = state.get("permissions")
        before = policy.state_dict()
        policy.load_state_dict(saved if isinstance(saved, dict) else {"mode": policy.mode})
        try:
            self.always_allowed = allowed | set(self.always_allowed)
        except ValueError:
            policy.load_state_dict(before)
            raise
        self._approvals = approvals

    def state_dict(self) -> dict[str, Any]:
        """Memory, settings and approval state (never model clients or keys)."""
        state = super().state_dict()
        state["approvals"] = self.approvals_state()
        return state

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output, approvals included."""
        super().load_state_dict(state, strict=strict)
        self.load_approvals_state(state.get("approvals", {}))

    # -- sessions ----------------------------------------------------------------------------
    def save_session(self, path: str | Path, *, transcript: dict[str, Any] | None = None) -> Path:
        """Save this agent's session to ``path`` atomically (see ``nb_hitl.session``)."""
        from nb_hitl.session import save_session

        return save_session(self, path, transcript=transcript)

    def load_session(self, path: str | Path) -> SessionInfo:
        """Load a session saved by ``save_session``; on any error the agent is unchanged."""
        from nb_hitl.session import load_session

        return load_session(self, path)


__all__ = ["ParkedCallsMixin"]
