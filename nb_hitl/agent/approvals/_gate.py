"""ApprovalGate: the part of an agent that decides which tool calls run, and parks the rest.

Every ``ReActAgent`` owns one, ``agent.approvals``. It holds the permission policy (mode and
rules), the calls waiting for a person with their decisions, what a saved session brings
back (parked calls), the decision log, and the question inbox (``ask_user``).

A reply's calls go through ``park(calls)``: calls the policy allows pass; calls it denies get
their ``denied by policy`` result; calls it asks about wait, all the calls of one model turn
together, until every one is decided. Then the turn's calls run in the order the model gave.

**One decision path.** ``decide(call_id, "approve" | "edit" | "deny", ...)`` is the only way
a person's decision is applied; ``approve``, ``deny``, ``always_allow``, ``approve_all``,
``deny_all`` and their ``_threadsafe`` twins wrap it. Off the agent's loop a decision makes
one hop onto it (``_hop.run_on_loop``). Everything is checked before anything changes: an
unknown, closed or already decided call, bad arguments or a rule that cannot be added raise
``ApprovalError`` and change nothing. A call is decided once.

Parked calls survive a kernel restart: ``dump_state()`` records them with the decisions made
so far; after loading they are pending again, and the next reply to nothing resumes them
(``agent.resume_pending()``). Sending a new message instead closes them unrun.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from nb_hitl.events import (
    ApprovalDecided,
    ApprovalRequested,
    PermissionsChanged,
    ToolResultReady,
)
from nb_hitl.exceptions import ApprovalError, ConfigError, ToolError
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock

from ._callback import Allow, Ask, Deny, ToolContext, consult
from ._hop import DEFAULT_TIMEOUT, run_on_loop, submit
from ._policy import MODE_TEXT, MODES, AllowedTools, PermissionPolicy, Verdict
from ._questions import QuestionInbox
from ._rule import PermissionRule, Scope
from ._state import (
    CLOSED_MEMORY,
    DENIED_PREFIX,
    DISCARDED_RESULT,
    POLICY_DENIED_PREFIX,
    ApprovalState,
    Decision,
    DecisionKind,
    PendingApproval,
    Waiting,
    parse_arguments,
    parse_parked,
)

if TYPE_CHECKING:
    from ._host import GateHost

logger = logging.getLogger(__name__)

DecisionWord = Literal["approve", "approved", "edit", "edited", "deny", "denied"]
_WORDS = {"approved": "approve", "edited": "edit", "denied": "deny"}


class ApprovalGate:
    """Policy, waiting calls, decisions, saved state and questions of one agent.

    Args:
        host: the agent that owns the gate (see ``GateHost`` for what the gate uses of it).
    """

    def __init__(self, host: GateHost) -> None:
        self._host = host
        self._policy = PermissionPolicy()
        self._unwatch = self._policy.watch(self._policy_changed)
        self.state = ApprovalState()
        """Waiting, parked and recently closed calls (one object, swapped whole on load)."""
        self.log: list[dict[str, Any]] = []
        """Every decision so far (call, tool, decision, arguments, reason): widgets redraw
        decided cards from it, and sessions save it."""
        self.questions = QuestionInbox(host)
        """Questions (``ask_user``) waiting for the person."""

    # -- policy ------------------------------------------------------------------------------
    @property
    def policy(self) -> PermissionPolicy:
        """The permission policy, bound to the agent's current toolkit."""
        policy = self._policy
        toolkit = getattr(self._host, "toolkit", None)
        if toolkit is not None and policy._toolkit is not toolkit:
            policy.bind(toolkit)
        return policy

    @policy.setter
    def policy(self, policy: PermissionPolicy | None) -> None:
        policy = PermissionPolicy() if policy is None else policy
        if not isinstance(policy, PermissionPolicy):
            raise TypeError(f"permissions must be a PermissionPolicy, got {policy!r}.")
        toolkit = getattr(self._host, "toolkit", None)
        if toolkit is not None:
            policy.bind(toolkit)  # ConfigError for a rule that can match nothing
        self._unwatch()
        self._policy = policy
        self._unwatch = policy.watch(self._policy_changed)
        self._policy_changed()

    def permissions_view(self) -> dict[str, Any]:
        """What a panel shows of the policy: ``mode``, ``mode_text``, ``modes``, ``rules``
        (each ``rule.view()``, with its source) and ``file_error``."""
        policy = self.policy
        toolkit = getattr(self._host, "toolkit", None)
        return {
            "mode": policy.mode,
            "mode_text": MODE_TEXT[policy.mode],
            "modes": list(MODES),
            "rules": [r.view(toolkit) for r in policy.rules],
            "file_error": policy.file_error,
        }

    def _policy_changed(self) -> None:
        """Tell every view of the policy (``PermissionsChanged``)."""
        host = self._host
        if not hasattr(host, "name") or not host._listened():  # being built, or no view
            return
        view = self.permissions_view()
        host._emit(
            PermissionsChanged(
                host.name,
                host._reply_id,
                view["mode"],
                tuple(view["rules"]),
                view["file_error"],
            )
        )

    @property
    def always_allowed(self) -> AllowedTools:
        """Tools allowed with any arguments for this session: a live set of session rules."""
        return AllowedTools(self.policy)

    def set_always_allowed(self, names: Iterable[str]) -> None:
        """Make the session's allowed tools exactly ``names``."""
        allowed = self.always_allowed
        wanted = set(names)
        for name in set(allowed) - wanted:
            allowed.discard(name)
        for name in sorted(wanted - set(allowed)):
            allowed.add(name)

    def policy_snapshot(self) -> tuple[str, list[PermissionRule]]:
        """The policy's mode and own rules as they are (for an exact rollback)."""
        return self._policy.snapshot()

    def restore_policy(self, snap: tuple[str, list[PermissionRule]]) -> None:
        """Put back a ``policy_snapshot()``."""
        self._policy.restore(snap)

    def snapshot(self) -> tuple[ApprovalState, tuple[str, list[PermissionRule]], list[Any]]:
        """Everything a session load may change, as it is now (``restore`` puts it back:
        ``nb_hitl.session``'s all-or-nothing load). The state is swapped whole on load, so
        the object itself is kept."""
        return self.state, self.policy_snapshot(), list(self.log)

    def restore(
        self, snap: tuple[ApprovalState, tuple[str, list[PermissionRule]], list[Any]]
    ) -> None:
        """Put back a ``snapshot()``."""
        self.state, policy, self.log = snap
        self.restore_policy(policy)

    def verdict(self, call: ToolUseBlock, *, peek: bool = True) -> Verdict:
        """What the policy says about ``call`` (``peek``: without using up a ``call`` rule)."""
        toolkit = self._host.toolkit
        tool = toolkit.tools.get(call.name)
        if tool is None:
            return Verdict("allow", "unknown tool: it fails with an error without running")
        try:
            toolkit.validate_call(call)
        except ToolError:
            return Verdict("allow", "invalid arguments: it fails with an error without running")
        return self.policy.verdict(tool, call, peek=peek)

    # -- reading -----------------------------------------------------------------------------
    @property
    def pending(self) -> list[PendingApproval]:
        """The calls waiting for a decision, in the order the model asked for them."""
        return [
            PendingApproval(
                w.call.id,
                w.call.name,
                dict(w.call.input),
                w.call,
                w.reason,
                self._suggestion(w.call),
                w.asked_at,
            )
            for w in self.state.waiting.values()
            if w.decision is None
        ]

    def _suggestion(self, call: ToolUseBlock) -> PermissionRule | None:
        """The narrowest rule covering ``call`` ("Allow similar"); ``None`` for a tool that
        always asks (no rule can allow it) or a name no rule can hold."""
        tool = self._host.toolkit.tools.get(call.name)
        if tool is not None and tool.always_ask:
            return None
        try:
            return self._policy.suggest(call.name, call.input)
        except ConfigError:
            return None

    @property
    def is_parked(self) -> bool:
        """True while a reply waits on approvals or questions, or a loaded session holds
        parked calls."""
        return self.is_parked_live or bool(self.state.parked)

    @property
    def is_parked_live(self) -> bool:
        """True while a running reply waits on approvals or questions."""
        decided = self.state.all_decided
        return bool(self.questions) or (decided is not None and not decided.done())

    @property
    def has_parked_calls(self) -> bool:
        """True when a loaded session holds calls the next reply resumes."""
        return bool(self.state.parked)

    # -- deciding: the one path --------------------------------------------------------------
    def decide(
        self,
        call_id: str,
        decision: DecisionWord,
        *,
        arguments: str | dict[str, Any] | None = None,
        reason: str = "",
        rule: Scope | PermissionRule | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Decision:
        """Decide a waiting call from any thread; returns the decision made (see
        ``agent.decide``)."""
        return run_on_loop(
            self._host._loop,
            lambda: self._decide(call_id, decision, arguments, reason, rule),
            timeout,
        )

    def decide_threadsafe(
        self,
        call_id: str,
        decision: DecisionWord,
        *,
        arguments: str | dict[str, Any] | None = None,
        reason: str = "",
        rule: Scope | PermissionRule | None = None,
    ) -> concurrent.futures.Future[Decision]:
        """``decide`` without waiting: the future holds the decision or the ``ApprovalError``."""
        return submit(
            self._host._loop, lambda: self._decide(call_id, decision, arguments, reason, rule)
        )

    def approve(self, call_id: str, arguments: str | dict[str, Any] | None = None) -> None:
        """``decide(call_id, "approve")``, or ``"edit"`` when ``arguments`` are given."""
        self.decide(call_id, "approve" if arguments is None else "edit", arguments=arguments)

    def deny(self, call_id: str, reason: str = "") -> None:
        """``decide(call_id, "deny", reason=reason)``."""
        self.decide(call_id, "deny", reason=reason)

    def always_allow(self, tool_name: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Allow ``tool_name`` for the session and approve its waiting calls."""
        run_on_loop(self._host._loop, lambda: self._always_allow(tool_name), timeout)

    def approve_all(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Approve every waiting call."""
        run_on_loop(self._host._loop, lambda: self._decide_all("approve", ""), timeout)

    def deny_all(self, reason: str = "", timeout: float = DEFAULT_TIMEOUT) -> None:
        """Deny every waiting call with the same reason."""
        run_on_loop(self._host._loop, lambda: self._decide_all("deny", reason), timeout)

    def approve_threadsafe(
        self, call_id: str, arguments: str | dict[str, Any] | None = None
    ) -> concurrent.futures.Future[None]:
        """``approve`` from any thread without blocking; the future holds any error."""
        word = "approve" if arguments is None else "edit"
        return submit(self._host._loop, lambda: self._decided(call_id, word, arguments, "", None))

    def deny_threadsafe(self, call_id: str, reason: str = "") -> concurrent.futures.Future[None]:
        """``deny`` from any thread without blocking; the future holds any error."""
        return submit(self._host._loop, lambda: self._decided(call_id, "deny", None, reason, None))

    def always_allow_threadsafe(self, tool_name: str) -> concurrent.futures.Future[None]:
        """``always_allow`` from any thread without blocking."""
        return submit(self._host._loop, lambda: self._always_allow(tool_name))

    def _decide(
        self,
        call_id: str,
        decision: str,
        arguments: str | dict[str, Any] | None,
        reason: str,
        rule: Scope | PermissionRule | None,
    ) -> Decision:
        """Check a decision whole, then apply it (on the agent's loop)."""
        word = _WORDS.get(decision, decision)
        if word not in ("approve", "edit", "deny"):
            raise ApprovalError(
                f"A decision is 'approve', 'edit' or 'deny', got {decision!r}.", call_id=call_id
            )
        waiting = self._undecided(call_id)
        if word == "edit" and arguments is None:
            raise ApprovalError("'edit' needs arguments=...; nothing was changed.", call_id=call_id)
        made = (
            self._denial(reason)
            if word == "deny"
            else self._approval(waiting, arguments if word == "edit" else None)
        )
        new_rule = self._decision_rule(waiting, word, made, rule)
        if new_rule is not None:
            try:  # the rule first: if it cannot be added (or saved), nothing is decided
                new_rule.check(self._host.toolkit)
                self.policy.add(new_rule)
            except ConfigError as exc:
                raise ApprovalError(
                    f"{exc} The call was not decided; nothing was changed.", call_id=call_id
                ) from None
        self._resolve(waiting, made)
        if new_rule is not None:
            self._apply_rule(new_rule)
        return made

    def _decision_rule(
        self,
        waiting: Waiting,
        word: str,
        made: Decision,
        rule: Scope | PermissionRule | None,
    ) -> PermissionRule | None:
        """The rule a decision adds: a scope word gives the call's suggested (narrowest) rule
        for what runs (the edited arguments, if edited), denying when the decision denies; a
        ``PermissionRule`` is taken as it is. An allow rule for a tool that always asks is
        refused: only a decision on each call runs it."""
        if rule is None:
            return None
        call = waiting.call
        tool = self._host.toolkit.tools.get(call.name)
        if isinstance(rule, PermissionRule):
            new_rule = rule
        else:
            if rule not in ("reply", "session", "always"):
                raise ApprovalError(
                    f"rule= takes 'reply', 'session', 'always' or a PermissionRule, got "
                    f"{rule!r}; nothing was changed.",
                    call_id=call.id,
                )
            arguments = made.arguments if made.arguments is not None else call.input
            try:
                new_rule = self.policy.suggest(call.name, arguments, scope=rule)
            except ConfigError as exc:  # a name no rule can hold
                raise ApprovalError(
                    f"{exc} The call was not decided; nothing was changed.", call_id=call.id
                ) from None
            if word == "deny":
                new_rule.behavior = "deny"
        if new_rule.behavior == "allow" and tool is not None and tool.always_ask:
            raise ApprovalError(
                f"`{call.name}` always asks a person: no rule can allow its calls. Approve "
                "this call without a rule; nothing was changed.",
                call_id=call.id,
            )
        if new_rule.source == "code":
            new_rule.source = "session"  # made by a decision
        return new_rule

    def _decided(self, *args: Any) -> None:
        self._decide(*args)  # the ``_threadsafe`` twins' futures hold None, as they always did

    def _approval(self, waiting: Waiting, arguments: str | dict[str, Any] | None) -> Decision:
        """The approval of ``waiting`` (with checked edited arguments), not applied yet."""
        if arguments is None:
            return Decision("approved")
        args = parse_arguments(arguments)
        edited = waiting.call.model_copy(update={"input": args, "raw_input": None})
        try:
            self._host.toolkit.validate_call(edited)
        except ToolError as exc:
            raise ApprovalError(
                f"{exc} Fix the arguments and approve again.", call_id=waiting.call.id
            ) from None
        kind: DecisionKind = "approved" if args == waiting.call.input else "edited"
        if kind == "edited":
            refused = self._refusal(edited)
            if refused:
                raise ApprovalError(
                    f"The edited call is refused ({refused}); edit it differently or deny it. "
                    "Nothing was changed.",
                    call_id=waiting.call.id,
                )
        return Decision(kind, args if kind == "edited" else None)

    def _refusal(self, call: ToolUseBlock) -> str:
        """Why a deny rule or a deny mode refuses ``call`` (``""`` if none does): edited or
        rewritten arguments never get around a deny."""
        verdict = self.verdict(call)
        if verdict.behavior == "deny" and not verdict.reason.startswith("mode dont_ask"):
            return verdict.reason
        return ""

    @staticmethod
    def _denial(reason: str) -> Decision:
        return Decision("denied", reason=str(reason or "").strip())

    def _decide_all(self, word: Literal["approve", "deny"], reason: str) -> None:
        for pending in self.pending:
            self._decide(pending.call_id, word, None, reason, None)

    def _always_allow(self, tool_name: str) -> None:
        toolkit = self._host.toolkit
        if tool_name not in toolkit.tools:
            known = ", ".join(sorted(toolkit.tools)) or "none"
            raise ApprovalError(f"No tool named {tool_name!r} is registered (tools: {known}).")
        if tool_name not in self.always_allowed:
            made = PermissionRule("allow", tool_name, scope="session", source="session")
            self.policy.add(made)
        for w in list(self.state.waiting.values()):
            if w.call.name == tool_name and w.decision is None:
                self._resolve(w, Decision("approved", reason="always allowed"))

    def _apply_rule(self, rule: PermissionRule) -> None:
        """Decide the other waiting calls a new rule covers."""
        for w in list(self.state.waiting.values()):
            tool = self._host.toolkit.tools.get(w.call.name)
            if w.decision is None and rule.matches(w.call.name, w.call.input, tool):
                if rule.behavior == "allow":
                    self._resolve(w, Decision("approved", reason=f"rule: {rule.describe()}"))
                elif rule.behavior == "deny":
                    self._resolve(w, Decision("denied", reason=f"rule: {rule.describe()}"))

    def _undecided(self, call_id: str) -> Waiting:
        st = self.state
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
        open_ids = ", ".join(repr(p.call_id) for p in self.pending) or "none"
        raise ApprovalError(
            f"No tool call {call_id!r} is waiting for approval (waiting: {open_ids}). "
            "See agent.pending_approvals.",
            call_id=call_id,
        )

    def _resolve(self, waiting: Waiting, decision: Decision) -> None:
        """Record ``decision`` on ``waiting``, announce it, wake the parked reply when the
        turn is fully decided."""
        waiting.decision = decision
        self._announce(waiting.call, decision.kind, decision.arguments, decision.reason)
        fut = self.state.all_decided
        if fut is not None and not fut.done() and not self.pending:
            fut.set_result(None)

    def _announce(
        self,
        call: ToolUseBlock,
        decision: str,
        arguments: dict[str, Any] | None = None,
        reason: str = "",
    ) -> None:
        self.log.append(
            {
                "call_id": call.id,
                "tool_name": call.name,
                "input": call.input,
                "decision": decision,
                "arguments": arguments,
                "reason": reason,
            }
        )
        del self.log[:-CLOSED_MEMORY]
        host = self._host
        host._emit(
            ApprovalDecided(
                host.name, host._reply_id, call.id, call.name, decision, arguments, reason
            )
        )

    def _close(self, call: ToolUseBlock, how: str, decision: Decision | None = None) -> None:
        closed = self.state.closed
        closed[call.id] = how
        while len(closed) > CLOSED_MEMORY:
            del closed[next(iter(closed))]
        if decision is not None:
            decided = self.state.decided
            decided[call.id] = decision
            while len(decided) > CLOSED_MEMORY:
                del decided[next(iter(decided))]

    # -- parking (called by the reply) -------------------------------------------------------
    async def park(self, calls: list[ToolUseBlock]) -> list[ToolUseBlock]:
        """Park until every call of this turn that needs approval is decided.

        Denied calls get their result here; the calls to run (approved ones with their edited
        arguments) are returned in the model's order.
        """
        host, st = self._host, self.state
        interrupt = False
        for call in calls:
            if call.id in st.waiting:
                continue
            verdict = self.verdict(call, peek=False)
            reason = verdict.reason
            if verdict.behavior == "ask" and self._policy.can_use_tool is not None:
                outcome = await self._consult(call, verdict)
                if isinstance(outcome, Deny):
                    verdict = Verdict("deny", outcome.message or "can_use_tool refused it")
                    interrupt = interrupt or outcome.interrupt
                elif isinstance(outcome, Allow):
                    if outcome.updated_arguments is not None:
                        rewrite = Decision("edited", outcome.updated_arguments, by="policy")
                        st.waiting[call.id] = Waiting(call, rewrite, reason="can_use_tool")
                    continue
                reason = outcome.reason or reason if isinstance(outcome, Ask) else reason
            if verdict.behavior == "ask":
                st.waiting[call.id] = Waiting(call, reason=reason)
            elif verdict.behavior == "deny":
                denied = Decision("denied", reason=verdict.reason, by="policy")
                st.waiting[call.id] = Waiting(call, denied, reason=verdict.reason)
                self._announce(call, "denied", None, verdict.reason)
        if interrupt:
            host.interrupt_nowait(cause="permission")
        gated = [st.waiting[c.id] for c in calls if c.id in st.waiting]
        if not gated:
            return calls
        undecided = [w for w in gated if w.decision is None]
        if undecided:
            host._where = "waiting for approval: " + ", ".join(w.call.name for w in undecided)
            st.all_decided = asyncio.get_running_loop().create_future()
            for w in undecided:
                host._emit(ApprovalRequested(host.name, host._reply_id, w.call))
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
                await host._commit_result(
                    call, ToolResultBlock(id=call.id, name=call.name, output=prefix + reason)
                )
            elif decision.kind == "edited" and decision.arguments is not None:
                edited = call.model_copy(update={"input": decision.arguments, "raw_input": None})
                self._record_edit(call, edited)
                host._open_calls[call.id] = edited
                runnable.append(edited)
            else:
                runnable.append(call)
        return runnable

    async def _consult(self, call: ToolUseBlock, verdict: Verdict) -> Allow | Deny | Ask:
        """Ask the policy's ``can_use_tool`` about a call that would wait for a person."""
        policy = self._policy
        assert policy.can_use_tool is not None
        tool = self._host.toolkit.tools[call.name]
        context = ToolContext(self._host.name, call, verdict.reason, self._suggestion(call))
        outcome = await consult(policy.can_use_tool, tool, call, context)
        if isinstance(outcome, Allow) and tool.always_ask:
            return Ask(f"`{tool.name}` insists on a person")
        if isinstance(outcome, Allow) and outcome.updated_arguments is not None:
            rewritten = call.model_copy(
                update={"input": outcome.updated_arguments, "raw_input": None}
            )
            try:
                self._host.toolkit.validate_call(rewritten)
            except ToolError as exc:
                logger.error("can_use_tool rewrote %s badly (%s); a person decides", call.id, exc)
                return Ask(f"can_use_tool rewrote the arguments badly: {exc}")
            refused = self._refusal(rewritten)
            if refused:
                return Deny(f"can_use_tool rewrote the call into one that is refused: {refused}")
        return outcome

    def _record_edit(self, old: ToolUseBlock, new: ToolUseBlock) -> None:
        """Make memory say what really ran: the edited call, with the original kept aside."""
        memory = self._host.memory
        if memory is None:
            return
        for msg in reversed(memory.messages):
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
            memory.replace(copy)
            return

    def start_reply(self, msg: Msg | list[Msg] | None) -> list[ToolUseBlock]:
        """A reply starts: its ``reply`` rules begin; calls parked in a loaded session are
        returned to be resumed (a reply to nothing), or closed unrun (a new message),
        synchronously, since ``agent(msg)`` records the new message right after."""
        host, st = self._host, self.state
        self._policy.start_reply(host._reply_id)
        parked, st.parked = st.parked, []
        for call in parked:
            host._open_calls[call.id] = call
        if not parked or not msg:
            host._where = "resuming parked tool calls" if parked else host._where
            return parked
        for call in parked:
            if st.waiting.pop(call.id, None) is not None:
                self._close(call, "discarded because a new message was sent")
                self._announce(call, "discarded")
            host._open_calls.pop(call.id, None)
            block = ToolResultBlock(
                id=call.id, name=call.name, output=DISCARDED_RESULT, is_interrupted=True
            )
            host._commit_sync(Msg("system", [block], "system"))
            host._emit(ToolResultReady(host.name, host._reply_id, block))
        return []

    def end_reply(self, reply_id: str | None) -> None:
        """A reply ended: its ``reply``-scope rules are gone."""
        self._policy.end_reply(reply_id)

    def repark(self, calls: list[ToolUseBlock]) -> None:
        """Keep ``calls`` parked (a resumed reply interrupted before it reached them)."""
        self.state.parked = list(calls)

    # -- state ------------------------------------------------------------------------------
    def _parked_calls(self) -> list[ToolUseBlock]:
        st = self.state
        if st.parked:
            return list(st.parked)
        if self.is_parked_live:  # a question's tool call runs again from its start on resume
            return list(self._host._open_calls.values())
        return []

    # Not ``state_dict``: the agent saves the gate's state itself, after its memory (loading
    # checks parked calls against memory), so the gate must not look like a nested module.
    def dump_state(self) -> dict[str, Any]:
        """JSON-able approval state: the allow-list and the parked calls with decisions."""
        st = self.state
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
            "permissions": self._policy.state_dict(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore ``dump_state()`` output; validates everything before changing anything."""
        host = self._host
        messages = host.memory.messages if host.memory is not None else []
        allowed, approvals = parse_parked(state, host.toolkit, messages)
        policy = self.policy
        saved = state.get("permissions")
        before = policy.state_dict()
        policy.load_state_dict(saved if isinstance(saved, dict) else {"mode": policy.mode})
        try:
            self.set_always_allowed(allowed | set(self.always_allowed))
        except ValueError:
            policy.load_state_dict(before)
            raise
        self.state = approvals


__all__ = ["DEFAULT_TIMEOUT", "ApprovalGate", "DecisionWord"]
