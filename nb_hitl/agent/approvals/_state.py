"""Data of tool approval: waiting calls, decisions and their JSON form.

The behaviour lives in ``_gate.py`` (``ApprovalGate``); this module holds what it stores and
checks what a saved session or an edited call brings, before anything changes.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import ToolUseBlock

if TYPE_CHECKING:
    from nb_hitl.tool import Toolkit

    from ._rule import PermissionRule

DENIED_PREFIX = "denied by the user: "
POLICY_DENIED_PREFIX = "denied by policy: "
DISCARDED_RESULT = (
    "[Not run] The user sent a new message instead of deciding whether to run this tool call."
)
CLOSED_MEMORY = 1000  # how many closed call ids are remembered for clear late-decision errors

DecisionKind = Literal["approved", "edited", "denied"]


@dataclass(frozen=True)
class PendingApproval:
    """A tool call that waits for a person's decision."""

    call_id: str
    """The id of the model's ``tool_use`` block; pass it to ``approve``/``deny``."""
    tool_name: str
    """The tool the model wants to call."""
    arguments: dict[str, Any]
    """The arguments the model gave."""
    call: ToolUseBlock = field(repr=False)
    """The whole ``tool_use`` block."""
    reason: str = ""
    """Why it waits (the rule or the permission mode that asks)."""
    suggestion: PermissionRule | None = field(default=None, repr=False)
    """The rule that would let similar calls run (``decide(call_id, "approve",
    rule="session")`` adds it)."""
    asked_at: float = 0.0
    """When the call started waiting (seconds since the epoch)."""


def clock(at: float) -> str:
    """``at`` as ``HH:MM:SS`` UTC, for messages."""
    return time.strftime("%H:%M:%S UTC", time.gmtime(at))


@dataclass
class Decision:
    """A person's decision on one waiting call."""

    kind: DecisionKind
    """``approved``, ``edited`` (approved with new arguments) or ``denied``."""
    arguments: dict[str, Any] | None = None
    """The edited arguments (``edited`` only)."""
    reason: str = ""
    """Why (a denial's reason, or "always allowed")."""
    by: str = "user"
    """``user`` (a person or code deciding), or ``policy`` (a deny rule or mode)."""
    decided_at: float = field(default_factory=time.time)
    """When it was decided (seconds since the epoch)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "arguments": self.arguments,
            "reason": self.reason,
            "by": self.by,
            "decided_at": self.decided_at,
        }

    def describe(self) -> str:
        """``approved at 10:21:03 UTC`` (with who, when a policy decided)."""
        by = " by policy" if self.by == "policy" else ""
        return f"{self.kind}{by} at {clock(self.decided_at)}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Decision:
        kind = data.get("kind")
        if kind not in ("approved", "edited", "denied"):
            raise ValueError(f"unknown approval decision {kind!r}")
        arguments = data.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise ValueError("approval decision arguments must be a JSON object")
        at = data.get("decided_at")
        if not isinstance(at, (int, float)) or isinstance(at, bool):
            at = time.time()
        by = data.get("by", "user")
        return cls(kind, arguments, str(data.get("reason", "")), str(by), float(at))


@dataclass
class Waiting:
    """A call that needs approval, with its decision once made."""

    call: ToolUseBlock
    """The model's ``tool_use`` block."""
    decision: Decision | None = None
    """None while undecided."""
    reason: str = ""
    """Why it waits (the rule or mode that asks)."""
    asked_at: float = field(default_factory=time.time)
    """When it started waiting."""


@dataclass
class ApprovalState:
    """Everything an agent tracks about approvals (one object, swapped whole on load)."""

    waiting: dict[str, Waiting] = field(default_factory=dict)
    """Calls that needed approval and are not applied yet (decided or not), by id."""
    parked: list[ToolUseBlock] = field(default_factory=list)
    """Restored from a session: every open call of the parked turn, in order."""
    closed: dict[str, str] = field(default_factory=dict)
    """Recently closed call ids and how they closed, for clear late-decision errors."""
    decided: dict[str, Decision] = field(default_factory=dict)
    """Recently applied decisions by call id: a second decision is refused with the first."""
    all_decided: asyncio.Future[None] | None = None
    """The future a parked reply awaits; set when no waiting call is undecided."""


def parse_arguments(arguments: str | dict[str, Any]) -> dict[str, Any]:
    """Turn edited arguments (a JSON object as text, or a dict) into a dict, or raise clearly."""
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ApprovalError(
                f"The edited arguments are not valid JSON: {exc.msg} (line {exc.lineno}, "
                f"column {exc.colno}). Write one JSON object, with double-quoted names and "
                "strings."
            ) from None
        except RecursionError:
            raise ApprovalError(
                "The edited arguments are nested too deeply to read (thousands of [ or {). "
                "Write one JSON object with a few levels of nesting."
            ) from None
        except ValueError:  # an integer of more than 4,300 digits (Python's safety limit)
            raise ApprovalError(
                "The edited arguments hold a number too long to read (over 4,300 digits). "
                "Write very long numbers as strings, in double quotes."
            ) from None
    else:
        value = arguments
    if not isinstance(value, dict):
        raise ApprovalError(
            f"The edited arguments must be a JSON object ({{...}}), not {type(value).__name__}."
        )
    return value


def parse_parked(
    state: dict[str, Any], toolkit: Toolkit, messages: list[Any]
) -> tuple[set[str], ApprovalState]:
    """Check saved approval state against a toolkit and memory; raise ``ValueError`` if unfit."""
    allowed = state.get("always_allowed", [])
    if not isinstance(allowed, list) or not all(isinstance(x, str) for x in allowed):
        raise ValueError("approvals.always_allowed must be a list of tool names")
    parked: list[ToolUseBlock] = []
    waiting: dict[str, Waiting] = {}
    for item in state.get("parked", []):
        call = ToolUseBlock(item["call"])
        needs_approval = bool(item.get("needs_approval"))
        if needs_approval and call.name not in toolkit.tools:
            # A call that waited for a person names a tool the agent it came from had: this
            # toolkit is not that agent's. A call of a tool no toolkit had (the model made it
            # up) is restored as it was: resumed, it gets the toolkit's error result, as the
            # running agent answered it.
            known = ", ".join(sorted(toolkit.tools)) or "none"
            raise ValueError(
                f"the session has a parked call of tool {call.name!r} waiting for approval, "
                f"which this agent's toolkit does not have (tools: {known}); register it "
                "before loading"
            )
        parked.append(call)
        if needs_approval:
            raw = item.get("decision")
            waiting[call.id] = Waiting(call, Decision.from_dict(raw) if raw else None)
    uses = {b.id for m in messages for b in m.get_content_blocks("tool_use")}
    answered = {b.id for m in messages for b in m.get_content_blocks("tool_result")}
    for call in parked:
        if call.id not in uses or call.id in answered:
            raise ValueError(
                f"parked call {call.id!r} is not an unanswered tool call in the saved memory"
            )
    return set(allowed), ApprovalState(waiting=waiting, parked=parked)


__all__ = [
    "CLOSED_MEMORY",
    "DENIED_PREFIX",
    "DISCARDED_RESULT",
    "POLICY_DENIED_PREFIX",
    "ApprovalState",
    "Decision",
    "DecisionKind",
    "PendingApproval",
    "Waiting",
    "clock",
    "parse_arguments",
    "parse_parked",
]
