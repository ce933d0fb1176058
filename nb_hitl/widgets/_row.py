"""Rows of the transcript's front end (``TranscriptView``): what the page draws for one row.

A row is not a widget: it is one item of the transcript model's ``rows`` (``item()``), its
HTML rendered and escaped by the kernel. Buttons the front end draws after a row's HTML
(``RowButton``: Undo, Show all) send the action ``row`` with the row's key and the button's
verb; ``RowButton.click()`` sends the same message through the page's path
(``PanelModel.page_message``), so code and headless tests press what a person presses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ROW_ACTION = "row"
"""The action a row's button sends (its arguments: ``{id, verb}``)."""


class _Display:
    """``button.layout.display`` as an ipywidgets layout reads it (``"none"``: not drawn)."""

    def __init__(self) -> None:
        self.display = ""


class Row:
    """One finished row: a message, a note, a branch switcher, a card (``CardRow``).

    Args:
        key: the row's key (a message id: unique in the transcript).
        html: the row's whole HTML (escaped: it goes to ``innerHTML``).
        cls: the row's classes, space-separated.
        msg: the message it was drawn from (a new message object means a redraw).
    """

    def __init__(self, key: str, html: str, cls: str = "", msg: Any = None) -> None:
        self.key = key
        self.html = html
        self.cls = cls
        self.msg = msg
        self.buttons: list[RowButton] = []
        self.on_change: Callable[[], None] | None = None
        """Draws the transcript anew (set by the transcript that shows the row)."""
        self.press_row: Callable[[str, str], None] | None = None
        """Sends a button's press as the page does (set by the transcript)."""

    @property
    def value(self) -> str:
        """The row's HTML (as an ``HTML`` widget's ``value``)."""
        return self.html

    @value.setter
    def value(self, html: str) -> None:
        self.html = html
        self.changed()

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        return tuple(self.cls.split())

    def add_class(self, name: str) -> None:
        """Give the row a class (as ``widget.add_class``)."""
        if name not in self.cls.split():
            self.cls = f"{self.cls} {name}".strip()
            self.changed()

    def remove_class(self, name: str) -> None:
        """Take a class off the row."""
        if name in self.cls.split():
            self.cls = " ".join(c for c in self.cls.split() if c != name)
            self.changed()

    def button(self, verb: str, description: str, **kwargs: Any) -> RowButton:
        """Add a button the page draws after the row's HTML (see ``RowButton``)."""
        b = RowButton(self, verb, description, **kwargs)
        self.buttons.append(b)
        return b

    def changed(self) -> None:
        """The row changed: the transcript sends it anew."""
        if self.on_change is not None:
            self.on_change()

    def press(self, verb: str) -> None:
        """A button ``verb`` was pressed in the page (on the kernel loop)."""
        for b in self.buttons:
            if b.verb == verb and not b.disabled and b.layout.display != "none":
                for fn in list(b.handlers):
                    fn(b)

    def item(self) -> dict[str, Any]:
        """What the page draws: one item of the transcript model's ``rows``."""
        out: dict[str, Any] = {"id": self.key, "cls": self.cls, "html": self.html}
        if self.buttons:
            out["buttons"] = [b.spec() for b in self.buttons]
        return out

    def drawn_html(self) -> str:
        """What the front end shows, as HTML (tests, exports)."""
        return self.html

    def close(self) -> None:
        """Nothing to close: a row has no comm of its own."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r}, {self.cls!r})"


class RowButton:
    """A button drawn after a row's HTML (``Undo``, ``Show all``); see module doc.

    Args:
        row: the row it belongs to.
        verb: what pressing it does (``row.press(verb)``).
        description: its label.
        icon: a Font Awesome icon name.
        tooltip: its title.
        cls: its classes (``nb-hitl-undo-compression``).
    """

    def __init__(
        self,
        row: Row,
        verb: str,
        description: str,
        *,
        icon: str = "",
        tooltip: str = "",
        cls: str = "",
    ) -> None:
        self.row = row
        self.verb = verb
        self._description = description
        self.icon = icon
        self.tooltip = tooltip
        self.cls = cls
        self._disabled = False
        self.layout = _Display()
        self.handlers: list[Callable[[RowButton], Any]] = []

    @property
    def description(self) -> str:
        """Its label."""
        return self._description

    @description.setter
    def description(self, value: str) -> None:
        if value != self._description:
            self._description = value
            self.row.changed()

    @property
    def disabled(self) -> bool:
        """Whether it is off."""
        return self._disabled

    @disabled.setter
    def disabled(self, value: bool) -> None:
        if bool(value) != self._disabled:
            self._disabled = bool(value)
            self.row.changed()

    def hide(self, hidden: bool = True) -> None:
        """Draw it or not (``layout.display``)."""
        display = "none" if hidden else ""
        if display != self.layout.display:
            self.layout.display = display
            self.row.changed()

    def on_click(self, fn: Callable[[RowButton], Any]) -> None:
        """Call ``fn(button)`` when it is pressed."""
        self.handlers.append(fn)

    def click(self) -> None:
        """Press it as the page does (the row action); directly when the row is not shown."""
        if self.row.press_row is not None:
            self.row.press_row(self.row.key, self.verb)
        else:
            self.row.press(self.verb)

    def spec(self) -> dict[str, Any]:
        """How the page draws it."""
        out: dict[str, Any] = {
            "label": self._description,
            "action": ROW_ACTION,
            "args": {"id": self.row.key, "verb": self.verb},
            "cls": self.cls,
        }
        if self.icon:
            out["icon"] = self.icon
        if self.tooltip:
            out["title"] = self.tooltip
        if self._disabled:
            out["disabled"] = True
        if self.layout.display == "none":
            out["hidden"] = True
        return out


__all__ = ["ROW_ACTION", "Row", "RowButton"]
