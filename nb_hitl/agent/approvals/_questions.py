"""The question inbox: ``ask_user`` questions waiting for the person, and their answers.

``gate.questions.ask(questions)`` parks the asking tool call until ``answer(question_id,
answers)`` (from any thread, once) or the agent's ``question_input`` (a ``UserAgent``, a
``UserInputBase`` such as ``TerminalUserInput()``, or an input source such as ``QueueInput``),
asked at the same time, answers: whichever answers first wins. Answers are checked against the
questions; a refused answer changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nb_hitl.events import QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg

from ._ask_user import Answer, Question, answers_model, check_answers, parse_questions, typed_answer
from ._hop import run_on_loop
from ._state import clock

if TYPE_CHECKING:
    from ._host import GateHost

ANSWERED_MEMORY = 1000  # how many answered ids are remembered for clear late-answer errors


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


class QuestionInbox:
    """Pending questions of one agent and how they are answered."""

    def __init__(self, host: GateHost) -> None:
        self._host = host
        self._waiting: dict[str, PendingQuestion] = {}
        self._answered: dict[str, tuple[dict[str, Answer], float]] = {}
        self.question_input: Any = None
        """Also asked when the model asks questions (see the module docstring)."""

    @property
    def pending(self) -> list[PendingQuestion]:
        """Questions waiting for an answer, oldest first."""
        return list(self._waiting.values())

    def __bool__(self) -> bool:
        return bool(self._waiting)

    async def ask(self, questions: Any, *, call_id: str = "") -> dict[str, Answer]:
        """Ask ``questions`` and wait (parked) for the checked answers.

        Raises:
            ApprovalError: malformed questions (inside a tool call the model sees it as an
                error result).
        """
        host = self._host
        parsed = parse_questions(questions)
        loop = asyncio.get_running_loop()
        host._loop = host._loop or loop
        pending = PendingQuestion(uuid.uuid4().hex[:12], parsed, call_id)
        pending.future = loop.create_future()
        self._waiting[pending.question_id] = pending
        where = host._where
        host._where = "waiting for an answer: " + "; ".join(q.question for q in parsed)[:200]
        host._emit(
            QuestionAsked(host.name, host._reply_id, pending.question_id, tuple(parsed), call_id)
        )
        source = None
        if self.question_input is not None:
            source = loop.create_task(self._ask_source(pending))
        try:
            return await pending.future
        except asyncio.CancelledError:
            host._emit(
                QuestionAnswered(
                    host.name, host._reply_id, pending.question_id, None, "interrupted"
                )
            )
            raise
        finally:
            self._waiting.pop(pending.question_id, None)
            host._where = where
            if source is not None and not source.done():
                source.cancel()
                await asyncio.wait({source})
            if source is not None and source.done() and not source.cancelled():
                source.exception()  # retrieved: reported through the answer, never lost

    def answer(self, question_id: str, answers: Any, *, timeout: float) -> None:
        """Answer waiting questions from any thread, once (see ``agent.answer``)."""
        run_on_loop(self._host._loop, lambda: self._answer(question_id, answers), timeout)

    def _answer(self, question_id: str, answers: Any) -> None:
        pending = self._waiting.get(question_id)
        if pending is None:
            if question_id in self._answered:
                at = clock(self._answered[question_id][1])
                raise ApprovalError(
                    f"Question {question_id!r} already answered at {at}; nothing was changed."
                )
            waiting = ", ".join(repr(q) for q in self._waiting) or "none"
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
        while len(self._answered) > ANSWERED_MEMORY:
            del self._answered[next(iter(self._answered))]
        host = self._host
        host._emit(QuestionAnswered(host.name, host._reply_id, question_id, checked))

    async def _ask_source(self, pending: PendingQuestion) -> None:
        """Ask ``question_input`` until it gives answers the questions accept."""
        source = self.question_input
        model = answers_model(pending.questions)
        for _ in range(5):
            if pending.question_id not in self._waiting:
                return
            values = await _read_source(source, self._host.name, model, pending)
            try:
                self._answer(pending.question_id, values)
                return
            except ApprovalError:
                if pending.question_id not in self._waiting:
                    return
                continue  # a refused answer: ask again


async def _read_source(
    source: Any, agent_name: str, model: type[Any], pending: PendingQuestion
) -> Any:
    from .._user import UserAgent
    from .._user_input import UserInputBase

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


__all__ = ["PendingQuestion", "QuestionInbox"]
