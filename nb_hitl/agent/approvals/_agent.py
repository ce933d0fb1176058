"""The agent's approval methods: each one line handing over to its ``ApprovalGate``.

``ReActAgent`` keeps AgentScope-style names (``approve``, ``deny``, ``pending_approvals``,
``permissions``...) and the session methods; the work is done by ``agent.approvals``.
``ApprovalMethods`` is not a base class: an agent that owns a gate names each method in its
own class body (``decide = ApprovalMethods.decide``) and registers itself
(``ApprovalMethods.register(ReActAgent)``), so ``isinstance(agent, ApprovalMethods)`` tells a
widget that the agent takes decisions, and ``agent: ApprovalMethods`` types it.
"""

from __future__ import annotations

import abc
import concurrent.futures
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl.exceptions import AgentBusyError, ApprovalError
from nb_hitl.message import Msg, ToolUseBlock

from ._hop import DEFAULT_TIMEOUT

if TYPE_CHECKING:  # the gate and its types load with the first agent (``ApprovalGate(agent)``)
    from nb_hitl.events import Handler, Subscription
    from nb_hitl.session import SessionInfo
    from nb_hitl.tool import Toolkit

    from ._ask_user import Answer
    from ._gate import ApprovalGate, DecisionWord
    from ._policy import AllowedTools, PermissionPolicy, Verdict
    from ._questions import PendingQuestion
    from ._rule import PermissionRule, Scope
    from ._state import Decision, PendingApproval


class GateOwner(Protocol):
    """What these methods use of the agent: its gate, whether it replies, a reply."""

    name: str

    @property
    def approvals(self) -> ApprovalGate: ...

    @property
    def is_replying(self) -> bool: ...

    async def __call__(self, *args: Any, **kwargs: Any) -> Msg: ...


