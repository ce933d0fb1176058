"""Question forms: an ``ask_user`` question drawn in the transcript and answered with the keyboard.

``QuestionCards`` listens to an agent's ``QuestionAsked`` / ``QuestionAnswered`` events and adds
one ``QuestionCard`` per ask through a hook (``ChatWidget.append_widget``). Each question shows
its header and text, then one toggle button per choice (one choice: picking one unpicks the
others) or check boxes (several), and an "Other" text box for an answer in the person's own
words (or only a text box when there are no choices). Tab moves between the controls, Space
or Enter picks a choice or ticks a box, Enter in a text box sends the answers. A refused
answer (a choice that was not offered, a question left unanswered) is shown in the card; once
answered, or closed by Stop, the form turns into the answers given. Clicks go through a
``LoopBridge`` like every widget callback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import esc
from nb_hitl.events import Event, QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError

from ._invisible import show_invisible
from ._look import look, set_display
from ._loop import LoopBridge

if TYPE_CHECKING:
    from nb_hitl.agent import Question
    from nb_hitl.agent.approvals import ApprovalMethods

QUESTION_CSS = """
<style>
.nb-hitl-question .nb-hitl-question-header { font-size: 11px; text-transform: uppercase;
  letter-spacing: 0.04em; opacity: 0.75; }
.nb-hitl-question .widget-checkbox label { white-space: normal; }
.nb-hitl-question .nb-hitl-choice { width: auto; max-width: 100%; }
.nb-hitl-question .nb-hitl-choices { flex-wrap: wrap; gap: 4px; }
.nb-hitl-question-hint { font-size: 12px; opacity: 0.75; }
/* The "Other" box fills the form's width, margins included (width: 100% plus ipywidgets'
   margins ran past the card's right edge). */
.nb-hitl-question .nb-hitl-question-other { align-self: stretch; min-width: 0;
  box-sizing: border-box; }
.nb-hitl-question .nb-hitl-question-other input { min-width: 0; }
</style>
"""


SETTLE_S = 0.3
"""A click on Send answers waits this long before reading the form: ipywidgets holds a text
box's latest keystrokes back until the kernel acknowledged the previous update, while the
click (Enter in the box presses it) goes out at once, so it can overtake the last characters."""


def _text(value: str) -> str:
    return esc(show_invisible(value))


class _QuestionField:
    """The controls of one question and the answer value they hold."""

    def __init__(self, question: Question, bridge: LoopBridge) -> None:
        self.question = question
        head = f'<div class="nb-hitl-question-header">{_text(question.header)}</div>'
        self.title = w.HTML(
            (head if question.header else "") + f"<b>{_text(question.question)}</b>",
            **look(w.HTML),
        )
        hints = [
            f"{_text(o.label)}: {_text(o.description)}" for o in question.options if o.description
        ]
        self.hint = w.HTML("<br>".join(hints), **look(w.HTML))
        self.hint.add_class("nb-hitl-question-hint")
        self.choices: list[w.ToggleButton] = []
        """One toggle button per choice (one-answer questions with choices)."""
        self.boxes: list[w.Checkbox] = []
        """One check box per choice (multi-select questions)."""
        if question.options and question.multi_select:
            self.boxes = [
                w.Checkbox(value=False, description=o.label, indent=False, **look(w.Checkbox))
                for o in question.options
            ]
        elif question.options:
            for option in question.options:
                button = w.ToggleButton(
                    value=False,
                    description=option.label,
                    tooltip=option.description,
                    **look(w.ToggleButton),
                )
                button.add_class("nb-hitl-choice")
                button.observe(bridge.callback(self._picked), names="value")
                self.choices.append(button)
        self.other = w.Text(
            placeholder="Other: your own answer (Enter sends)"
            if question.options
            else "Your answer (Enter sends)",
            **look(
                w.Text, layout={"width": "auto", "display": "" if question.allow_other else "none"}
            ),
        )
        self.other.add_class("nb-hitl-question-other")
        controls: list[w.Widget] = [self.title]
        if self.choices:
            row = w.HBox(self.choices, **look(w.HBox))
            row.add_class("nb-hitl-choices")
            controls.append(row)
        controls += self.boxes
        controls += [self.other, self.hint]
        self.box = w.VBox(
            controls, **look(w.VBox, layout={"flex": "0 0 auto", "margin": "2px 0 6px 0"})
        )

    def _picked(self, change: dict[str, Any]) -> None:
        if change["new"]:  # one answer: picking a choice unpicks the others
            for button in self.choices:
                if button is not change["owner"] and button.value:
                    button.value = False
        for button in self.choices:
            button.button_style = "info" if button.value else ""

    def choose(self, *labels: str) -> None:
        """Pick choices by label, as clicks would (unknown labels are ignored)."""
        for button in [*self.choices, *self.boxes]:
            if button.description in labels:
                button.value = True

    def value(self) -> Any:
        other = self.other.value.strip()
        if self.question.multi_select:
            return {"choices": [b.description for b in self.boxes if b.value], "other": other}
        picked = [b.description for b in self.choices if b.value]
        if picked:
            return {"choices": picked, "other": other}
        return {"other": other} if self.question.options else other


class QuestionCard(w.VBox):
    """The form for one ``ask_user`` call.

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
        self.agent = agent
        self.question_id = question_id
        self.questions = list(questions)
        self.answered = ""
        """``""`` while waiting, then ``answered`` or ``interrupted``."""
        self._bridge = bridge or LoopBridge()
        self.header = w.HTML(
            '<span class="nb-hitl-badge nb-hitl-badge-question">question</span> <b>for you</b> '
            '<span class="nb-hitl-status nb-hitl-status-waiting">waiting for you</span>',
            **look(w.HTML),
        )
        self.fields = [_QuestionField(q, self._bridge) for q in self.questions]
        self.submit = w.Button(
            description="Send answers", button_style="primary", icon="reply", **look(w.Button)
        )
        self.submit.add_class("nb-hitl-question-submit")
        self.error = w.HTML(**look(w.HTML))
        self.error.add_class("nb-hitl-approval-error")
        self.result = w.HTML(**look(w.HTML))
        super().__init__(
            children=[
                self.header,
                *(f.box for f in self.fields),
                self.submit,
                self.error,
                self.result,
            ],
            **look(w.VBox, layout={"flex": "0 0 auto"}),  # a transcript row: never squeezed
        )
        self.add_class("nb-hitl-approval")
        self.add_class("nb-hitl-question")
        self.submit.on_click(self._bridge.callback(lambda _b: self._clicked()))

    def _clicked(self) -> None:
        self.submit.disabled = True  # one send at a time, while the last keystrokes land
        self._bridge.later(SETTLE_S, self._send_clicked)

    def _send_clicked(self) -> None:
        self.submit.disabled = False
        if not self.answered:
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
            return False
        self.error.value = ""
        return True

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
        for field in self.fields:
            set_display(field.box, "none")
        set_display(self.submit, "none")
        self.error.value = ""
        self.add_class("nb-hitl-approval-decided")


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
        add_row: Callable[[w.Widget], Any],
        set_status: Callable[[str, str], Any] | None = None,
        bridge: LoopBridge | None = None,
    ) -> None:
        self.agent = agent
        self.add_row = add_row
        self.set_status = set_status
        self.bridge = bridge or LoopBridge()
        self.cards: dict[str, QuestionCard] = {}
        self._styled = False
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
            if not self._styled:
                self.add_row(w.HTML(QUESTION_CSS))
                self._styled = True
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
