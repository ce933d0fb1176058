"""PausePrompt: a paused pipeline asks the person what to do (Retry, Skip or End discussion).

It only holds the question and reports the choice; ``HubPanel`` resumes the pipeline. The
hub's front end draws it (part ``pause`` of the panel's state) from ``drawn()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_hitl._render import esc

from ._buttons import Control

ACTIONS = ("retry", "skip", "stop")


class PausePrompt:
    """The prompt shown while a pipeline waits for ``resume()``; hidden otherwise.

    Args:
        on_choice: called with ``(action, instruction)`` when a button is pressed.
        on_change: called when what it shows changes (the panel draws itself anew).
    """

    def __init__(
        self, on_choice: Callable[[str, str], None], on_change: Callable[[], None]
    ) -> None:
        self._on_choice = on_choice
        self.question = Control()
        """``value``: the question's HTML (escaped)."""
        self.instruction = Control(placeholder="Instruction (optional): what should happen next?")
        self.retry_button = Control("Retry", lambda: self._clicked("retry"))
        self.skip_button = Control("Skip", lambda: self._clicked("skip"))
        # Named by what it does: the panel's own Stop (interrupt the speaker) sits above it.
        self.stop_button = Control(
            "End discussion",
            lambda: self._clicked("stop"),
            tooltip="End the discussion here: no one else speaks",
        )
        self.visible = False
        """True while the prompt is shown."""
        self.cleared = 0
        """How many times the instruction box was emptied (the page empties it too)."""
        for control in (self.question, self.retry_button, self.skip_button, self.stop_button):
            control.on_change = on_change
        self._on_change = on_change

    def _clicked(self, action: str) -> None:
        if self.visible:
            self._on_choice(action, str(self.instruction.value or ""))

    def choose(self, action: str, instruction: str = "") -> None:
        """A button of the page's prompt: ``action`` with the instruction typed there."""
        if action not in ACTIONS:
            return
        self.instruction.value = instruction if isinstance(instruction, str) else ""
        getattr(self, f"{action}_button").click()

    def show(self, speakers: list[str], next_name: str | None, skip: str) -> None:
        """Ask about the interrupted ``speakers``.

        Args:
            speakers: the interrupted agents' names.
            next_name: who Skip goes on with (``None``: no one).
            skip: what Skip does, in words.
        """
        who = ", ".join(speakers)
        self.question.value = (
            f'<b><i class="fa fa-pause" aria-hidden="true"></i> Paused: {esc(who)} was '
            "interrupted.</b> Type an instruction (optional), "
            f"then <b>Retry</b> asks {esc(who)} again with it; {esc(skip)}; "
            "<b>End discussion</b> ends it here."
        )
        self.retry_button.description = f"Retry {speakers[0]}" if len(speakers) == 1 else "Retry"
        self.retry_button.tooltip = f"Ask {who} again (with the instruction, if any)"
        self.skip_button.description = f"Skip to {next_name}" if next_name else "Skip"
        self.skip_button.tooltip = skip
        self.instruction.value = ""
        self.cleared += 1
        self.visible = True
        self._on_change()

    def hide(self) -> None:
        """Hide the prompt (a choice was made, or the run ended)."""
        if self.visible:
            self.visible = False
            self._on_change()

    def drawn(self) -> dict[str, Any]:
        """Part ``pause`` of the panel's state."""
        return {
            "shown": self.visible,
            "question": self.question.value,
            "controls": {  # text and attributes the page sets (not HTML)
                "retry": self.retry_button.drawn(),
                "skip": self.skip_button.drawn(),
                "stop": self.stop_button.drawn(),
                "placeholder": self.instruction.placeholder,
                "cleared": self.cleared,
            },
        }


__all__ = ["ACTIONS", "PausePrompt"]
