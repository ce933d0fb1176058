"""HubInputBar: where the person types when a ``UserAgent`` in the discussion waits for them.

It is the ``WaitingDisplay`` of a ``WidgetInput`` (see ``_input.py``): Send is on only while a
``UserAgent`` awaits the input source, and what is sent becomes that agent's reply. The hub's
front end draws the box and Send (``Control`` objects: ``_buttons.py``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from nb_hitl.message import Msg

from .._input import WidgetInput
from .._invisible import is_blank
from ._buttons import Control

NOT_WAITING_NOTE = (
    "Nothing was sent: no one in the discussion is waiting for your message. Send works while "
    "a UserAgent waits for you; while paused, type in the instruction box and press Retry or Skip."
)
EMPTY_NOTE = "Nothing sent: the message is empty. Type it first."
IDLE_PLACEHOLDER = "Your turn comes when a UserAgent in the discussion waits for you…"


_MADE: weakref.WeakSet[WidgetInput] = weakref.WeakSet()


class HubInputBar:
    """A text box and Send.

    Args:
        on_waiting: called with ``True`` when a UserAgent starts waiting, ``False`` after.
        say: shows a note to the person (why nothing was sent).
        on_change: called when what the bar shows changes (the panel draws itself anew).
    """

    def __init__(
        self,
        on_waiting: Callable[[bool], None],
        say: Callable[[str], None],
        on_change: Callable[[], None],
    ) -> None:
        self.input = Control(placeholder=IDLE_PLACEHOLDER)
        """``value``: what is typed (the page sends it with Send, Start...)."""
        self.send_button = Control(
            "Send", self.send_typed, disabled=True, tooltip="Send your message (Ctrl+Enter)"
        )
        self.input.on_change = self.send_button.on_change = on_change
        self.cleared = 0
        """How many times the box was emptied by the kernel (the page empties it too)."""
        self._on_waiting = on_waiting
        self._say = say
        self._on_change = on_change
        self._source: WidgetInput | None = None

    def source(self) -> WidgetInput:
        """The input source a ``UserAgent`` reads (one per bar)."""
        if self._source is None:
            self._source = WidgetInput(self)
            _MADE.add(self._source)
        return self._source

    @staticmethod
    def made_it(source: Any) -> bool:
        """True if ``source`` is a hub panel's input source (a newer panel may take it over)."""
        try:
            return source in _MADE
        except TypeError:
            return False

    def send(self, text: str) -> bool:
        """Give ``text`` to the waiting ``UserAgent``; ``False`` (and a note) if none waits."""
        if not isinstance(text, str) or is_blank(text):
            self._say(EMPTY_NOTE)
            return False
        if self._source is None or not self._source.waiting_for_person:
            self._say(NOT_WAITING_NOTE)
            return False
        self._say("")
        self._source.put(text)
        return True

    def send_typed(self, text: str | None = None) -> None:
        """Send ``text`` (default: the box's value) and clear the box if it went."""
        typed = self.input.value if text is None else text
        if self.send(typed) and self.input.value.strip() == typed.strip():
            self.clear()

    def clear(self) -> None:
        """Empty the box (here and in the page)."""
        self.input.value = ""
        self.cleared += 1
        self._on_change()

    # -- what WidgetInput needs -----------------------------------------------------------------
    def _set_waiting(self, waiting: bool, prompt: Msg | None = None) -> None:
        self.send_button.disabled = not waiting
        self.input.placeholder = (
            "Your turn: type your message and press Send (Ctrl+Enter)."
            if waiting
            else IDLE_PLACEHOLDER
        )
        self._on_waiting(waiting)

    def _input_source_gone(self) -> None:
        self.send_button.disabled = True


__all__ = ["EMPTY_NOTE", "NOT_WAITING_NOTE", "HubInputBar"]
