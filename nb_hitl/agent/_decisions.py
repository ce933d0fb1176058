"""Decisions from anywhere: ``decide(call_id, ...)``, questions (``ask_user``) and their answers.

``agent.decide(call_id, "approve" | "deny" | "edit", ...)`` works from any thread: off the
agent's event loop it hops onto it (``loop.call_soon_threadsafe``) and waits up to ``timeout``
seconds; if the loop does not take the decision in time, the hop is withdrawn and nothing
changes. A call is decided once: a second decision is refused with ``ApprovalError("... already
decided: approved at 10:21:03 UTC ...")`` and never runs the tool again. Unknown or closed
call ids are refused the same way, with nothing changed.

Questions (``ask_user``) park the reply in the same way: ``agent.pending_questions`` lists
them, ``agent.answer(question_id, answers)`` answers (from any thread, once), and the agent's
``question_input`` (a ``UserAgent``, a ``UserInputBase`` such as ``TerminalUserInput()``, or
an input source such as ``QueueInput``) is asked at the same time: whichever answers first wins.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from nb_hitl.events import QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg

from ._approval import ToolApprovalMixin
from ._approval_state import Decision, clock, loop_if_running, on_thread_of, submit
from ._ask_user import (
    Answer,
    Question,
    answers_model,
    check_answers,
    parse_questions,
    typed_answer,
)
from ._permission_rule import Behavior, PermissionRule, Scope

DecisionWord = Literal["approve", "approved", "edit", "edited", "deny", "denied"]
DEFAULT_TIMEOUT = 10.0


@dataclass
class PendingQuestion:
    """Questions waiting for the person's answers (an ``ask_user`` call)."""

    question_id: str
    """Pass it to ``agent.answer``."""
    questions: list[Question]
    """What is asked."""
    call_id: str = ""
    """The tool call that asks (the model's ``ask_user`` call, or the tool that called it)."""
    asked_at: float = field(default_factory=time.time)
    """When it was asked."""
    future: asyncio.Future[dict[str, Answer]] | None = field(default=None, repr=False)


