"""How an episode of the interrupt harness starts: a new question, a resume, an edit, a rewind.

``interrupt_harness.Harness.episode`` asks ``start_episode`` for the call to make. Besides a
plain ``agent(question)``, an episode may continue the last interrupted reply
(``agent.resume``, with or without an instruction, re-running the interrupted call or not),
re-send an earlier question with new text (``edit_and_resend``) or answer an earlier answer's
question again (``regenerate``). What cannot apply (nothing to resume, no earlier question)
falls back to a plain question. ``check_continuations`` holds the resume invariants.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nb_hitl.agent import ReActAgent, ResumePoint
from nb_hitl.memory import COMPRESSED
from nb_hitl.message import Msg
from nb_hitl.model._continuation import CONTINUE_KWARG, parse_continuation_prompt

STARTS = ("ask", "resume", "resume_rerun", "resume_instruction", "edit", "regenerate")


class Violation(AssertionError):
    """An invariant did not hold."""


@dataclass
class EpisodeStart:
    """The call an episode makes, and how to find its messages afterwards."""

    kind: str
    """``ask``, ``resume``, ``edit`` or ``regenerate`` (what really ran)."""
    call: Callable[[], Awaitable[Msg]]
    index: int
    """Where the reply's messages start in memory (after the fork, for a rewind)."""
    question: Msg | None
    """The message that must be recorded exactly once at ``index`` (None: none is)."""
    edited_from: str | None = None
    """For ``edit``: the id of the question re-sent (the new one is found by it)."""
    point: ResumePoint | None = None
    """For ``resume``: what was being continued."""
    calls_before: int = 0
    """How many model calls had been made before the episode."""


def _questions(agent: ReActAgent) -> list[int]:
    msgs = agent.memory.messages
    return [
        i
        for i, m in enumerate(msgs)
        if m.role == "user"
        and not m.metadata.get("_steered")
        and not m.metadata.get("_resume_instruction")
    ]


def _nothing_compressed_from(agent: ReActAgent, index: int) -> bool:
    memory = agent.memory
    return not any(COMPRESSED in memory.marks_of(m.id) for m in memory.messages[index:])


def start_episode(agent: ReActAgent, kind: str, pick: int, n: int) -> EpisodeStart:
    """The episode's call for ``kind`` (or a plain question when it cannot apply)."""
    msgs = agent.memory.messages
    calls = len(agent.model.calls)  # type: ignore[attr-defined]
    if kind.startswith("resume") and agent.can_resume:
        point = agent.resume_point()
        wants = kind == "resume_instruction"
        instruction = Msg("User", f"instruction {n}", "user") if wants else None
        rerun = kind == "resume_rerun"
        return EpisodeStart(
            "resume",
            lambda: agent.resume(instruction, rerun_interrupted=rerun),
            len(msgs),
            instruction,
            point=point,
            calls_before=calls,
        )
    questions = [i for i in _questions(agent) if _nothing_compressed_from(agent, i)]
    if kind == "edit" and questions:
        index = questions[pick % len(questions)]
        old = msgs[index]
        return EpisodeStart(
            "edit",
            lambda: agent.edit_and_resend(old.id, f"edited {n}"),
            index,
            None,
            edited_from=old.id,
            calls_before=calls,
        )
    answers = [
        i
        for i in range(len(msgs))
        if msgs[i].role == "assistant"
        and msgs[i].name == agent.name
        and any(q < i for q in questions)
        and _nothing_compressed_from(agent, max(q for q in questions if q < i) + 1)
    ]
    if kind == "regenerate" and answers:
        index = answers[pick % len(answers)]
        answer = msgs[index]
        question = max(q for q in questions if q < index)
        return EpisodeStart(
            "regenerate",
            lambda: agent.regenerate(answer.id),
            question + 1,
            None,
            calls_before=calls,
        )
    question_msg = Msg("User", f"question {n}", "user")
    return EpisodeStart("ask", lambda: agent(question_msg), len(msgs), question_msg)


def find_question(start: EpisodeStart, msgs: list[Msg]) -> Msg | None:
    """The episode's recorded question (the edited copy for an edit)."""
    if start.edited_from is None:
        return start.question
    return next((m for m in msgs if m.metadata.get("edited_from") == start.edited_from), None)


def check_continuations(msgs: list[Msg]) -> None:
    """A continued answer starts where its partial ended, and says where the seam is."""
    by_id = {m.id: m for m in msgs}
    for m in msgs:
        source = m.metadata.get("continued_from")
        if not source or source not in by_id:
            continue
        partial = by_id[source].get_text_content() or ""
        text = m.get_text_content() or ""
        if not text.startswith(partial):
            raise Violation(
                f"continuation {text[:60]!r} does not start with its partial {partial[:60]!r}"
            )
        if m.metadata.get("partial_chars") != len(partial):
            raise Violation("partial_chars does not mark where the partial ends")


def check_resume(start: EpisodeStart, calls: list[Any]) -> None:
    """The model was asked to continue exactly the partial text (prefix or prompt form)."""
    point = start.point
    if point is None or point.partial_id is None:
        return
    for call in calls[start.calls_before :]:
        last = call.messages[-1]
        if call.kwargs.get(CONTINUE_KWARG):
            if last != {"role": "assistant", "content": point.partial_text}:
                raise Violation(f"the prefix call did not end with the partial answer: {last}")
            return
        request = parse_continuation_prompt(last.get("content"))
        if request is not None:
            if request.partial != point.partial_text:
                raise Violation("the continuation prompt quotes another text than the partial")
            return


__all__ = [
    "STARTS",
    "EpisodeStart",
    "Violation",
    "check_continuations",
    "check_resume",
    "find_question",
    "start_episode",
]
