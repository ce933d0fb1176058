"""``can_use_tool``: one callback, in code, for the calls the rules would put to a person.

``PermissionPolicy(can_use_tool=fn)``; ``fn(tool, arguments, context)`` (sync or async) is
called for each call whose verdict is *ask* (after every rule and the mode; never for calls
that are allowed or refused, so never in the ``deny_all`` and ``dont_ask`` modes), before the
approval card is shown. It returns:

- ``Allow()`` or ``"allow"``: the call runs; ``Allow(updated_arguments={...})`` runs it with
  rewritten arguments (checked against the tool; memory records the edit);
- ``Deny("why")`` or ``"deny"``: refused; the model receives ``"denied by policy: why"``;
  ``Deny("why", interrupt=True)`` also interrupts the reply;
- ``Ask()``, ``"ask"`` or ``None``: a person decides (the approval card).

A tool registered ``always_ask=True`` insists on a person: an ``Allow`` from the callback
still shows the card. A callback that raises, or returns anything else, asks a person (and
the error is logged): a broken callback never lets a call through.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union

if TYPE_CHECKING:
    from nb_hitl.message import ToolUseBlock
    from nb_hitl.tool import RegisteredTool

    from ._rule import PermissionRule

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Allow:
    """Run the call (with ``updated_arguments`` instead of the model's, when given)."""

    updated_arguments: dict[str, Any] | None = None
    """Arguments to run the call with; checked against the tool's schema."""


@dataclass(frozen=True)
class Deny:
    """Refuse the call; the model sees ``message``."""

    message: str = ""
    """Why: the model receives ``"denied by policy: <message>"``."""
    interrupt: bool = False
    """Also interrupt the reply (``interrupted_by == "permission"``)."""


@dataclass(frozen=True)
class Ask:
    """Let a person decide (the approval card)."""

    reason: str = ""
    """Why it waits, shown on the card."""


@dataclass(frozen=True)
class ToolContext:
    """What the callback knows about the call beyond its tool and arguments."""

    agent_name: str
    """The agent replying."""
    call: ToolUseBlock = field(repr=False)
    """The model's ``tool_use`` block (``call.id`` is the call id)."""
    reason: str
    """Why the policy would ask (the rule or the mode)."""
    suggestion: PermissionRule | None = field(default=None, repr=False)
    """The narrowest rule that would let similar calls run."""


PermissionResult = Union[Allow, Deny, Ask, Literal["allow", "deny", "ask"], None]  # noqa: UP007
CanUseTool = Callable[
    ["RegisteredTool", dict[str, Any], ToolContext],
    Union[PermissionResult, Awaitable[PermissionResult]],  # noqa: UP007
]


async def consult(
    callback: CanUseTool, tool: RegisteredTool, call: ToolUseBlock, context: ToolContext
) -> Allow | Deny | Ask:
    """What ``callback`` says about ``call``, as ``Allow``, ``Deny`` or ``Ask``."""
    try:
        result = callback(tool, dict(call.input), context)
        if inspect.isawaitable(result):
            result = await result
    except Exception:  # a broken callback asks a person; it never lets a call through
        logger.exception("can_use_tool failed on %s; a person decides", tool.name)
        return Ask("can_use_tool failed")
    if isinstance(result, (Allow, Deny, Ask)):
        return result
    if result == "allow":
        return Allow()
    if result == "deny":
        return Deny()
    if result is None or result == "ask":
        return Ask()
    logger.error("can_use_tool returned %r for %s; a person decides", result, tool.name)
    return Ask("can_use_tool gave no decision")


__all__ = ["Allow", "Ask", "CanUseTool", "Deny", "PermissionResult", "ToolContext", "consult"]