class DecisionsMixin(ToolApprovalMixin):
    """``decide`` from any thread, questions and answers (mixed into ``ReActAgent``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._questions: dict[str, PendingQuestion] = {}
        self._answered: dict[str, tuple[dict[str, Answer], float]] = {}
        self.question_input: Any = None
        """Also asked when the model asks questions: a ``UserAgent``, a ``UserInputBase``
        (``TerminalUserInput()``) or an input source (``QueueInput``, ``ScriptedInput``:
        their text is a JSON object of answers, or the answer to a single question)."""

    # -- approvals ---------------------------------------------------------------------------
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
        return self._hop(lambda: self._decide(call_id, decision, arguments, reason, rule), timeout)

    def decide_threadsafe(
        self, call_id: str, decision: DecisionWord, **kwargs: Any
    ) -> concurrent.futures.Future[Decision]:
        """``decide`` without waiting: the future holds the decision or the ``ApprovalError``."""
        out: concurrent.futures.Future[Decision] = concurrent.futures.Future()

        def run() -> None:
            try:
                out.set_result(
                    self._decide(
                        call_id,
                        decision,
                        kwargs.get("arguments"),
                        kwargs.get("reason", ""),
                        kwargs.get("rule"),
                    )
                )
            except BaseException as exc:
                out.set_exception(exc)

        submit(self._loop, run)
        return out

    def _decide(
        self,
        call_id: str,
        decision: str,
        arguments: str | dict[str, Any] | None,
        reason: str,
        rule: Scope | PermissionRule | None,
    ) -> Decision:
        word = {"approved": "approve", "edited": "edit", "denied": "deny"}.get(decision, decision)
        if word not in ("approve", "edit", "deny"):
            raise ApprovalError(
                f"A decision is 'approve', 'edit' or 'deny', got {decision!r}.", call_id=call_id
            )
        waiting = self._undecided(call_id)
        if word == "edit" and arguments is None:
            raise ApprovalError("'edit' needs arguments=...; nothing was changed.", call_id=call_id)
        new_rule: PermissionRule | None = None
        if isinstance(rule, PermissionRule):
            new_rule = rule
        elif rule is not None:
            behavior: Behavior = "deny" if word == "deny" else "allow"
            new_rule = PermissionRule(behavior, waiting.call.name, scope=rule)
        if new_rule is not None:
            new_rule.check(self.toolkit)  # before anything changes
        if word == "deny":
            self._deny(call_id, reason)
        else:
            self._approve(call_id, arguments if word == "edit" else None)
        if new_rule is not None:
            self.permissions.add(new_rule)
            self._apply_rule(new_rule)
        decided = self._approvals.waiting[call_id].decision
        assert decided is not None
        return decided

    def _apply_rule(self, rule: PermissionRule) -> None:
        """Decide the other waiting calls a new rule covers."""
        for w in list(self._approvals.waiting.values()):
            if w.decision is None and rule.matches(w.call.name, w.call.input):
                if rule.behavior == "allow":
                    self._set_decision(w, Decision("approved", reason=f"rule: {rule.describe()}"))
                elif rule.behavior == "deny":
                    self._set_decision(w, Decision("denied", reason=f"rule: {rule.describe()}"))

    def _hop(self, fn: Callable[[], Any], timeout: float) -> Any:
        """Run ``fn`` on the agent's loop and return its result (see ``decide``)."""
        loop = loop_if_running(self._loop)
        if loop is None or on_thread_of(loop):
            return fn()
        box: list[Any] = []
        fut = submit(loop, lambda: box.append(fn()))
        try:
            fut.result(timeout)
        except concurrent.futures.TimeoutError:
            if fut.cancel():  # not taken yet: withdrawn, so it never applies
                raise ApprovalError(
                    f"The agent's event loop did not take the decision within {timeout} s "
                    "(is a cell blocking it?); nothing was changed. Try again."
                ) from None
            fut.result()  # it is being applied right now: wait for it
        return box[0]

    # -- questions ---------------------------------------------------------------------------
    @property
    def pending_questions(self) -> list[PendingQuestion]:
        """Questions waiting for an answer, oldest first."""
        return list(self._questions.values())

    async def ask(self, questions: Any, *, call_id: str = "") -> dict[str, Answer]:
        """Ask the person ``questions`` and wait (parked) for the checked answers.

        Raises:
            ApprovalError: malformed questions (inside a tool call the model sees it as an
                error result).
        """
        parsed = parse_questions(questions)
        loop = asyncio.get_running_loop()
        self._loop = self._loop or loop
        pending = PendingQuestion(uuid.uuid4().hex[:12], parsed, call_id)
        pending.future = loop.create_future()
        self._questions[pending.question_id] = pending
        where = self._where
        self._where = "waiting for an answer: " + "; ".join(q.question for q in parsed)[:200]
        self._emit(
            QuestionAsked(self.name, self._reply_id, pending.question_id, tuple(parsed), call_id)
        )
        source = None
        if self.question_input is not None:
            source = loop.create_task(self._ask_source(pending))
        try:
            return await pending.future
        except asyncio.CancelledError:
            self._emit(
                QuestionAnswered(
                    self.name, self._reply_id, pending.question_id, None, "interrupted"
                )
            )
            raise
        finally:
            self._questions.pop(pending.question_id, None)
            self._where = where
            if source is not None and not source.done():
                source.cancel()
                await asyncio.wait({source})
            if source is not None and source.done() and not source.cancelled():
                source.exception()  # retrieved: reported through the answer, never lost

    def answer(self, question_id: str, answers: Any, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Answer waiting questions from any thread (once).

        ``answers`` maps each question (its text, header or 0-based index) to a choice's
        label, a list of labels (multi-select), ``{"other": "own words"}``, or any text for
        a question without options; a single question takes its answer alone.

        Raises:
            ApprovalError: unknown or already answered question, or an answer the question
                does not take (a choice it did not offer). Nothing changes then.
        """
        self._hop(lambda: self._answer(question_id, answers), timeout)

    def _answer(self, question_id: str, answers: Any) -> None:
        pending = self._questions.get(question_id)
        if pending is None:
            if question_id in self._answered:
                at = clock(self._answered[question_id][1])
                raise ApprovalError(
                    f"Question {question_id!r} already answered at {at}; nothing was changed."
                )
            waiting = ", ".join(repr(q) for q in self._questions) or "none"
            raise ApprovalError(
                f"No question {question_id!r} is waiting for an answer (waiting: {waiting}). "
                "See agent.pending_questions."
            )
        checked = check_answers(pending.questions, answers)
        assert pending.future is not None
        if pending.future.done():
            raise ApprovalError(f"Question {question_id!r} was closed; nothing was changed.")
        pending.future.set_result(checked)
        self._answered[question_id] = (checked, time.time())
        while len(self._answered) > 1000:
            del self._answered[next(iter(self._answered))]
        self._emit(QuestionAnswered(self.name, self._reply_id, question_id, checked))

    async def _ask_source(self, pending: PendingQuestion) -> None:
        """Ask ``question_input`` until it gives answers the questions accept."""
        source = self.question_input
        model = answers_model(pending.questions)
        for _ in range(5):
            if pending.question_id not in self._questions:
                return
            values = await _read_source(source, self.name, model, pending)
            try:
                self._answer(pending.question_id, values)
                return
            except ApprovalError:
                if pending.question_id not in self._questions:
                    return
                continue  # a refused answer: ask again


async def _read_source(
    source: Any, agent_name: str, model: type[Any], pending: PendingQuestion
) -> Any:
    from ._user import UserAgent
    from ._user_input import UserInputBase

    text = "\n\n".join(
        str(model.model_fields[f"answer_{i + 1}"].description)
        for i in range(len(pending.questions))
    )
    prompt = Msg(agent_name, text, "assistant")
    if isinstance(source, UserAgent) and source.input_source is None:  # its input method
        reply = await source(structured_model=model)
        return _from_fields(reply.metadata, pending)
    if isinstance(source, UserInputBase):
        data = await source(agent_id="", agent_name=agent_name, structured_model=model)
        return _from_fields(data.structured_input or {}, pending)
    got = await source(prompt)  # a UserAgent with an input source, or an input source
    raw = got.get_text_content() or "" if isinstance(got, Msg) else str(got)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if not isinstance(value, (dict, list)):
        value = raw  # "2" is the second choice, not the number two
    if not isinstance(value, dict):
        value = {0: value} if len(pending.questions) == 1 else value
    if not isinstance(value, dict):
        return value
    # typed by a person: "2" is the second choice, unknown text is their own answer ("Other")
    keys: dict[Any, Question] = {q.question: q for q in pending.questions}
    keys.update({q.header: q for q in pending.questions if q.header})
    keys.update(dict(enumerate(pending.questions)))
    return {
        k: typed_answer(v, keys[k]) if isinstance(v, str) and k in keys else v
        for k, v in value.items()
    }


def _from_fields(fields: dict[str, Any], pending: PendingQuestion) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for i, q in enumerate(pending.questions):
        value = fields.get(f"answer_{i + 1}")
        out[i] = typed_answer(value, q) if isinstance(value, str) else value
    return out


__all__ = ["DecisionsMixin", "PendingQuestion"]
