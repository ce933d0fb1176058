"""PermissionPolicy: which tool calls run, which wait for a person, which are refused.

Every ``ReActAgent`` has one (``agent.permissions``). A call is decided in this order (the
first step that decides wins):

1. mode ``deny_all``: refused. A hard stop: no rule, tool or callback overrides it.
2. **deny** rules (from any source): refused.
3. mode ``plan``: a tool that is not read-only is refused (plan mode only reads).
4. a settings file that cannot be read: the call asks (its rules might have denied it).
5. a tool registered ``always_ask=True``: asks (only a decision on that call runs it).
6. **ask** rules, then **allow** rules (the first that covers the call decides).
7. the **mode**:

   - ``ask`` (the default): a call waits when its tool says so (``needs_approval=True`` or a
     predicate registered with the tool); other calls run;
   - ``allow_reads``: read-only tools run; every other call asks;
   - ``accept_edits``: read-only tools and tools of kind ``edits`` run; others as ``ask``;
   - ``plan``: read-only tools as ``ask`` (others were refused at step 3);
   - ``allow_all``: every call runs;
   - ``dont_ask``: as ``ask``, but see below;
   - ``deny_all``: refused at step 1.

8. mode ``dont_ask`` (unattended runs): a call that would ask is refused instead, so nothing
   ever waits for a person; only what rules (or the mode) allow runs.

Then, for a call that would ask, the policy's ``can_use_tool`` callback (if any) is called
before the approval card: it may allow (with rewritten arguments), deny with a reason the
model sees, ask a person, or interrupt the reply (``_callback.py``).

A denied call never runs: the model receives ``"denied by policy: <why>"`` as its result.
Rules come from the agent (code, decisions) and from settings files (``_file.py``): a file
given as ``rules_file=``, the project's ``.nb_hitl/permissions.json`` and the user's
``permissions.json``. Within one behaviour they are tried in that order: agent, given file,
project, user; a deny from any of them beats every ask and allow. ``always`` rules are written
to the given file when there is one, else to the user's.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableSet
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.exceptions import ConfigError

from ._file import (
    CONFIG_ENV,
    RulesFile,
    config_dir,
    permissions_file,
    project_permissions_file,
)
from ._match import Memo, normalise_path
from ._rule import SCOPES, Behavior, PermissionRule, Scope

if TYPE_CHECKING:
    from nb_hitl.message import ToolUseBlock
    from nb_hitl.tool import RegisteredTool, Toolkit

    from ._callback import CanUseTool

logger = logging.getLogger(__name__)

Mode = Literal["ask", "allow_reads", "accept_edits", "plan", "allow_all", "dont_ask", "deny_all"]
MODES: tuple[str, ...] = (
    "ask",
    "allow_reads",
    "accept_edits",
    "plan",
    "allow_all",
    "dont_ask",
    "deny_all",
)
MODE_TEXT = {
    "ask": "ask when a tool needs approval",
    "allow_reads": "reads run, everything else asks",
    "accept_edits": "reads and edits run, others ask when their tool needs approval",
    "plan": "read-only: every tool that is not read-only is refused",
    "allow_all": "every call runs without asking",
    "dont_ask": "unattended: what would ask is refused",
    "deny_all": "no tool call runs",
}
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")


@dataclass(frozen=True)
class Verdict:
    """What the policy says about one call."""

    behavior: Behavior
    """``allow``, ``deny`` or ``ask``."""
    reason: str
    """Why, in words (the rule or the mode)."""
    rule: PermissionRule | None = None
    """The rule that decided, if one did."""


class AllowedTools(MutableSet[str]):
    """The tools a policy allows with any arguments for the session, as a live set."""

    def __init__(self, policy: PermissionPolicy) -> None:
        self._policy = policy

    def _rules(self) -> list[PermissionRule]:
        return [
            r
            for r in self._policy.rules
            if r.behavior == "allow"
            and r.scope == "session"
            and not r.args
            and r.when is None
            and r.specifier is None
            and r.kind is None
        ]

    def __contains__(self, name: object) -> bool:
        return any(r.tool == name for r in self._rules())

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({r.tool for r in self._rules()}))

    def __len__(self) -> int:
        return len({r.tool for r in self._rules()})

    def add(self, value: str) -> None:
        if value not in self:
            self._policy.add(PermissionRule("allow", value, scope="session"))

    def discard(self, value: str) -> None:
        for rule in self._rules():
            if rule.tool == value:
                self._policy.revoke(rule.id)

    def __repr__(self) -> str:
        return repr(set(self))


class PermissionPolicy:
    """A mode and ordered rules deciding which tool calls run (see the module docstring).

    Args:
        mode: ``ask`` (default), ``allow_reads``, ``accept_edits``, ``plan``, ``allow_all``,
            ``dont_ask`` or ``deny_all``.
        rules: the agent's own rules, in order (``always`` rules given here are written to
            the settings file).
        user_rules: read (and write ``always`` rules to) the user's ``permissions.json``
            (``permissions_file()``). With ``False``, an ``always`` rule is refused with
            ``ConfigError`` unless ``rules_file`` is given.
        project_rules: read the project's ``.nb_hitl/permissions.json`` (in the working
            directory, or the folder given here).
        rules_file: a settings file of this policy's own: read first, and where ``always``
            rules are written.
        can_use_tool: ``callback(tool, arguments, context)``, sync or async, called for each
            call that would ask (see ``_callback.py``).

    Raises:
        ConfigError: an unknown mode, or a rule that is not a ``PermissionRule``.
    """

    def __init__(
        self,
        mode: Mode = "ask",
        rules: Iterable[PermissionRule] = (),
        *,
        user_rules: bool = True,
        project_rules: bool | str | Path = True,
        rules_file: str | Path | None = None,
        can_use_tool: CanUseTool | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._mode: Mode = "ask"
        self.mode = mode
        self._rules: list[PermissionRule] = []
        self._given = None if rules_file is None else _fixed(Path(rules_file), "file")
        self._user = RulesFile(permissions_file, "user") if user_rules else None
        self._project: RulesFile | None = None
        if project_rules is not False:
            folder = None if project_rules is True else Path(project_rules)
            self._project = RulesFile(lambda: project_permissions_file(folder), "project")
        self._toolkit: Toolkit | None = None
        self._listeners: list[Callable[[], None]] = []
        self._reply_id: str | None = None
        self.can_use_tool = can_use_tool
        """Called for each call that would ask, before the approval card (or None)."""
        for rule in rules:
            self.add(rule)

    # -- mode --------------------------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        """``ask``, ``allow_reads``, ``accept_edits``, ``plan``, ``allow_all``, ``dont_ask``
        or ``deny_all``."""
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ConfigError(
                f"The permission mode must be one of {', '.join(repr(m) for m in MODES)}, "
                f"got {mode!r}."
            )
        self._mode = mode
        self._changed()

    def use_rules_file(self, path: str | os.PathLike[str], *, user_rules: bool = False) -> None:
        """Read and write this policy's ``always`` rules in ``path`` (and, unless
        ``user_rules``, no longer the user's file): a served agent's own policy file."""
        with self._lock:
            self._given = _fixed(Path(path), "file")
            if not user_rules:
                self._user = None
        self._changed()

    # -- rules -------------------------------------------------------------------------------
    @property
    def files(self) -> list[RulesFile]:
        """The settings files read, in the order their rules are tried."""
        return [f for f in (self._given, self._project, self._user) if f is not None]

    @property
    def rules(self) -> list[PermissionRule]:
        """The active rules in the order they are tried: the agent's, then each file's
        (``rule.source`` says which)."""
        with self._lock:
            own = [r for r in self._rules if self._live(r)]
        return own + self._always()

    def _always(self) -> list[PermissionRule]:
        rules = [r for f in self.files for r in f.load()]
        if self._toolkit is None:
            return rules
        return [r for r in rules if any(r.covers_tool(n) for n in self._toolkit.tools)]

    @property
    def file_error(self) -> str:
        """Why a settings file cannot be read (``""`` when every one can)."""
        errors = []
        for f in self.files:
            f.load()
            if f.error:
                errors.append(f.error)
        return " ".join(errors)

    @property
    def _target(self) -> RulesFile | None:
        """Where ``always`` rules are written."""
        return self._given if self._given is not None else self._user

    def add(self, rule: PermissionRule) -> PermissionRule:
        """Add ``rule`` after the others (``always`` rules go to the settings file).

        Raises:
            ConfigError: the rule can match no call of the agent's tools; or an ``always``
                rule cannot be saved (no settings file with ``user_rules=False``, a file that
                cannot be read, which is then left as it is, or a folder that cannot be
                written). Nothing changes then.
        """
        if not isinstance(rule, PermissionRule):
            raise ConfigError(
                f"Permission rules must be PermissionRule objects (or use policy.allow(...)), "
                f"got {rule!r}."
            )
        if self._toolkit is not None:
            rule.check(self._toolkit)
        if rule.scope == "always":
            target = self._target
            if target is None:
                raise ConfigError(
                    "This policy has no settings file to save an 'always' rule in "
                    "(user_rules=False and no rules_file): give the rule scope 'session' "
                    "instead."
                )
            with self._lock:
                target.update(lambda saved: [*(r for r in saved if r.id != rule.id), rule])
            rule.source, rule.source_path = target.source, str(target.path)
        else:
            with self._lock:
                if rule.scope == "reply" and rule.reply_id is None:
                    rule.reply_id = self._reply_id
                self._rules.append(rule)
        self._changed()
        return rule

    def allow(
        self,
        tool: str,
        args: Mapping[str, str] | None = None,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        scope: Scope = "session",
        note: str = "",
        kind: str | None = None,
    ) -> PermissionRule:
        """Add a rule that lets the calls it covers run without asking."""
        return self.add(PermissionRule("allow", tool, args or {}, when, scope, note, kind=kind))

    def deny(
        self,
        tool: str,
        args: Mapping[str, str] | None = None,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        scope: Scope = "session",
        note: str = "",
        kind: str | None = None,
    ) -> PermissionRule:
        """Add a rule that refuses the calls it covers (the model is told why)."""
        return self.add(PermissionRule("deny", tool, args or {}, when, scope, note, kind=kind))

    def ask(
        self,
        tool: str,
        args: Mapping[str, str] | None = None,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        scope: Scope = "session",
        note: str = "",
        kind: str | None = None,
    ) -> PermissionRule:
        """Add a rule that makes the calls it covers wait for a person."""
        return self.add(PermissionRule("ask", tool, args or {}, when, scope, note, kind=kind))

    def revoke(self, rule_id: str) -> PermissionRule:
        """Remove the rule with id ``rule_id`` (from its settings file too).

        Raises:
            ConfigError: no active rule has that id, or its file cannot be read or written;
                nothing changes.
        """
        with self._lock:
            for rule in self._rules:
                if rule.id == rule_id:
                    self._rules.remove(rule)
                    break
            else:
                for source in self.files:
                    found = [r for r in source.load() if r.id == rule_id]
                    if found:
                        rule = found[0]
                        source.update(lambda saved: [r for r in saved if r.id != rule_id])
                        break
                else:
                    ids = ", ".join(repr(r.id) for r in self.rules) or "none"
                    raise ConfigError(
                        f"No permission rule has id {rule_id!r} (rules: {ids}); see policy.rules."
                    ) from None
        self._changed()
        return rule

    def clear(self, scope: Scope | None = None) -> None:
        """Remove the agent's own rules (of one ``scope``, or all but ``always``); ``always``
        empties the file ``always`` rules are written to."""
        if scope is not None and scope not in SCOPES:
            raise ConfigError(f"Unknown scope {scope!r}; use one of {', '.join(SCOPES)}.")
        if scope == "always":
            if self._target is not None:
                self._target.update(lambda saved: [])
        else:
            with self._lock:
                self._rules = [r for r in self._rules if scope is not None and r.scope != scope]
        self._changed()

    # -- deciding ----------------------------------------------------------------------------
    def verdict(self, tool: RegisteredTool, call: ToolUseBlock, *, peek: bool = False) -> Verdict:
        """Decide ``call`` of ``tool`` (see the module docstring for the order); a
        ``call``-scope rule that decides it is used up (unless ``peek``)."""
        mode = self._mode
        if mode == "deny_all":
            return Verdict("deny", "mode deny_all: no tool call runs")
        arguments = call.input
        rules = self.rules
        memo: Memo = {}
        for rule in rules:
            if rule.behavior == "deny" and rule.matches(tool.name, arguments, tool, memo):
                return self._by_rule(rule, peek)
        if mode == "plan" and not tool.read_only:
            return Verdict(
                "deny", f"mode plan: `{tool.name}` is not read-only (plan mode only reads)"
            )
        verdict = self._decide(tool, call, rules, peek, memo)
        if verdict.behavior == "ask" and mode == "dont_ask":
            return Verdict(
                "deny",
                f"mode dont_ask: nobody is there to approve ({verdict.reason})",
                verdict.rule,
            )
        return verdict

    def _decide(
        self,
        tool: RegisteredTool,
        call: ToolUseBlock,
        rules: list[PermissionRule],
        peek: bool,
        memo: Memo,
    ) -> Verdict:
        error = " ".join(f.error for f in self.files if f.error)  # loaded by self.rules
        if error:
            return Verdict("ask", error)
        if tool.always_ask:
            return Verdict("ask", f"`{tool.name}` always asks a person")
        for behavior in ("ask", "allow"):
            for rule in rules:
                if rule.behavior == behavior and rule.matches(tool.name, call.input, tool, memo):
                    return self._by_rule(rule, peek)
        mode = self._mode
        if mode == "allow_all":
            return Verdict("allow", "mode allow_all")
        if mode == "allow_reads":
            if tool.read_only:
                return Verdict("allow", "mode allow_reads: a read-only tool")
            return Verdict("ask", "mode allow_reads: not a read-only tool")
        if mode == "accept_edits" and (tool.read_only or tool.kind == "edits"):
            return Verdict("allow", "mode accept_edits: a read-only or editing tool")
        try:
            asks = tool.requires_approval(call)
        except Exception:  # a failing predicate must never let a call through unasked
            logger.warning("needs_approval of %s failed; the call asks", tool.name, exc_info=True)
            asks = True
        return (
            Verdict("ask", "the tool needs approval") if asks else Verdict("allow", f"mode {mode}")
        )

    def _by_rule(self, rule: PermissionRule, peek: bool) -> Verdict:
        if rule.scope == "call" and not peek:
            with self._lock:
                if rule in self._rules:
                    self._rules.remove(rule)
            self._changed()
        return Verdict(rule.behavior, f"rule: {rule.describe()}", rule)

    def suggest(
        self, tool_name: str, arguments: Mapping[str, Any], scope: Scope = "session"
    ) -> PermissionRule:
        """The narrowest rule that would let calls like this one run: this path's folder
        (``write_file(notes/*)``), this command's prefix (``run_shell(npm test:*)``), this
        text's first word (``{"query": "re:^SELECT\\b"}``), else any call of the tool."""
        tool = self._toolkit.tools.get(tool_name) if self._toolkit is not None else None
        arg = tool.rule_arg if tool is not None and tool.rule_matcher is None else None
        value = arguments.get(arg) if arg is not None else None
        if tool is None or arg is None or not isinstance(value, str) or not value.strip():
            return PermissionRule("allow", tool_name, {}, None, scope)
        if arg in tool.path_args:
            folder = posixpath.dirname(normalise_path(value))
            spec = f"{folder}/*" if folder else "*"
            return PermissionRule("allow", f"{tool_name}({spec})", scope=scope)
        words = value.split()
        if tool.kind == "runs":
            prefix = words[0]
            if len(words) > 1 and _WORD.fullmatch(words[1]) and not words[1].startswith("-"):
                prefix += " " + words[1]
            if "(" not in prefix and ")" not in prefix:
                return PermissionRule("allow", f"{tool_name}({prefix}:*)", scope=scope)
        first = _WORD.match(words[0])
        if first is not None:
            word = first.group(0)  # letters, digits, _ . -: only the dot means more
            pattern = "re:^" + word.replace(".", "\\.") + ("\\b" if word[-1:].isalnum() else "")
            return PermissionRule("allow", tool_name, {arg: pattern}, None, scope)
        return PermissionRule("allow", tool_name, {}, None, scope)

    # -- life cycle (called by the agent) ----------------------------------------------------
    def bind(self, toolkit: Toolkit) -> None:
        """Check every own rule against ``toolkit``; later rules are checked when added."""
        for rule in list(self._rules):
            rule.check(toolkit)
        self._toolkit = toolkit

    def start_reply(self, reply_id: str | None) -> None:
        """A reply started: unbound ``reply`` rules belong to it, older ones are gone."""
        with self._lock:
            self._reply_id = reply_id
            for rule in self._rules:
                if rule.scope == "reply" and rule.reply_id is None:
                    rule.reply_id = reply_id
            before = len(self._rules)
            self._rules = [r for r in self._rules if self._live(r)]
            changed = len(self._rules) != before
        if changed:
            self._changed()

    def end_reply(self, reply_id: str | None) -> None:
        """A reply ended: its ``reply`` rules are gone."""
        with self._lock:
            self._reply_id = None
            if not self._rules:  # most replies: no rule to drop, no list to build
                return
            before = len(self._rules)
            self._rules = [
                r for r in self._rules if not (r.scope == "reply" and r.reply_id == reply_id)
            ]
            changed = len(self._rules) != before
        if changed:
            self._changed()

    def _live(self, rule: PermissionRule) -> bool:
        if rule.scope != "reply" or rule.reply_id is None:
            return True
        return rule.reply_id == self._reply_id

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` whenever the mode or the rules change; returns an unwatch."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(getattr(self, "_listeners", ())):
            try:
                listener()
            except Exception:  # a broken view must not break the policy
                logger.exception("nb_hitl permission listener failed")

    # -- state -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The mode and the ``session`` rules (``when`` functions are never saved)."""
        with self._lock:
            saved = [r.to_dict() for r in self._rules if r.scope == "session" and r.when is None]
        return {"mode": self._mode, "rules": saved}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore ``state_dict()`` output: the mode and the ``session`` rules (all checked
        first; on any error nothing changes)."""
        mode = state.get("mode", "ask")
        if mode not in MODES:
            raise ConfigError(f"Unknown permission mode {mode!r} in the saved state.")
        raw = state.get("rules", [])
        if not isinstance(raw, list):
            raise ConfigError("The saved permission rules must be a list.")
        rules = [PermissionRule.from_dict({**r, "scope": "session"}) for r in raw]
        for rule in rules:
            rule.source = "session"  # restored with the session
        if self._toolkit is not None:
            for rule in rules:
                rule.check(self._toolkit)
        with self._lock:
            self._mode = mode
            self._rules = [r for r in self._rules if r.scope != "session"] + rules
        self._changed()

    def snapshot(self) -> tuple[str, list[PermissionRule]]:
        """The mode and the agent's own rules, as they are (for an exact rollback)."""
        with self._lock:
            return self._mode, list(self._rules)

    def restore(self, snap: tuple[str, list[PermissionRule]]) -> None:
        """Put back a ``snapshot()``."""
        with self._lock:
            self._mode, self._rules = snap[0], list(snap[1])  # type: ignore[assignment]
        self._changed()

    def __repr__(self) -> str:
        return f"PermissionPolicy(mode={self._mode!r}, rules={len(self.rules)})"


def _fixed(path: Path, source: str) -> RulesFile:
    return RulesFile(lambda: path, source)


__all__ = [
    "CONFIG_ENV",
    "MODES",
    "MODE_TEXT",
    "AllowedTools",
    "Mode",
    "PermissionPolicy",
    "Verdict",
    "config_dir",
    "permissions_file",
]
