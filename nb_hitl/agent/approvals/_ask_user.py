"""``ask_user``: structured questions a model (or a tool) asks the person, and their answers.

Register it as a tool and the model can ask up to four questions at once, each with choices
(single or multi-select) and a free-text "Other" answer::

    toolkit.register_tool_function(ask_user)

A tool can ask too: ``answers = await ask_user([Question(question="Which file?", options=[...])])``.
Either way the reply parks until someone answers (the chat's form, ``agent.answer(id,
answers)`` from any thread, or the agent's ``question_input``: a ``UserAgent`` or an input
source such as ``TerminalUserInput()``). Answers are checked against the questions: a choice
that was not offered is refused with a message saying which ones were, and the model receives
the accepted answers as the tool result, a JSON object from each question to its answer.
Malformed questions from the model come back to it as an error result; the reply goes on.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model, model_validator

from nb_hitl.exceptions import ApprovalError

if TYPE_CHECKING:
    from nb_hitl.message import ToolUseBlock

MAX_QUESTIONS = 4
MAX_OPTIONS = 8
Answer = str | list[str]


class Asker(Protocol):
    """What ``ask_user`` uses of the running agent (its ``ask``, which the approval gate's
    question inbox answers)."""

    async def ask(self, questions: Any, *, call_id: str = "") -> dict[str, Answer]: ...


current_tool_call: contextvars.ContextVar[tuple[Asker, ToolUseBlock] | None] = (
    contextvars.ContextVar("nb_hitl_current_tool_call", default=None)
)
"""The agent and the tool call running now (set by the agent around each tool)."""


class QuestionOption(BaseModel):
    """One choice of a question."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    label: str = Field(min_length=1, max_length=120)
    """What the person picks (and what the model receives)."""
    description: str = Field(default="", max_length=500)
    """A line explaining the choice."""


class Question(BaseModel):
    """A question for the person: choices (one or several), free text, or both."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    question: str = Field(min_length=1, max_length=1000)
    """The question, ending with a question mark."""
    header: str = Field(default="", max_length=40)
    """A very short label (a few words) shown above it."""
    options: list[QuestionOption] = Field(default_factory=list, max_length=MAX_OPTIONS)
    """2 to 8 choices; none for a free-text question."""
    multi_select: bool = False
    """The person may pick several choices."""
    allow_other: bool = True
    """The person may answer in their own words instead ("Other")."""

    @model_validator(mode="before")
    @classmethod
    def _labels_as_options(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("options"), list):
            data = {
                **data,
                "options": [{"label": o} if isinstance(o, str) else o for o in data["options"]],
            }
        return data

    @model_validator(mode="after")
    def _coherent(self) -> Question:
        labels = [o.label for o in self.options]
        if len(labels) == 1:
            raise ValueError("give 2 or more options, or none for a free-text question")
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must differ")
        if not labels and self.multi_select:
            raise ValueError("multi_select needs options")
        if not labels and not self.allow_other:
            raise ValueError("a question without options must allow a free-text answer")
        return self

    @property
    def labels(self) -> list[str]:
        """The choices' labels."""
        return [o.label for o in self.options]

    def check(self, value: Any) -> Answer:
        """The accepted answer to this question, or ``ValueError`` saying what is wrong.

        ``value`` is a choice's label (or its 1-based number as text), a list of them for a
        multi-select question, ``{"other": text}`` for an answer in the person's own words,
        or ``{"choices": [...], "other": text}``; a question without options takes any text.
        """
        choices, other = _split(value, self)
        offered = self.labels
        for choice in choices:
            if choice not in offered:
                allowed = ", ".join(repr(x) for x in offered)
                hint = " or answer in your own words ('Other')" if self.allow_other else ""
                raise ValueError(
                    f"{choice!r} is not one of the choices for {self.question!r}: pick "
                    f"{allowed}{hint}."
                )
        if other and not self.allow_other:
            raise ValueError(f"{self.question!r} takes only its choices, not free text.")
        if len(set(choices)) != len(choices):
            raise ValueError(f"a choice is given twice for {self.question!r}.")
        if not self.multi_select and len(choices) + bool(other) > 1:
            raise ValueError(f"{self.question!r} takes one answer, not several.")
        if not choices and not other:
            raise ValueError(f"{self.question!r} has no answer; pick a choice or write one.")
        if self.multi_select:
            return [*choices, *([other] if other else [])]
        return choices[0] if choices else other


def _split(value: Any, question: Question) -> tuple[list[str], str]:
    if isinstance(value, Mapping):
        unknown = set(value) - {"choices", "choice", "other"}
        if unknown:
            raise ValueError(f"an answer may hold 'choices' and 'other', not {sorted(unknown)}.")
        raw = value.get("choices", value.get("choice", []))
        choices = [raw] if isinstance(raw, str) else list(raw or [])
        other = value.get("other") or ""
        if not isinstance(other, str):
            raise ValueError("'other' must be text.")
        return [_label(c, question) for c in choices], other.strip()
    if isinstance(value, str):
        if not question.options:
            return [], value.strip()
        return [_label(value, question)], ""
    if isinstance(value, Sequence):
        return [_label(c, question) for c in value], ""
    raise ValueError(f"an answer must be text or a list of choices, got {value!r}.")