class ApprovalMethods(abc.ABC):  # noqa: B024 (no abstract method: never a base, registered)
    """Tool approval, permissions, questions and sessions of an agent, by ``agent.approvals``.

    Each method takes ``self`` as a ``GateOwner``; an agent class lists the ones it offers in
    its body and registers with ``ApprovalMethods.register``.
    """

    if TYPE_CHECKING:  # what a widget holding ``agent: ApprovalMethods`` may use
        name: str
        approvals: ApprovalGate
        toolkit: Toolkit

        def subscribe(self, handler: Handler, *, max_pending: int = 10_000) -> Subscription: ...

        @property
        def is_replying(self) -> bool: ...

        async def __call__(self, *args: Any, **kwargs: Any) -> Msg: ...

    # -- permissions -------------------------------------------------------------------------
    @property
    def permissions(self: GateOwner) -> PermissionPolicy:
        """The permission policy: mode and rules deciding which calls run, wait or are refused."""
        return self.approvals.policy

    @permissions.setter
    def permissions(self: GateOwner, policy: PermissionPolicy | None) -> None:
        self.approvals.policy = policy

    @property
    def always_allowed(self: GateOwner) -> AllowedTools:
        """Tools allowed with any arguments for this session (``always_allow``): a live set
        of the policy's session rules (``add`` / ``discard`` add and revoke rules)."""
        return self.approvals.always_allowed

    @always_allowed.setter
    def always_allowed(self: GateOwner, names: Iterable[str]) -> None:
        self.approvals.set_always_allowed(names)

    def permission_verdict(self: GateOwner, call: ToolUseBlock) -> Verdict:
        """What the policy says about ``call`` (without using up a ``call``-scope rule)."""
        return self.approvals.verdict(call)

    def needs_approval(self: GateOwner, call: ToolUseBlock) -> bool:
        """Whether ``call`` must wait for a decision before it runs (the policy says ask)."""
        return self.approvals.verdict(call).behavior == "ask"

    # -- reading -----------------------------------------------------------------------------
    @property
    def pending_approvals(self: GateOwner) -> list[PendingApproval]:
        """The tool calls waiting for a decision, in the order the model asked for them."""
        return self.approvals.pending

    @property
    def is_waiting_for_approval(self: GateOwner) -> bool:
        """True while a reply is parked (on approvals or ``ask_user`` questions), or a loaded
        session holds parked calls."""
        return self.approvals.is_parked

    @property
    def approval_log(self: GateOwner) -> list[dict[str, Any]]:
        """Every decision so far (call, tool, decision, arguments, reason): widgets redraw
        decided cards from it, and sessions save it."""
        return self.approvals.log

    @approval_log.setter
    def approval_log(self: GateOwner, log: list[dict[str, Any]]) -> None:
        self.approvals.log = log

    # -- deciding (all through approvals.decide) ---------------------------------------------
    def decide(
        self: GateOwner,
        call_id: str,
        decision: DecisionWord,
        *,
        arguments: str | dict[str, Any] | None = None,
        reason: str = "",
        rule: Scope | PermissionRule | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Decision:
        """Decide a waiting call from any thread; returns the decision made.

        Args:
            call_id: the call (``agent.pending_approvals[i].call_id``).
            decision: ``approve``, ``edit`` (with ``arguments``) or ``deny`` (with ``reason``).
            arguments: edited arguments (a dict or JSON text), checked against the tool.
            reason: why (a denial's reason reaches the model).
            rule: also add a rule: a scope (``"reply"``, ``"session"``, ``"always"``) for the
                call's suggested rule (allow the tool's calls, or deny them when denying), or
                a ``PermissionRule`` of your own. Other waiting calls it covers are decided
                with it.
            timeout: off the agent's loop, how long to wait for the loop to take it.

        Raises:
            ApprovalError: unknown, closed or already decided call, bad arguments, or the
                loop did not take the decision in time. Nothing changes then.
        """
        return self.approvals.decide(
            call_id, decision, arguments=arguments, reason=reason, rule=rule, timeout=timeout
        )

    def decide_threadsafe(
        self: GateOwner, call_id: str, decision: DecisionWord, **kwargs: Any
    ) -> concurrent.futures.Future[Decision]:
        """``decide`` without waiting: the future holds the decision or the ``ApprovalError``."""
        return self.approvals.decide_threadsafe(call_id, decision, **kwargs)

    def approve(
        self: GateOwner, call_id: str, arguments: str | dict[str, Any] | None = None
    ) -> None:
        """Approve a waiting call, optionally with edited ``arguments`` (dict or JSON text).

        Raises:
            ApprovalError: unknown or closed call id, or arguments that are not a JSON object
                fitting the tool's schema. Nothing changes then.
        """
        self.approvals.approve(call_id, arguments)

    def deny(self: GateOwner, call_id: str, reason: str = "") -> None:
        """Deny a waiting call; the model receives ``"denied by the user: <reason>"``."""
        self.approvals.deny(call_id, reason)

    def allow_for_session(self: GateOwner, tool_name: str) -> None:
        """Stop asking about ``tool_name`` for this session (a ``session`` rule; the scope
        ``"always"`` is the settings file) and approve its waiting calls."""
        self.approvals.always_allow(tool_name)

    def approve_waiting(self: GateOwner) -> None:
        """Approve every call waiting now."""
        self.approvals.approve_all()

    def deny_waiting(self: GateOwner, reason: str = "") -> None:
        """Deny every call waiting now, with the same reason (the mode ``deny_all`` is what
        refuses all future calls)."""
        self.approvals.deny_all(reason)

    # The older names, kept: ``always_allow`` lasts only for the session, and ``deny_all``
    # decides only the waiting calls, which their names did not say.
    always_allow = allow_for_session
    approve_all = approve_waiting
    deny_all = deny_waiting

    def approve_threadsafe(
        self: GateOwner, call_id: str, arguments: str | dict[str, Any] | None = None
    ) -> concurrent.futures.Future[None]:
        """``approve`` from any thread without blocking; the future holds any ``ApprovalError``."""
        return self.approvals.approve_threadsafe(call_id, arguments)

    def deny_threadsafe(
        self: GateOwner, call_id: str, reason: str = ""
    ) -> concurrent.futures.Future[None]:
        """``deny`` from any thread without blocking."""
        return self.approvals.deny_threadsafe(call_id, reason)

    def allow_for_session_threadsafe(
        self: GateOwner, tool_name: str
    ) -> concurrent.futures.Future[None]:
        """``allow_for_session`` from any thread without blocking."""
        return self.approvals.always_allow_threadsafe(tool_name)

    always_allow_threadsafe = allow_for_session_threadsafe

    # -- questions ---------------------------------------------------------------------------
    @property
    def pending_questions(self: GateOwner) -> list[PendingQuestion]:
        """Questions waiting for an answer, oldest first."""
        return self.approvals.questions.pending

    @property
    def question_input(self: GateOwner) -> Any:
        """Also asked when the model asks questions: a ``UserAgent``, a ``UserInputBase``
        (``TerminalUserInput()``) or an input source (``QueueInput``, ``ScriptedInput``:
        their text is a JSON object of answers, or the answer to a single question)."""
        return self.approvals.questions.question_input

    @question_input.setter
    def question_input(self: GateOwner, source: Any) -> None:
        self.approvals.questions.question_input = source

    async def ask(self: GateOwner, questions: Any, *, call_id: str = "") -> dict[str, Answer]:
        """Ask the person ``questions`` and wait (parked) for the checked answers.

        Raises:
            ApprovalError: malformed questions (inside a tool call the model sees it as an
                error result).
        """
        return await self.approvals.questions.ask(questions, call_id=call_id)

    def answer(
        self: GateOwner, question_id: str, answers: Any, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """Answer waiting questions from any thread (once).

        ``answers`` maps each question (its text, header or 0-based index) to a choice's
        label, a list of labels (multi-select), ``{"other": "own words"}``, or any text for
        a question without options; a single question takes its answer alone.

        Raises:
            ApprovalError: unknown or already answered question, or an answer the question
                does not take (a choice it did not offer). Nothing changes then.
        """
        self.approvals.questions.answer(question_id, answers, timeout=timeout)

    # -- parked calls and state --------------------------------------------------------------
    async def resume_pending(self: GateOwner) -> Msg:
        """Continue a reply whose tool calls were parked when the session was saved.

        Decisions made since loading apply; calls still undecided park again (with their
        approval requests re-emitted, so a widget shows them). Equivalent to ``await agent()``.
        """
        if self.is_replying:
            raise AgentBusyError(self.name)
        if not self.approvals.has_parked_calls:
            raise ApprovalError(
                "Nothing to resume: no tool calls are parked. Send a message with "
                "`await agent(msg)` instead."
            )
        return await self()

    def approvals_state(self: GateOwner) -> dict[str, Any]:
        """JSON-able approval state: the allow-list and the parked calls with decisions."""
        return self.approvals.dump_state()

    def load_approvals_state(self: GateOwner, state: dict[str, Any]) -> None:
        """Restore ``approvals_state()`` output; validates everything before changing anything."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        self.approvals.load_state(state)

    # -- sessions ----------------------------------------------------------------------------
    def save_session(
        self: GateOwner, path: str | Path, *, transcript: dict[str, Any] | None = None
    ) -> Path:
        """Save this agent's session to ``path`` atomically (see ``nb_hitl.session``)."""
        from nb_hitl.session import save_session

        return save_session(self, path, transcript=transcript)

    def load_session(self: GateOwner, path: str | Path) -> SessionInfo:
        """Load a session saved by ``save_session``; on any error the agent is unchanged."""
        from nb_hitl.session import load_session

        return load_session(self, path)


__all__ = ["ApprovalMethods"]
