"""PermissionPolicy: which tool calls run, which wait for a person, which are refused.

Every ``ReActAgent`` has one (``agent.permissions``). A call is decided in this order:

1. **deny** rules, then **ask** rules, then **allow** rules: the first rule of each kind that
   covers the call decides (rules are ordered; ``always`` rules from the user's file come
   after the agent's own);
2. otherwise the **mode**:

   - ``ask`` (the default): a call waits when its tool says so (``needs_approval=True`` or a
     predicate registered with the tool); other calls run;
   - ``allow_reads``: calls of read-only tools (registered with ``read_only=True``) run;
     every other call waits for a person;
   - ``allow_all``: every call runs without asking;
   - ``deny_all``: no call runs; the model is told "denied by policy".

A denied call never runs: the model receives ``"denied by policy: <why>"`` as its result. The
rules of the ``always`` scope live in ``permissions_file()`` (``permissions.json`` under the
user's config directory, or under ``$NB_HITL_CONFIG_DIR`` when that is set): a JSON list the
user can open, edit and delete.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.exceptions import ConfigError

from ._file import CONFIG_ENV, UserRules, config_dir, permissions_file
from ._rule import SCOPES, Behavior, PermissionRule, Scope

if TYPE_CHECKING:
    from nb_hitl.message import ToolUseBlock
    from nb_hitl.tool import RegisteredTool, Toolkit

logger = logging.getLogger(__name__)

Mode = Literal["ask", "allow_reads", "allow_all", "deny_all"]
MODES: tuple[str, ...] = ("ask", "allow_reads", "allow_all", "deny_all")
MODE_TEXT = {
    "ask": "ask when a tool needs approval",
    "allow_reads": "reads run, everything else asks",
    "allow_all": "every call runs without asking",
    "deny_all": "no tool call runs",
}


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
            if r.behavior == "allow" and r.scope == "session" and not r.args and r.when is None
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
        mode: ``ask`` (default), ``allow_reads``, ``allow_all`` or ``deny_all``.
        rules: the agent's own rules, in order (``always`` rules given here are written to
            the user's file).
        user_rules: read the ``always`` rules of the user's ``permissions.json``.

    Raises:
        ConfigError: an unknown mode, or a rule that is not a ``PermissionRule``.
    """

    def __init__(
        self,
        mode: Mode = "ask",
        rules: Iterable[PermissionRule] = (),
        *,
        user_rules: bool = True,
    ) -> None:
        self._lock = threading.RLock()
        self._mode: Mode = "ask"
        self.mode = mode
        self._rules: list[PermissionRule] = []
        self._user = UserRules() if user_rules else None
        self._toolkit: Toolkit | None = None
        self._listeners: list[Callable[[], None]] = []
        self._reply_id: str | None = None
        for rule in rules:
            self.add(rule)

    # -- mode --------------------------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        """``ask``, ``allow_reads``, ``allow_all`` or ``deny_all``."""
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        if mode not in MODES:
            raise ConfigError(
                f"The permission mode must be 'ask', 'allow_reads', 'allow_all' or 'deny_all', "
                f"got {mode!r}."
            )
        self._mode = mode
        self._changed()

    # -- rules -------------------------------------------------------------------------------
    @property
    def rules(self) -> list[PermissionRule]:
        """The active rules in the order they are tried: the agent's, then the user's file."""
        with self._lock:
            own = [r for r in self._rules if self._live(r)]
        return own + self._always()

    def _always(self) -> list[PermissionRule]:
        if self._user is None:
            return []
        rules = self._user.load()
        if self._toolkit is None:
            return rules
        return [r for r in rules if any(r.covers_tool(n) for n in self._toolkit.tools)]

    @property
    def file_error(self) -> str:
        """Why the user's ``permissions.json`` cannot be read (``""`` when it can)."""
        if self._user is None:
            return ""
        self._user.load()
        return self._user.error

    def add(self, rule: PermissionRule) -> PermissionRule:
        """Add ``rule`` after the others (``always`` rules go to the user's file).

        Raises:
            ConfigError: the rule can match no call of the agent's tools.
        """
        if not isinstance(rule, PermissionRule):
            raise ConfigError(
                f"Permission rules must be PermissionRule objects (or use policy.allow(...)), "
                f"got {rule!r}."
            )
        if self._toolkit is not None:
            rule.check(self._toolkit)
        if rule.scope == "always":
            if self._user is None:
                raise ConfigError(
                    "This policy does not use the user's permissions file "
                    "(user_rules=False): give the rule scope 'session' instead."
                )
            with self._lock:
                saved = [r for r in self._user.load() if r.id != rule.id]
                self._user.write([*saved, rule])
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
    ) -> PermissionRule:
        """Add a rule that lets the calls it covers run without asking."""
        return self.add(PermissionRule("allow", tool, args or {}, when, scope, note))

    def deny(
        self,
        tool: str,
        args: Mapping[str, str] | None = None,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        scope: Scope = "session",
        note: str = "",
    ) -> PermissionRule:
        """Add a rule that refuses the calls it covers (the model is told why)."""
        return self.add(PermissionRule("deny", tool, args or {}, when, scope, note))

    def ask(
        self,
        tool: str,
        args: Mapping[str, str] | None = None,
        *,
        when: Callable[[dict[str, Any]], bool] | None = None,
        scope: Scope = "session",
        note: str = "",
    ) -> PermissionRule:
        """Add a rule that makes the calls it covers wait for a person."""
        return self.add(PermissionRule("ask", tool, args or {}, when, scope, note))

    def revoke(self, rule_id: str) -> PermissionRule:
        """Remove the rule with id ``rule_id`` (from the user's file too for ``always``).

        Raises:
            ConfigError: no active rule has that id; nothing changes.
        """
        with self._lock:
            for rule in self._rules:
                if rule.id == rule_id:
                    self._rules.remove(rule)
                    break
            else:
                saved = self._user.load() if self._user is not None else []
                found = [r for r in saved if r.id == rule_id]
                if not found or self._user is None:
                    ids = ", ".join(repr(r.id) for r in self.rules) or "none"
                    raise ConfigError(
                        f"No permission rule has id {rule_id!r} (rules: {ids}); see policy.rules."
                    ) from None
                rule = found[0]
                self._user.write([r for r in saved if r.id != rule_id])
        self._changed()
        return rule

    def clear(self, scope: Scope | None = None) -> None:
        """Remove the agent's own rules (of one ``scope``, or all but ``always``)."""
        if scope is not None and scope not in SCOPES:
            raise ConfigError(f"Unknown scope {scope!r}; use one of {', '.join(SCOPES)}.")
        if scope == "always":
            if self._user is not None:
                self._user.write([])
        else:
            with self._lock:
                self._rules = [r for r in self._rules if scope is not None and r.scope != scope]
        self._changed()

    # -- deciding ----------------------------------------------------------------------------
    def verdict(self, tool: RegisteredTool, call: ToolUseBlock, *, peek: bool = False) -> Verdict:
        """Decide ``call`` of ``tool``; a ``call``-scope rule that decides it is used up
        (unless ``peek``)."""
        arguments = call.input
        rules = self.rules
        if self._user is not None and self._user.error:
            return Verdict("ask", self._user.error)
        for behavior in ("deny", "ask", "allow"):
            for rule in rules:
                if rule.behavior == behavior and rule.matches(tool.name, arguments):
                    if rule.scope == "call" and not peek:
                        with self._lock:
                            if rule in self._rules:
                                self._rules.remove(rule)
                        self._changed()
                    return Verdict(rule.behavior, f"rule: {rule.describe()}", rule)
        mode = self._mode
        if mode == "allow_all":
            return Verdict("allow", "mode allow_all")
        if mode == "deny_all":
            return Verdict("deny", "mode deny_all: no tool call runs")
        if mode == "allow_reads" and tool.read_only:
            return Verdict("allow", "mode allow_reads: a read-only tool")
        if mode == "allow_reads":
            return Verdict("ask", "mode allow_reads: not a read-only tool")
        try:
            asks = tool.requires_approval(call)
        except Exception:  # a failing predicate must never let a call through unasked
            logger.warning(
                "needs_approval predicate of %s failed; the call asks", tool.name, exc_info=True
            )
            asks = True
        return Verdict("ask", "the tool needs approval") if asks else Verdict("allow", "mode ask")

    def suggest(
        self, tool_name: str, arguments: Mapping[str, Any], scope: Scope = "session"
    ) -> PermissionRule:
        """The rule that would let calls like this one run: any arguments of the same tool."""
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