def _label(choice: Any, question: Question) -> str:
    if not isinstance(choice, str):
        raise ValueError(f"choices are given by their label (text), got {choice!r}.")
    text = choice.strip()
    if text.isdigit() and text not in question.labels and 1 <= int(text) <= len(question.labels):
        return question.labels[int(text) - 1]
    return text


def parse_questions(raw: Any) -> list[Question]:
    """Validated questions (``Question`` objects or dicts), or ``ApprovalError`` saying why."""
    if isinstance(raw, (Question, Mapping)):
        raw = [raw]
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        raise ApprovalError("ask_user needs a list of 1 to 4 questions.")
    if len(raw) > MAX_QUESTIONS:
        raise ApprovalError(f"ask_user takes at most {MAX_QUESTIONS} questions, got {len(raw)}.")
    try:
        questions = [q if isinstance(q, Question) else Question.model_validate(q) for q in raw]
    except ValueError as exc:
        raise ApprovalError(f"Malformed question: {exc}") from None
    texts = [q.question for q in questions]
    if len(set(texts)) != len(texts):
        raise ApprovalError("Two questions have the same text; make each one different.")
    return questions


def check_answers(questions: list[Question], answers: Any) -> dict[str, Answer]:
    """Answers keyed by question text, each accepted by its question, or ``ApprovalError``.

    ``answers`` maps each question (its text, its header or its 0-based index) to its answer,
    or is a list of answers in the questions' order; a single question also takes its answer
    alone.
    """
    if len(questions) == 1 and not _keyed(answers, questions[0]):
        answers = {0: answers}
    if isinstance(answers, list):
        if len(answers) != len(questions):
            raise ApprovalError(
                f"Give one answer per question ({len(questions)}), got {len(answers)}."
            )
        answers = dict(enumerate(answers))
    if not isinstance(answers, Mapping):
        raise ApprovalError(f"Answers must map each question to its answer, got {answers!r}.")
    by_key: dict[Any, int] = {}
    for i, q in enumerate(questions):
        by_key.update({i: i, str(i): i, q.question: i})
        if q.header:
            by_key.setdefault(q.header, i)
    chosen: dict[int, Any] = {}
    for key, value in answers.items():
        if key not in by_key:
            listed = "; ".join(repr(q.question) for q in questions)
            raise ApprovalError(f"No question {key!r} was asked (questions: {listed}).")
        chosen[by_key[key]] = value
    result: dict[str, Answer] = {}
    for i, q in enumerate(questions):
        if i not in chosen:
            raise ApprovalError(f"No answer for {q.question!r}.")
        try:
            result[q.question] = q.check(chosen[i])
        except ValueError as exc:
            raise ApprovalError(str(exc)) from None
    return result


def _keyed(answers: Any, q: Question) -> bool:
    """Whether ``answers`` already maps the (single) question to its answer."""
    if not isinstance(answers, Mapping):
        return False
    return any(k in answers for k in (0, "0", q.question, *([q.header] if q.header else [])))


def answers_model(questions: list[Question]) -> type[BaseModel]:
    """A pydantic model with one text field per question (for ``UserAgent`` input sources
    and the terminal, which ask field by field and re-ask an answer the question refuses)."""
    fields: dict[str, Any] = {}
    for i, q in enumerate(questions):
        lines = [q.question]
        lines += [
            f"  {n}. {o.label}" + (f" - {o.description}" if o.description else "")
            for n, o in enumerate(q.options, 1)
        ]
        if q.multi_select:
            lines.append("  (several: numbers or labels separated by commas)")
        if q.options and q.allow_other:
            lines.append("  (or type your own answer)")

        def accept(text: str, q: Question = q) -> str:
            q.check(typed_answer(text, q))  # a refused answer is asked again
            return text

        fields[f"answer_{i + 1}"] = (
            Annotated[str, AfterValidator(accept)],
            Field(description="\n".join(lines)),
        )
    return create_model("AskUserAnswers", **fields)


def typed_answer(text: str, q: Question) -> Any:
    """What a person typed as an answer value: a choice, several, or their own words."""
    text = text.strip()
    parts = [p.strip() for p in text.split(",")] if q.multi_select else [text]
    known = set(q.labels)
    picked = [_label(p, q) for p in parts if p]
    if q.options and all(p in known for p in picked):
        return picked if q.multi_select else (picked[0] if picked else "")
    if q.options and q.allow_other:
        return {"other": text}
    return picked if q.multi_select else text


async def ask_user(questions: list[Question]) -> dict[str, Answer]:
    """Ask the user one to four questions and wait for the answers.

    Use it when you need the user's choice or information to go on. Give each question 2-8
    short options when there are natural choices (the user may also answer in their own
    words), or no options for an open question. The result maps each question to its answer.

    Args:
        questions: The questions (1 to 4), each with its text, an optional short header,
            options, and whether several options may be picked (multi_select).
    """
    running = current_tool_call.get()
    if running is None:
        raise ApprovalError(
            "ask_user can only be called while an agent replies (as a tool, or from a tool "
            "the agent is running)."
        )
    agent, call = running
    return await agent.ask(questions, call_id=call.id)


ask_user.__nb_hitl_read_only__ = True  # type: ignore[attr-defined]  # asking changes nothing

__all__ = [
    "MAX_QUESTIONS",
    "Answer",
    "Question",
    "QuestionOption",
    "answers_model",
    "ask_user",
    "check_answers",
    "current_tool_call",
    "parse_questions",
    "typed_answer",
]
