"""Question forms: an ``ask_user`` question drawn in the transcript and answered with the keyboard.

``QuestionCards`` listens to an agent's ``QuestionAsked`` / ``QuestionAnswered`` events and adds
one ``QuestionCard`` per ask through a hook (``ChatWidget.append_widget``). Each question shows
its header and text, then one toggle button per choice (one choice: picking one unpicks the
others) or check boxes (several), and an "Other" text box for an answer in the person's own
words (or only a text box when there are no choices). Tab moves between the controls, Space
or Enter picks a choice or ticks a box, Enter in a text box sends the answers. A refused
answer (a choice that was not offered, a question left unanswered) is shown in the card; once
answered, or closed by Stop, the form turns into the answers given. A form is no widget: it
is a row of the transcript's front end (``_card.CardRow``; picking a choice is drawn in the
page, and "Send answers" or Enter sends the form's values), handled on the loop through a
``LoopBridge`` like every widget callback.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from nb_hitl._render import QUESTION_RULES, esc
from nb_hitl.events import Event, QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError

from ._card import CardRow, Control, button, text_box
from ._invisible import show_invisible
from ._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent import Question
    from nb_hitl.agent.approvals import ApprovalMethods

QUESTION_CSS = f"<style>{QUESTION_RULES}</style>"
"""The forms' rules as a ``<style>`` element (they are part of the panels' stylesheet)."""


def _text(value: str) -> str:
    return esc(show_invisible(value))


class _QuestionField:
    """The controls of one question (``Control`` objects) and the answer value they hold.

    Args:
        card: the form it belongs to.
        index: the question's position in the form (its controls' names: ``q<i>``, ``other<i>``).
        question: the question.
    """

    def __init__(self, card: QuestionCard, index: int, question: Question) -> None:
        self.question = question
        self.index = index
        self.choices: list[Control] = []
        """One toggle button per choice (one-answer questions with choices)."""
        self.boxes: list[Control] = []
        """One check box per choice (multi-select questions)."""
        picks = [
            Control(card, description=o.label, tooltip=o.description) for o in question.options
        ]
        for pick in picks:
            pick.value = False  # type: ignore[assignment]  # a toggle: True when picked
        if question.options and question.multi_select:
            self.boxes = picks
        elif question.options:
            self.choices = picks
        self.other = card.field(f"other{index}", Control(card, shown=lambda: question.allow_other))

    def choose(self, *labels: str) -> None:
        """Pick choices by label, as clicks would (unknown labels are ignored); a one-answer
        question unpicks the others."""
        for control in [*self.choices, *self.boxes]:
            if control.description in labels:
                control.value = True  # type: ignore[assignment]
            elif self.choices:
                control.value = False  # type: ignore[assignment]

    def take(self, picked: Any) -> None:
        """The page's picks (``form["q<i>"]``: the picked choices' indexes)."""
        chosen = {str(x) for x in picked} if isinstance(picked, list) else set()
        for j, control in enumerate([*self.choices, *self.boxes]):
            control.value = str(j) in chosen  # type: ignore[assignment]

    def value(self) -> Any:
        other = self.other.value.strip()
        if self.question.multi_select:
            return {"choices": [b.description for b in self.boxes if b.value], "other": other}
        picked = [b.description for b in self.choices if b.value]
        if picked:
            return {"choices": picked, "other": other}
        return {"other": other} if self.question.options else other

    def render(self, card: QuestionCard) -> str:
        q = self.question
        head = f'<div class="nb-hitl-question-header">{_text(q.header)}</div>' if q.header else ""
        parts = [f"{head}<b>{_text(q.question)}</b>"]
        group = f"q{self.index}"
        if self.choices:
            buttons = []
            for j, c in enumerate(self.choices):
                on = bool(c.value)
                title = f' title="{_text(c.tooltip)}"' if c.tooltip else ""
                buttons.append(
                    '<button type="button" class="lm-Widget jupyter-widgets jupyter-button '
                    f'widget-toggle-button nb-hitl-choice{" mod-active mod-info" if on else ""}" '
                    f'data-nb-hitl-choice="{group}" data-nb-hitl-single="" value="{j}" '
                    f'aria-pressed="{"true" if on else "false"}"{title}>'
                    f"{_text(c.description)}</button>"
                )
            parts.append(f'<div class="nb-hitl-choices" role="group">{"".join(buttons)}</div>')
        for j, box in enumerate(self.boxes):
            ticked = " checked" if box.value else ""
            parts.append(
                '<label class="nb-hitl-question-box"><input type="checkbox" '
                f'name="{group}" value="{j}"{ticked}> {_text(box.description)}</label>'
            )
        if q.allow_other:
            hint = (
                "Other: your own answer (Enter sends)" if q.options else "Your answer (Enter sends)"
            )
            other = text_box(f"other{self.index}", self.other, "nb-hitl-question-other-box", hint)
            parts.append(f'<div class="nb-hitl-question-other">{other}</div>')
        hints = [f"{_text(o.label)}: {_text(o.description)}" for o in q.options if o.description]
        if hints:
            parts.append(f'<div class="nb-hitl-question-hint">{"<br>".join(hints)}</div>')
        return f'<div class="nb-hitl-question-field">{"".join(parts)}</div>'


class QuestionCard(CardRow):
    """The form for one ``ask_user`` call: a card drawn inside the transcript (no widget).

    ``card.fields[i]`` holds question ``i``'s controls (``choices`` / ``boxes`` with a boolean
    ``value``, ``other`` with its text, ``choose(label)``); ``card.submit.click()`` sends the
    answers, as the page's "Send answers" does (``_card.py``).

    Args:
        agent: the agent whose reply waits for the answers.
        question_id: the id to answer (``QuestionAsked.question_id``).
        questions: the questions asked.
        bridge: the loop bridge every click goes through.
    """

    def __init__(
        self,
        agent: ApprovalMethods,
        question_id: str,
        questions: list[Question],
        bridge: LoopBridge | None = None,
    ) -> None:
        key = f"question-{question_id}-{uuid.uuid4().hex[:8]}"
        super().__init__(key, "nb-hitl-approval nb-hitl-question")
        self.agent = agent
        self.question_id = question_id
        self.questions = list(questions)
        self.answered = ""
        """``""`` while waiting, then ``answered`` or ``interrupted``."""
        self._bridge = bridge or LoopBridge()
        self.header = Control(
            self,
            value='<span class="nb-hitl-badge nb-hitl-badge-question">question</span> '
            '<b>for you</b> <span class="nb-hitl-status nb-hitl-status-waiting">waiting for '
            "you</span>",
        )
        self.fields = [_QuestionField(self, i, q) for i, q in enumerate(self.questions)]
        self.submit = Control(
            self, "submit", description="Send answers", shown=lambda: not self.answered
        )
        self.error = Control(self)
        self.result = Control(self)
        self.html = self.render()

    def act(self, verb: str, form: Mapping[str, Any] | None = None) -> None:
        """A press from the page: its picks and text boxes, then ``verb``."""
        if form is not None:
            for field in self.fields:
                field.take(form.get(f"q{field.index}"))
        super().act(verb, form)

    def press(self, verb: str) -> None:
        """``submit``: answer with what the form holds."""
        if verb == "submit" and not self.answered:
            self.send()

    def answers(self) -> dict[int, Any]:
        """What the form holds now, question index -> answer value."""
        return {i: f.value() for i, f in enumerate(self.fields)}

    def send(self) -> bool:
        """Answer with what the form holds (the button's twin); False when refused."""
        try:
            self.agent.answer(self.question_id, self.answers())
        except ApprovalError as exc:
            self.error.value = _text(str(exc))
            self.refresh()
            return False
        self.error.value = ""
        self.refresh()
        return True

    def render(self) -> str:
        """The form's HTML while it waits, then the answers (escaped)."""
        parts = [f'<div class="nb-hitl-card-head">{self.header.value}</div>']
        if not self.answered:
            parts += [f.render(self) for f in self.fields]
            parts.append(
                '<div class="nb-hitl-card-buttons">'
                + button(self, self.submit, "nb-hitl-question-submit", "primary", "reply")
                + "</div>"
            )
        if self.error.value:
            parts.append(
                f'<div class="nb-hitl-approval-error" role="alert">{self.error.value}</div>'
            )
        if self.result.value:
            parts.append(f'<div class="nb-hitl-approval-result">{self.result.value}</div>')
        body = "".join(parts)
        return f'<div class="nb-hitl-card" data-nb-hitl-card="{esc(self.key)}">{body}</div>'

    def show_answers(self, answers: dict[str, Any] | None, outcome: str = "answered") -> None:
        """Replace the form by the answers (called on ``QuestionAnswered``)."""
        self.answered = outcome
        if outcome != "answered" or answers is None:
            self.result.value = "&#9209; Not answered: the reply was stopped"
        else:
            rows = []
            for question, answer in answers.items():
                shown = ", ".join(answer) if isinstance(answer, list) else str(answer)
                rows.append(f"<div>{_text(question)} &#8594; <b>{_text(shown)}</b></div>")
            self.result.value = "&#10004; Answered" + "".join(rows)
        self.header.value = '<span class="nb-hitl-badge nb-hitl-badge-question">question</span>'
        self.error.value = ""
        self.add_class("nb-hitl-approval-decided")
        self.refresh()


class QuestionCards:
    """Keeps question forms in step with an agent's events.

    Args:
        agent: the agent to watch.
        add_row: called with each new form (e.g. ``ChatWidget.append_widget``).
        set_status: called as ``set_status("waiting", detail)`` while a question waits.
        bridge: the loop bridge for clicks and events.
    """

    def __init__(
        self,
        agent: ApprovalMethods,
        add_row: Callable[[QuestionCard], Any],
        set_status: Callable[[str, str], Any] | None = None,
        bridge: LoopBridge | None = None,
    ) -> None:
        self.agent = agent
        self.add_row = add_row
        self.set_status = set_status
        self.bridge = bridge or LoopBridge()
        self.cards: dict[str, QuestionCard] = {}
        self._sub = agent.subscribe(self.bridge.callback(self.on_event))
        for pending in agent.pending_questions:
            self._card(pending.question_id, pending.questions)

    @property
    def waiting(self) -> list[QuestionCard]:
        """Forms still waiting for answers."""
        return [c for c in self.cards.values() if not c.answered]

    def _card(self, question_id: str, questions: list[Question]) -> QuestionCard:
        card = self.cards.get(question_id)
        if card is None:
            card = QuestionCard(self.agent, question_id, questions, self.bridge)
            self.cards[question_id] = card
            self.add_row(card)
        return card

    def on_event(self, event: Event) -> None:
        """Draw a form for each ask; show the answers on it."""
        if isinstance(event, QuestionAsked):
            self._card(event.question_id, list(event.questions))
            if self.set_status is not None:
                self.set_status("waiting", "answer the question")
        elif isinstance(event, QuestionAnswered):
            card = self.cards.get(event.question_id)
            if card is not None and not card.answered:
                card.show_answers(event.answers, event.outcome)
            if self.set_status is not None and not self.waiting and self.agent.is_replying:
                self.set_status("running", "")

    def close(self) -> None:
        """Stop listening to the agent."""
        self._sub.close()


__all__ = ["QUESTION_CSS", "QuestionCard", "QuestionCards"]
