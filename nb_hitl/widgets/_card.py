"""Cards drawn inside the transcript's front end (approval cards): rows, not widgets.

A card is a row of the transcript's front end (``CardRow`` is a ``Row``): its HTML is rendered and
escaped by the kernel and holds native controls (buttons, a text box, a select), so a card
opens no comm of its own. Each button carries ``data-nb-hitl-action="card"`` and
``data-nb-hitl-arg="<card key> <verb>"``; the keyboard anywidget (``KeyBindings``, front end
``js/src/chat/key_bindings.js``) sends a click as ``{action: "card", text, form}``, ``form``
holding the values of the card's named controls, and the panel hands it to ``CardRow.act`` on
its loop (``LoopBridge``, whatever thread delivered it). Code and headless tests press the
same controls through ``Control`` objects (``card.approve_button.click()``), the same path.

A card changes by drawing itself anew (``refresh``): the transcript diffs its rows and
sends one ``replace`` op for the card's row.
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from nb_hitl._render import esc

from ._row import Row

CARD_ACTION = "card"
"""The action name a card's buttons send (its argument: ``"<card key> <verb>"``)."""


class _Display:
    """``control.layout.display`` as an ipywidgets layout reads it (``"none"``: not drawn)."""

    def __init__(self, shown: Callable[[], bool]) -> None:
        self._shown = shown

    @property
    def display(self) -> str:
        return "" if self._shown() else "none"


class Control:
    """A control drawn in a card's HTML: what code presses or fills.

    Args:
        card: the card it belongs to.
        verb: what pressing it does (``card.press(verb)``); ``""``: not a button.
        description: its label.
        value: a box's text, a select's value, or the HTML of a drawn part.
        tooltip: its title.
        shown: whether it is drawn now (``layout.display``).
        options: a select's ``(label, value)`` pairs.
    """

    def __init__(
        self,
        card: CardRow,
        verb: str = "",
        *,
        description: str = "",
        value: str = "",
        tooltip: str = "",
        shown: Callable[[], bool] = lambda: True,
        options: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.card = card
        self.verb = verb
        self.description = description
        self.value = value
        self.tooltip = tooltip
        self.disabled = False
        self.options = list(options)
        self.layout = _Display(shown)

    def click(self) -> None:
        """Press it, as a click in the page does (nothing while it is disabled)."""
        if self.verb and not self.disabled:
            self.card.press(self.verb)


def button(card: CardRow, control: Control, cls: str, style: str = "", icon: str = "") -> str:
    """A control's ``<button>`` (ipywidgets' button classes, so the panel's button styles and
    focus ring apply): a click sends ``card <key> <verb>`` with the card's form."""
    classes = f"lm-Widget jupyter-widgets jupyter-button widget-button {cls}"
    if style:
        classes += f" mod-{style}"
    glyph = f'<i class="fa fa-{icon}" aria-hidden="true"></i> ' if icon else ""
    title = f' title="{esc(control.tooltip or control.description)}"'
    off = " disabled" if control.disabled else ""
    return (
        f'<button type="button" class="{classes}" data-nb-hitl-action="{CARD_ACTION}" '
        f'data-nb-hitl-arg="{esc(card.key)} {esc(control.verb)}"{title}{off}>'
        f"{glyph}{esc(control.description)}</button>"
    )


class CardRow(Row):
    """A card: a transcript row whose HTML is its own (see module doc).

    Args:
        key: the row's key (unique in the transcript).
        cls: the row's classes.
    """

    def __init__(self, key: str, cls: str) -> None:
        super().__init__(key, "", cls)
        self._on_change: Callable[[], None] | None = None
        self._inputs: dict[str, Control] = {}
        """The controls whose value the page sends with a press, by form name."""

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        return tuple(self.cls.split())

    def add_class(self, name: str) -> None:
        """Give the row a class (as ``widget.add_class``)."""
        if name not in self.cls.split():
            self.cls = f"{self.cls} {name}".strip()

    def remove_class(self, name: str) -> None:
        """Take a class off the row."""
        self.cls = " ".join(c for c in self.cls.split() if c != name)

    def attach(self, on_change: Callable[[], None] | None) -> None:
        """Call ``on_change`` whenever the card is drawn anew (the transcript re-renders)."""
        self._on_change = on_change

    def field(self, name: str, control: Control) -> Control:
        """Register ``control`` as the form field ``name`` (its value comes with a press)."""
        self._inputs[name] = control
        return control

    def refresh(self) -> None:
        """Draw the card anew from its state."""
        self.html = self.render()
        if self._on_change is not None:
            self._on_change()

    def render(self) -> str:
        """The card's whole HTML (escaped)."""
        raise NotImplementedError

    def press(self, verb: str) -> None:
        """Do what the button ``verb`` does (on the card's loop)."""
        raise NotImplementedError

    def act(self, verb: str, form: Mapping[str, Any] | None = None) -> None:
        """A press from the page: take the form's values, then press ``verb``."""
        for name, value in (form or {}).items():
            control = self._inputs.get(str(name))
            if control is not None and isinstance(value, str):
                control.value = value
        self.press(verb)

    def close(self) -> None:
        """Nothing to close: a card has no comm of its own."""

    def drawn_html(self) -> str:
        """What the page shows (tests)."""
        return self.html


def text_box(name: str, control: Control, cls: str, placeholder: str = "") -> str:
    """A one-line text box holding ``control.value``."""
    hint = (
        f' placeholder="{esc(placeholder)}" aria-label="{esc(placeholder)}"' if placeholder else ""
    )
    return (
        f'<input type="text" class="widget-input {cls}" name="{esc(name)}" '
        f'value="{esc(control.value)}"{hint}>'
    )


def text_area(name: str, control: Control, cls: str, rows: int = 6, label: str = "") -> str:
    """A text area holding ``control.value``."""
    aria = f' aria-label="{esc(label)}"' if label else ""
    return (
        f'<textarea class="widget-input {cls}" name="{esc(name)}" rows="{rows}"{aria}>'
        f"{html_lib.escape(control.value, quote=False)}</textarea>"
    )


def select(name: str, control: Control, cls: str, label: str = "") -> str:
    """A select of ``control.options``, ``control.value`` picked."""
    options = "".join(
        f'<option value="{esc(value)}"{" selected" if value == control.value else ""}>'
        f"{esc(text)}</option>"
        for text, value in control.options
    )
    aria = f' aria-label="{esc(label)}"' if label else ""
    title = f' title="{esc(control.tooltip)}"' if control.tooltip else ""
    off = " disabled" if control.disabled else ""
    return f'<select class="{cls}" name="{esc(name)}"{aria}{title}{off}>{options}</select>'


__all__ = ["CARD_ACTION", "CardRow", "Control", "button", "select", "text_area", "text_box"]
