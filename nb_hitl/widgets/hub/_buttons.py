"""The hub panel's controls, and its Start / Next round / Continue buttons.

The hub is one front-end module (``js/src/hub.js``): its buttons and boxes are drawn there,
from the panel's state. A ``Control`` is what code and tests press or fill (``click()``,
``value``, ``description``, ``disabled``, ``layout.display``): a click in the page arrives as
an action and takes the same path as ``control.click()``; changing a control draws the panel
anew (``on_change``).

*Start* shows before the first run, *Next round* after one ended (the same speakers once
more, or the same pipeline), *Continue* after the person chose Stop in the pause prompt (the
stopped speaker answers again, then those after them). What is typed in the box goes first,
as the person's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_DRAWN = frozenset({"description", "tooltip", "disabled", "shown", "value", "placeholder"})


class _Display:
    """``control.layout.display`` as an ipywidgets layout reads it (``"none"``: hidden)."""

    def __init__(self, control: Control) -> None:
        self._control = control

    @property
    def display(self) -> str:
        return "" if self._control.shown else "none"

    @display.setter
    def display(self, value: str | None) -> None:
        self._control.shown = value != "none"


class Control:
    """A button or text box drawn by the hub's front end.

    Args:
        description: a button's label.
        on_click: what pressing it does (on the panel's loop).
        tooltip: its title.
        disabled: off (a click does nothing).
        shown: drawn at all.
        value: a text box's text.
        placeholder: a text box's hint.
    """

    def __init__(
        self,
        description: str = "",
        on_click: Callable[[], Any] | None = None,
        *,
        tooltip: str = "",
        disabled: bool = False,
        shown: bool = True,
        value: str = "",
        placeholder: str = "",
    ) -> None:
        self.on_change: Callable[[], None] | None = None
        """Called when a drawn attribute changes (the panel draws itself anew)."""
        self._on_click = on_click
        self.description = description
        self.tooltip = tooltip
        self.disabled = disabled
        self.shown = shown
        self.value = value
        self.placeholder = placeholder
        self.layout = _Display(self)

    def __setattr__(self, name: str, value: Any) -> None:
        changed = name in _DRAWN and getattr(self, name, object()) != value
        object.__setattr__(self, name, value)
        if changed and self.__dict__.get("on_change") is not None:
            self.on_change()  # type: ignore[misc]

    def click(self) -> None:
        """Press it, as a click in the page does (nothing while it is off or hidden)."""
        if self._on_click is not None and not self.disabled and self.shown:
            self._on_click()

    def on_click(self, handler: Callable[[], Any]) -> None:
        """What pressing it does."""
        self._on_click = handler

    def drawn(self) -> dict[str, Any]:
        """What the page draws of it (part of ``controls``)."""
        return {
            "label": self.description,
            "tip": self.tooltip,
            "off": bool(self.disabled),
            "shown": bool(self.shown),
        }


class RunButtons:
    """The three buttons and which of them shows.

    Args:
        start: called for Start and Next round (the panel reads the typed text).
        go_on: called for Continue.
    """

    def __init__(self, start: Callable[[], None], go_on: Callable[[], None]) -> None:
        self.start_button = Control(
            "Start", start, tooltip="Start the discussion (what you typed goes first)"
        )
        self.next_button = Control(
            "Next round",
            start,
            tooltip="Everyone speaks once more (what you typed goes first)",
            shown=False,
        )
        self.continue_button = Control(
            "Continue",
            go_on,
            tooltip="Go on where you stopped: that speaker answers again, then the rest",
            shown=False,
        )

    @property
    def buttons(self) -> list[Control]:
        """Start, Next round, Continue."""
        return [self.start_button, self.next_button, self.continue_button]

    def show(self, *, running: bool, ran: bool, can_continue: bool, live: bool = True) -> None:
        """Show the buttons that apply now (none while a discussion runs)."""
        self.start_button.shown = not running and not ran
        self.next_button.shown = not running and ran
        self.continue_button.shown = not running and can_continue
        for button in self.buttons:
            button.disabled = not live


__all__ = ["Control", "RunButtons"]
