"""PermissionRule: allow, deny or ask about a tool's calls, for a call, reply, session or always.

A rule names a tool (exactly, or with a glob such as ``search_*``) and optionally which calls
of it:

- ``args={"query": "re:^SELECT\\b", "path": "notes/**"}``: each named argument's text must
  match (``_match.py``: globs match the whole text with ``*`` inside one path segment and ``**``
  across; ``re:`` regular expressions *search*, anchored only by ``^``/``$``; paths are
  normalised first);
- a **specifier** written in the tool name, ``run_shell(npm test:*)`` or
  ``write_file(./notes/**)``: matched against the argument the tool chooses (``rule_arg``, by
  default its first path argument or its only required text argument), or by the tool's own
  ``rule_matcher``; ``cmd:*`` is a command prefix;
- ``kind="edits"``: only tools that declared that kind (``reads``, ``edits``, ``runs``,
  ``network``);
- ``when=callable``: a predicate on the call's arguments, never saved.

Its ``scope`` says how long it lasts:

- ``call``: the next call it covers, then it is gone;
- ``reply``: until the running (or next) reply ends;
- ``session``: for this agent, saved with its session (``save_session``);
- ``always``: saved in a settings file (``permissions.json``): the policy's own file when it
  has one, else the user's (``permissions_file()``).

``rule.source`` says where an active rule came from: ``code`` (made in code), ``session`` (made
by a decision: a card's "Allow similar", ``decide(..., rule=...)``; or restored with a saved
session), ``project``, ``user`` or ``file`` (a settings file: the project's, the user's or the
policy's own; ``rule.source_path`` is which). ``SOURCE_TEXT`` has them in words.

**The text form** a person reads and types (the approval card's rule box):
``tool``, ``tool(specifier)`` (``run_shell(npm test:*)``, ``write_file(./notes/**)``) or
``tool(argument: pattern)`` (``run_sql(query: re:^SELECT\\b)``; a name, a colon and a space).
``PermissionRule.parse(text)`` reads it, ``rule.written`` writes it back, and the ``tool``
argument itself takes it.

Rules that cannot match anything (a malformed pattern, an argument name the tool does not have,
a specifier for a tool without a rule argument, a tool pattern no registered tool fits) are
refused when the rule is made or added, with a message saying what to write instead.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.exceptions import ConfigError

from ._match import ArgPattern, Memo, Specifier

if TYPE_CHECKING:
    from nb_hitl.tool import RegisteredTool, Toolkit

logger = logging.getLogger(__name__)

Behavior = Literal["allow", "deny", "ask"]
Scope = Literal["call", "reply", "session", "always"]
BEHAVIORS: tuple[str, ...] = ("allow", "deny", "ask")
SCOPES: tuple[str, ...] = ("call", "reply", "session", "always")
SAVED_SCOPES = ("session", "always")
_TOOL_PATTERN = re.compile(r"[A-Za-z0-9_\-*?\[\]!]{1,64}")
_SPECIFIED = re.compile(r"(?s)([^()]+)\((.*)\)")
_ARG_FORM = re.compile(r"(?s)\s*([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*)|\s*)")
"""``name: pattern`` inside the parentheses: a pattern for the argument ``name``."""
KINDS: tuple[str, ...] = ("reads", "edits", "runs", "network")
SOURCES: tuple[str, ...] = ("code", "session", "file", "project", "user")
SOURCE_TEXT = {
    "code": "in code",
    "session": "this session",
    "file": "policy file",
    "project": "project file",
    "user": "user file",
}
"""Where a rule came from, in words (``rule.source``; the panel's rule list shows it)."""
_SCOPE_TEXT = {
    "call": "for the next call",
    "reply": "for this reply",
    "session": "for this session",
    "always": "always",
}


@dataclass(eq=False)
class PermissionRule:
    """Allow, deny or ask about the calls of a tool (see the module docstring).

    Args:
        behavior: ``allow`` (run without asking), ``deny`` (never run; the model is told) or
            ``ask`` (wait for a person).
        tool: the tool's name, or a glob over names (``search_*``, ``*``), optionally with a
            specifier: ``run_shell(npm test:*)``, ``write_file(./notes/**)``.
        args: argument name -> glob (``"notes/*"``) or ``"re:<regex>"`` (searched); every
            one must match the argument's text (JSON for non-strings). Empty: any arguments.
        when: a predicate on the call's arguments (a dict). Functions are never saved: not
            in the ``always`` scope, and a ``session`` rule with one is left out of saved
            sessions.
        scope: ``call``, ``reply``, ``session`` or ``always``.
        note: a few words shown in the panel's rule list.
        kind: only tools of this declared kind (``reads``, ``edits``, ``runs``, ``network``).

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
    kind: str | None = None
    """Only tools that declared this kind."""
    specifier: str | None = None
    """The ``(...)`` part of ``tool`` (``npm test:*``), or None."""
    source: str = "code"
    """Where the rule came from: ``code``, ``session``, ``file``, ``project`` or ``user``."""
    source_path: str | None = None
    """The settings file it was read from (file rules)."""
    _patterns: dict[str, ArgPattern] = field(init=False, repr=False, default_factory=dict)
    _spec: Specifier | None = field(init=False, repr=False, default=None)
    _exact: bool = field(init=False, repr=False, default=False)

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
        specified = _SPECIFIED.fullmatch(self.tool) if isinstance(self.tool, str) else None
        named: tuple[str, str] | None = None
        if specified is not None:
            self.tool, self.specifier = specified.group(1).strip(), specified.group(2).strip()
            by_name = _ARG_FORM.fullmatch(specified.group(2))
            if by_name is not None:  # tool(name: pattern): an argument pattern
                named = (by_name.group(1), (by_name.group(2) or "").strip())
                self.specifier = None
        self._spec = Specifier(self.specifier) if self.specifier is not None else None
        if self.kind is not None and self.kind not in KINDS:
            raise ConfigError(
                f"A rule's kind must be one of {', '.join(KINDS)}, got {self.kind!r}."
            )
        if not isinstance(self.tool, str) or not _TOOL_PATTERN.fullmatch(self.tool):
            raise ConfigError(
                f"A permission rule's tool must be a tool name or a glob over names "
                f"('search_*', '*'), got {self.tool!r}."
            )
        if self.tool.count("[") != self.tool.count("]"):
            raise ConfigError(f"The tool pattern {self.tool!r} has an unclosed '['.")
        self._exact = not any(c in self.tool for c in "*?[")  # a name: no glob to match
        if not isinstance(self.args, Mapping):
            raise ConfigError(
                f"A permission rule's args must map argument names to patterns, got {self.args!r}."
            )
        self.args = dict(self.args)
        if named is not None:
            if named[0] in self.args:
                raise ConfigError(
                    f"The rule names argument {named[0]!r} twice: in {self.tool}({named[0]}: "
                    f"...) and in args. Give its pattern once."
                )
            self.args = {named[0]: named[1], **self.args}
        self._patterns = {}
        for name, pattern in self.args.items():
            if not isinstance(name, str) or not name:
                raise ConfigError(f"Argument names in a rule must be strings, got {name!r}.")
            self._patterns[name] = ArgPattern(name, pattern)
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
        if self._exact:
            return name == self.tool
        return fnmatch.fnmatchcase(name, self.tool)

    def matches(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        tool: RegisteredTool | None = None,
        memo: Memo | None = None,
    ) -> bool:
        """Whether the rule covers a call of ``tool_name`` with ``arguments`` (``tool``: the
        registered tool, for its kind, path arguments and specifier reading; ``memo``: shared
        by the rules checking one call, so each path is normalised once)."""
        if not self.covers_tool(tool_name):
            return False
        if self.kind is not None and (tool is None or tool.kind != self.kind):
            return False
        paths = tool.path_args if tool is not None else ()
        for name, pattern in self._patterns.items():
            if name not in arguments or not pattern.matches(
                arguments[name], is_path=name in paths, memo=memo
            ):
                return False
        if self._spec is not None and not self._specified(tool, arguments, memo):
            return False
        if self.when is not None:
            return self._predicate(self.when, arguments)
        return True

    def _specified(
        self, tool: RegisteredTool | None, arguments: Mapping[str, Any], memo: Memo | None
    ) -> bool:
        spec = self._spec
        assert spec is not None
        if tool is None:
            return False
        if tool.rule_matcher is not None:
            matcher = tool.rule_matcher
            return self._predicate(lambda args: matcher(spec.text, args), arguments)
        arg = tool.rule_arg
        if arg is None or arg not in arguments:
            return False
        allowing = self.behavior == "allow"
        return spec.matches(
            arguments[arg], is_path=arg in tool.path_args, allowing=allowing, memo=memo
        )

    def _predicate(self, fn: Callable[[dict[str, Any]], Any], arguments: Mapping[str, Any]) -> bool:
        try:
            return bool(fn(dict(arguments)))
        except Exception:  # a failing predicate never lets a call through
            logger.warning(
                "a condition of rule %s failed; it does not allow", self.id, exc_info=True
            )
            return self.behavior != "allow"

    def check(self, toolkit: Toolkit) -> None:
        """Raise ``ConfigError`` when no call of ``toolkit``'s tools could ever match."""
        tools = [t for n, t in toolkit.tools.items() if self.covers_tool(n)]
        if not tools:
            known = ", ".join(sorted(toolkit.tools)) or "none"
            raise ConfigError(
                f"The rule for tool {self.tool!r} can match nothing: no registered tool has "
                f"that name (tools: {known}). Register the tool first or fix the name."
            )
        if self._spec is not None and not any(
            t.rule_arg is not None or t.rule_matcher is not None for t in tools
        ):
            raise ConfigError(
                f"The rule {self.text!r} can match nothing: tool {self.tool!r} has no argument "
                "a specifier matches (register it with rule_arg=... or a rule_matcher), or "
                "write args={name: pattern} instead."
            )
        for name in self.args:
            if not any(name in arg_names(t) for t in tools):
                have = ", ".join(sorted(set().union(*(arg_names(t) for t in tools)))) or "none"
                raise ConfigError(
                    f"The rule for tool {self.tool!r} can match nothing: it has no argument "
                    f"{name!r} (arguments: {have})."
                )

    # -- words -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The tool pattern as written, specifier included: ``run_shell(npm test:*)``."""
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    @property
    def written(self) -> str | None:
        """The rule's text form, as a person types it (``PermissionRule.parse`` reads it
        back): ``run_shell(npm test:*)``, ``run_sql(query: re:^SELECT\\b)``, ``search_*``.
        ``None`` for a rule the form cannot hold: more than one argument pattern, a
        specifier and argument patterns together, a ``kind``, a ``when`` function, or a
        pattern with spaces at its ends. The behaviour and scope are not part of it."""
        if self.kind is not None or self.when is not None or len(self.args) > 1:
            return None
        if self.args and self.specifier is not None:
            return None
        if not self.args:
            return self.text
        [(name, pattern)] = self.args.items()
        if not _ARG_FORM.fullmatch(f"{name}: x") or not isinstance(pattern, str):
            return None
        if pattern != pattern.strip():
            return None
        return f"{self.tool}({name}: {pattern})"

    @classmethod
    def parse(
        cls,
        text: str,
        behavior: Behavior = "allow",
        scope: Scope = "session",
        note: str = "",
    ) -> PermissionRule:
        """The rule a person wrote in the text form (``rule.written``): ``tool``,
        ``tool(specifier)`` or ``tool(argument: pattern)``.

        Raises:
            ConfigError: the text is empty, its parentheses are not ``tool(...)``, or the
                tool name or a pattern is malformed (the message says which).
        """
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(
                "The rule is empty: write a tool name, tool(specifier) such as "
                "run_shell(npm test:*), or tool(argument: pattern)."
            )
        text = text.strip()
        if ("(" in text or ")" in text) and _SPECIFIED.fullmatch(text) is None:
            raise ConfigError(
                f"{text!r} is not a rule: a rule is written `tool`, `tool(specifier)` such "
                "as run_shell(npm test:*), or `tool(argument: pattern)` such as "
                "run_sql(query: re:^SELECT\\b), with one pair of parentheses closing at the end."
            )
        return cls(behavior, text, scope=scope, note=note)

    def describe(self, toolkit: Toolkit | None = None) -> str:
        """The rule in words: "allow `search_notes` with any query for this session"."""
        what = f"`{self.text}`" + (f" ({self.kind} tools)" if self.kind else "")
        if self._spec is not None and not self.args and self.when is None:
            how = "calls"
        elif self.args:
            parts = [f"{k} matching '{v}'" for k, v in self.args.items()]
            how = "with " + " and ".join(parts)
        elif self.when is not None:
            how = "when its condition holds"
        else:
            names: list[str] = []
            if toolkit is not None and self.tool in toolkit.tools:
                names = sorted(arg_names(toolkit.tools[self.tool]))
            how = f"with any {names[0]}" if len(names) == 1 else "with any arguments"
        if how == "calls":
            return f"{self.behavior} {what} {_SCOPE_TEXT[self.scope]}"
        return f"{self.behavior} {what} {how} {_SCOPE_TEXT[self.scope]}"

    def view(self, toolkit: Toolkit | None = None) -> dict[str, Any]:
        """What a panel shows of the rule (JSON-able): its words, where it came from, its id."""
        return {
            "id": self.id,
            "behavior": self.behavior,
            "text": self.text,
            "args": dict(self.args),
            "kind": self.kind,
            "scope": self.scope,
            "written": self.written,
            "source": self.source,
            "source_text": SOURCE_TEXT.get(self.source, self.source),
            "source_path": self.source_path,
            "note": self.note,
            "description": self.describe(toolkit),
        }

    # -- saving ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (rules with a ``when`` function cannot be saved)."""
        if self.when is not None:
            raise ConfigError("A rule with a `when` function cannot be saved.")
        data: dict[str, Any] = {
            "id": self.id,
            "behavior": self.behavior,
            "tool": self.text,
            "args": dict(self.args),
            "scope": self.scope,
            "note": self.note,
            "created_at": self.created_at,
        }
        if self.kind is not None:
            data["kind"] = self.kind
        return data

    @classmethod
    def from_dict(cls, data: Any) -> PermissionRule:
        """Read ``to_dict()`` output; ``ConfigError`` saying which field is wrong."""
        if not isinstance(data, dict):
            raise ConfigError(f"A saved permission rule must be a JSON object, got {data!r}.")
        unknown = set(data) - {
            "id",
            "behavior",
            "tool",
            "args",
            "scope",
            "note",
            "created_at",
            "kind",
        }
        if unknown:
            raise ConfigError(f"A saved permission rule has unknown fields {sorted(unknown)}.")
        created = data.get("created_at", time.time())
        if not isinstance(created, (int, float)) or isinstance(created, bool):
            raise ConfigError(f"A saved rule's created_at must be a number, got {created!r}.")
        # A hand-written rule without an id gets one from its content, the same at every
        # read, so it can be revoked by id.
        rule_id = (
            data.get("id")
            or hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:10]
        )
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
            kind=data.get("kind"),
        )


def arg_names(tool: RegisteredTool) -> set[str]:
    """The argument names a tool's schema offers (extended model included)."""
    params = tool.extended_json_schema.get("function", {}).get("parameters", {})
    return set(params.get("properties", {}))


__all__ = [
    "BEHAVIORS",
    "KINDS",
    "SAVED_SCOPES",
    "SCOPES",
    "SOURCES",
    "SOURCE_TEXT",
    "Behavior",
    "PermissionRule",
    "Scope",
    "arg_names",
]
