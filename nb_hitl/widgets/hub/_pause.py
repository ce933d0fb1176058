"""PausePrompt: a paused pipeline asks the person what to do (Retry, Skip or End discussion).

It only shows the question and reports the choice; ``HubPanel`` resumes the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w

from nb_hitl._render import esc

from .._live import html
from .._look import look
from .._loop import LoopBridge


class PausePrompt(w.VBox):
    """The prompt shown while a pipeline waits for ``resume()``; hidden otherwise.

    Args:
        bridge: the panel's loop bridge (button callbacks run on its loop).
        on_choice: called with ``(action, instruction)`` when a button is pressed.
    """

    def __init__(self, bridge: LoopBridge, on_choice: Callable[[str, str], None]) -> None:
        self.question = html()
        self.instruction = w.Textarea(
            placeholder="Instruction (optional): what should happen next?",
            **look(w.Textarea, layout={"width": "100%", "height": "52px"}),
        )
        self.instruction.add_class("nb-hitl-hub-instruction")
        self.retry_button = w.Button(
            description="Retry", button_style="primary", icon="redo", **look(w.Button)
        )
        self.skip_button = w.Button(description="Skip", icon="forward", **look(w.Button))
        # Named by what it does: the panel's own Stop (interrupt the speaker) sits above it.
        self.stop_button = w.Button(
            description="End discussion", button_style="danger", icon="stop", **look(w.Button)
        )
        self.stop_button.tooltip = "End the discussion here: no one else speaks"
        for button, action in (
            (self.retry_button, "retry"),
            (self.skip_button, "skip"),
            (self.stop_button, "stop"),
        ):
            button.add_class(f"nb-hitl-pause-{action}")
            button.on_click(bridge.callback(self._clicked(action, on_choice)))
        super().__init__(
            children=[
                self.question,
                self.instruction,
                w.HBox([self.retry_button, self.skip_button, self.stop_button], **look(w.HBox)),
            ],
            layout={"display": "none"},
        )
        self.add_class("nb-hitl-hub-pause")

    @property
    def visible(self) -> bool:
        """True while the prompt is shown."""
        return self.layout.display != "none"

    def _clicked(
        self, action: str, on_choice: Callable[[str, str], None]
    ) -> Callable[[w.Button], None]:
        def clicked(_button: w.Button) -> None:
            if self.visible:
                on_choice(action, self.instruction.value)

        return clicked

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
        self.instruction.value = ""
        self.layout.display = ""

    def hide(self) -> None:
        """Hide the prompt (a choice was made, or the run ended)."""
        self.layout.display = "none"


__all__ = ["PausePrompt"]
