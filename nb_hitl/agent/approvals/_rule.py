"""PermissionRule: allow, deny or ask about a tool's calls, for a call, reply, session or always.

A rule names a tool (exactly, or with a glob such as ``search_*``) and optionally which calls
of it: ``args={"query": "notes*"}`` (each named argument's text must match a glob, or a regular
expression written ``"re:..."``, matched whole), or ``when=callable`` (a predicate on the call's
arguments, never saved). Its ``scope`` says how long it lasts:

- ``call``: the next call it covers, then it is gone;
- ``reply``: until the running (or next) reply ends;
- ``session``: for this agent, saved with its session (``save_session``);
- ``always``: for every agent, saved in the user's ``permissions.json`` (``permissions_file()``).

Rules that cannot match anything (a malformed pattern, an argument name the tool does not have,
a tool pattern no registered tool fits) are refused when the rule is made or added, with a
message saying what to write instead.
"""

from __future__ import annotations

import fnmatch
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.exceptions import ConfigError

if TYPE_CHECKING:
    from nb_hitl.tool import RegisteredTool, Toolkit

logger = logging.getLogger(__name__)

Behavior = Literal["allow", "deny", "ask"]
Scope = Literal["call", "reply", "session", "always"]
BEHAVIORS: tuple[str, ...] = ("allow", "deny", "ask")
SCOPES: tuple[str, ...] = ("call", "reply", "session", "always")
SAVED_SCOPES = ("session", "always")
_TOOL_PATTERN = re.compile(r"[A-Za-z0-9_\-*?\[\]!]{1,64}")
_SCOPE_TEXT = {
    "call": "for the next call",
    "reply": "for this reply",
    "session": "for this session",
    "always": "always",
}


def _compile(name: str, pattern: Any) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(
            f"The pattern for argument {name!r} must be a non-empty string (a glob such as "
            f"'notes*', or 're:<regular expression>'), got {pattern!r}."
        )
    if pattern.startswith("re:"):
        try:
            return re.compile(pattern[3:], re.DOTALL)
        except re.error as exc:
            raise ConfigError(
                f"The regular expression for argument {name!r} is malformed ({exc}): "
                f"{pattern[3:]!r}. Fix it, or write a glob without the 're:' prefix."
            ) from None
    if pattern.count("[") != pattern.count("]"):
        raise ConfigError(
            f"The glob for argument {name!r} has an unclosed '[': {pattern!r}. Write '[[]' for "
            "a literal '['."
        )
    return re.compile(fnmatch.translate(pattern), re.DOTALL)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _json_text(value)


def _json_text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


