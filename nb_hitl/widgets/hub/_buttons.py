"""The hub panel's Start / Next round / Continue buttons: running a discussion without code.

Shown in a row above the input box while no discussion runs: *Start* before the first run,
*Next round* after one ended (the same speakers once more, or the same pipeline), *Continue*
after the person chose Stop in the pause prompt (the stopped speaker answers again, then those
after them).
What is typed in the box goes first, as the person's message.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w

from .._look import look, set_display
from .._loop import LoopBridge


class RunButtons:
    """The three buttons and which of them shows.

    Args:
        bridge: the panel's loop bridge.
        start: called for Start and Next round (the panel reads the typed text).
        go_on: called for Continue.
    """

    def __init__(
        self,
        bridge: LoopBridge,
        start: Callable[[], None],
        go_on: Callable[[], None],
    ) -> None:
        self.start_button = w.Button(
            description="Start",
            icon="play",
            button_style="primary",
            tooltip="Start the discussion (what you typed goes first)",
            **look(w.Button),  # shown and hidden by ``show`` (``set_display``)
        )
        self.start_button.add_class("nb-hitl-hub-start")
        self.next_button = w.Button(
            description="Next round",
            icon="repeat",
            tooltip="Everyone speaks once more (what you typed goes first)",
            **look(w.Button),
        )
        self.next_button.add_class("nb-hitl-hub-next")
        self.continue_button = w.Button(
            description="Continue",
            icon="forward",
            tooltip="Go on where you stopped: that speaker answers again, then the rest",
            **look(w.Button),
        )
        self.continue_button.add_class("nb-hitl-hub-continue")
        for button in (self.start_button, self.next_button):
            button.on_click(bridge.callback(lambda _b: start()))
        self.continue_button.on_click(bridge.callback(lambda _b: go_on()))
        self.box = w.HBox(self.buttons, **look(w.HBox))
        """The row holding them (above the input box: room for their labels at any width)."""
        self.box.add_class("nb-hitl-hub-runs")

    @property
    def buttons(self) -> list[w.Button]:
        """Start, Next round, Continue."""
        return [self.start_button, self.next_button, self.continue_button]

    def show(self, *, running: bool, ran: bool, can_continue: bool, live: bool = True) -> None:
        """Show the buttons that apply now (none while a discussion runs)."""
        shown = {
            self.start_button: not running and not ran,
            self.next_button: not running and ran,
            self.continue_button: not running and can_continue,
        }
        for button, visible in shown.items():
            set_display(button, "" if visible else "none")
            button.disabled = not live


__all__ = ["RunButtons"]
