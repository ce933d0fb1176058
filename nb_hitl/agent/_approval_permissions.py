"""The permission policy of an agent with tool approval: which calls run, wait or are refused.

``agent.permissions`` is a ``PermissionPolicy`` (``_permission.py``: a mode and ordered rules)
bound to the agent's toolkit; ``agent.always_allowed`` is a live view of its session rules.
``permission_verdict(call)`` tells what the policy says about a call without using it up.
``PermissionsMixin`` is the base of ``ParkedCallsMixin`` and so of ``ToolApprovalMixin``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from nb_hitl.exceptions import ToolError
from nb_hitl.message import ToolUseBlock

from ._base import AgentBase
from ._permission import AllowedTools, PermissionPolicy, Verdict
from ._permission_rule import PermissionRule

if TYPE_CHECKING:
    from nb_hitl.tool import Toolkit


class PermissionsMixin(AgentBase):
    """``permissions``, ``always_allowed`` and ``permission_verdict`` (set up by
    ``ToolApprovalMixin.__init__``)."""

    toolkit: Toolkit
    _permissions: PermissionPolicy

    @property
    def permissions(self) -> PermissionPolicy:
        """The permission policy: mode and rules deciding which calls run, wait or are refused."""
        policy = self._permissions
        toolkit = getattr(self, "toolkit", None)
        if toolkit is not None and policy._toolkit is not toolkit:
            policy.bind(toolkit)
        return policy

    @permissions.setter
    def permissions(self, policy: PermissionPolicy | None) -> None:
        policy = PermissionPolicy() if policy is None else policy
        if not isinstance(policy, PermissionPolicy):
            raise TypeError(f"permissions must be a PermissionPolicy, got {policy!r}.")
        toolkit = getattr(self, "toolkit", None)
        if toolkit is not None:
            policy.bind(toolkit)  # ConfigError for a rule that can match nothing
        self._permissions = policy

    @property
    def always_allowed(self) -> AllowedTools:
        """Tools allowed with any arguments for this session (``always_allow``): a live set
        of the policy's session rules (``add`` / ``discard`` add and revoke rules)."""
        return AllowedTools(self.permissions)

    @always_allowed.setter
    def always_allowed(self, names: Iterable[str]) -> None:
        allowed = self.always_allowed
        wanted = set(names)
        for name in set(allowed) - wanted:
            allowed.discard(name)
        for name in sorted(wanted - set(allowed)):
            allowed.add(name)

    @property
    def _permission_snapshot(self) -> tuple[str, list[PermissionRule]]:
        return self._permissions.snapshot()

    @_permission_snapshot.setter
    def _permission_snapshot(self, snap: tuple[str, list[PermissionRule]]) -> None:
        self._permissions.restore(snap)

    def permission_verdict(self, call: ToolUseBlock) -> Verdict:
        """What the policy says about ``call`` (without using up a ``call``-scope rule)."""
        return self._verdict(call, peek=True)

    def _verdict(self, call: ToolUseBlock, peek: bool = False) -> Verdict:
        tool = self.toolkit.tools.get(call.name)
        if tool is None:
            return Verdict("allow", "unknown tool: it fails with an error without running")
        try:
            self.toolkit.validate_call(call)
        except ToolError:
            return Verdict("allow", "invalid arguments: it fails with an error without running")
        return self.permissions.verdict(tool, call, peek=peek)


__all__ = ["PermissionsMixin"]