@dataclass(eq=False)
class PermissionRule:
    """Allow, deny or ask about the calls of a tool (see the module docstring).

    Args:
        behavior: ``allow`` (run without asking), ``deny`` (never run; the model is told) or
            ``ask`` (wait for a person).
        tool: the tool's name, or a glob over names (``search_*``, ``*``).
        args: argument name -> glob (``"notes*"``) or ``"re:<regex>"``; every one must match
            the argument's text (JSON for non-strings). Empty: any arguments.
        when: a predicate on the call's arguments (a dict). Functions are never saved: not
            in the ``always`` scope, and a ``session`` rule with one is left out of saved
            sessions.
        scope: ``call``, ``reply``, ``session`` or ``always``.
        note: a few words shown in the panel's rule list.

    Raises:
        ConfigError: an unknown behaviour or scope, an empty or malformed tool pattern, a
            malformed argument pattern, or a predicate in the ``always`` scope.
    """

    behavior: Behavior
    tool: str
    args: Mapping[str, str] = field(default_factory=dict)
    when: Callable[[dict[str, Any]], bool] | None = None
    scope: Scope = "session"
    note: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    """Pass it to ``policy.revoke(rule_id)``."""
    created_at: float = field(default_factory=time.time)
    """When the rule was made (seconds since the epoch)."""
    reply_id: str | None = None
    """``reply`` scope: the reply it belongs to (set when that reply starts)."""
    _patterns: dict[str, re.Pattern[str]] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if self.behavior not in BEHAVIORS:
            raise ConfigError(
                f"A permission rule's behavior must be 'allow', 'deny' or 'ask', got "
                f"{self.behavior!r}."
            )
        if self.scope not in SCOPES:
            raise ConfigError(
                f"A permission rule's scope must be 'call', 'reply', 'session' or 'always', "
                f"got {self.scope!r}."
            )
        if not isinstance(self.tool, str) or not _TOOL_PATTERN.fullmatch(self.tool):
            raise ConfigError(
                f"A permission rule's tool must be a tool name or a glob over names "
                f"('search_*', '*'), got {self.tool!r}."
            )
        if self.tool.count("[") != self.tool.count("]"):
            raise ConfigError(f"The tool pattern {self.tool!r} has an unclosed '['.")
        if not isinstance(self.args, Mapping):
            raise ConfigError(
                f"A permission rule's args must map argument names to patterns, got {self.args!r}."
            )
        self.args = dict(self.args)
        self._patterns = {}
        for name, pattern in self.args.items():
            if not isinstance(name, str) or not name:
                raise ConfigError(f"Argument names in a rule must be strings, got {name!r}.")
            self._patterns[name] = _compile(name, pattern)
        if self.when is not None and not callable(self.when):
            raise ConfigError(
                f"A rule's `when` must be a function of the arguments, got {self.when!r}."
            )
        if self.when is not None and self.scope == "always":
            raise ConfigError(
                "A rule with a `when` function cannot have scope 'always': functions cannot "
                "be saved in permissions.json. Use args={name: pattern} instead."
            )
        self.note = str(self.note or "")

    # -- matching ----------------------------------------------------------------------------
    def covers_tool(self, name: str) -> bool:
        """Whether the rule's tool pattern fits the tool called ``name``."""
        return fnmatch.fnmatchcase(name, self.tool)

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether the rule covers a call of ``tool_name`` with ``arguments``."""
        if not self.covers_tool(tool_name):
            return False
        for name, pattern in self._patterns.items():
            if name not in arguments or not pattern.fullmatch(_text(arguments[name])):
                return False
        if self.when is not None:
            try:
                return bool(self.when(dict(arguments)))
            except Exception:  # a failing predicate never lets a call through
                logger.warning(
                    "`when` of rule %s failed; it does not allow", self.id, exc_info=True
                )
                return self.behavior != "allow"
        return True

    def check(self, toolkit: Toolkit) -> None:
        """Raise ``ConfigError`` when no call of ``toolkit``'s tools could ever match."""
        tools = [t for n, t in toolkit.tools.items() if self.covers_tool(n)]
        if not tools:
            known = ", ".join(sorted(toolkit.tools)) or "none"
            raise ConfigError(
                f"The rule for tool {self.tool!r} can match nothing: no registered tool has "
                f"that name (tools: {known}). Register the tool first or fix the name."
            )
        for name in self.args:
            if not any(name in arg_names(t) for t in tools):
                have = ", ".join(sorted(set().union(*(arg_names(t) for t in tools)))) or "none"
                raise ConfigError(
                    f"The rule for tool {self.tool!r} can match nothing: it has no argument "
                    f"{name!r} (arguments: {have})."
                )

    # -- words -------------------------------------------------------------------------------
    def describe(self, toolkit: Toolkit | None = None) -> str:
        """The rule in words: "allow `search_notes` with any query for this session"."""
        what = f"`{self.tool}`"
        if self.args:
            parts = [f"{k} matching {v!r}" for k, v in self.args.items()]
            how = "with " + " and ".join(parts)
        elif self.when is not None:
            how = "when its condition holds"
        else:
            names: list[str] = []
            if toolkit is not None and self.tool in toolkit.tools:
                names = sorted(arg_names(toolkit.tools[self.tool]))
            how = f"with any {names[0]}" if len(names) == 1 else "with any arguments"
        return f"{self.behavior} {what} {how} {_SCOPE_TEXT[self.scope]}"

    # -- saving ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (rules with a ``when`` function cannot be saved)."""
        if self.when is not None:
            raise ConfigError("A rule with a `when` function cannot be saved.")
        return {
            "id": self.id,
            "behavior": self.behavior,
            "tool": self.tool,
            "args": dict(self.args),
            "scope": self.scope,
            "note": self.note,
            "created_at": self.created_at,
        }

    @classmethod
    def from_dict(cls, data: Any) -> PermissionRule:
        """Read ``to_dict()`` output; ``ConfigError`` saying which field is wrong."""
        if not isinstance(data, dict):
            raise ConfigError(f"A saved permission rule must be a JSON object, got {data!r}.")
        unknown = set(data) - {"id", "behavior", "tool", "args", "scope", "note", "created_at"}
        if unknown:
            raise ConfigError(f"A saved permission rule has unknown fields {sorted(unknown)}.")
        created = data.get("created_at", time.time())
        if not isinstance(created, (int, float)) or isinstance(created, bool):
            raise ConfigError(f"A saved rule's created_at must be a number, got {created!r}.")
        rule_id = data.get("id") or uuid.uuid4().hex[:10]
        if not isinstance(rule_id, str):
            raise ConfigError(f"A saved rule's id must be a string, got {rule_id!r}.")
        return cls(
            behavior=data.get("behavior"),  # type: ignore[arg-type]
            tool=data.get("tool"),  # type: ignore[arg-type]
            args=data.get("args") or {},
            scope=data.get("scope", "session"),
            note=data.get("note", ""),
            id=rule_id,
            created_at=float(created),
        )


def arg_names(tool: RegisteredTool) -> set[str]:
    """The argument names a tool's schema offers (extended model included)."""
    params = tool.extended_json_schema.get("function", {}).get("parameters", {})
    return set(params.get("properties", {}))


__all__ = [
    "BEHAVIORS",
    "SAVED_SCOPES",
    "SCOPES",
    "Behavior",
    "PermissionRule",
    "Scope",
    "arg_names",
]
