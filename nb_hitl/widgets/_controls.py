"""ChatControls: the chat's controls as one front-end part (one ``PanelModel``, no widget each).

What a ``ChatWidget`` shows under its transcript is drawn by one ES module
(``js/src/chat_controls.js``, the view ``js/src/chat/controls.js``, styles
``js/src/chat/controls.css``): the status line (a live region, with the context gauge and the
permission mode), the toolbar (Retry, Clear, the export format and Export), the note, the send
mode picker (interrupt / steer / queue), the message box and the Send / Stop / After step /
Continue column. Before, each was an ipywidget of its own (about 20 comms per chat).

The state (``PanelModel``; one top-level part per control, so a change sends only that part):

- ``send``, ``stop``, ``step``, ``continue``, ``retry``, ``clear``, ``export``: a button,
  ``{label, icon, style, tooltip, disabled, hidden}``;
- ``input``: ``{placeholder, disabled}``; ``input_value``: ``{text, n}``, what the kernel put
  in the box (``n`` counts the kernel's writes: the page replaces what is typed only then);
- ``mode``: ``{value, options: [[value, label, hint]], label, disabled}``;
- ``export_format``: ``{value, options: [[value, label]]}``;
- ``status``, ``note``: HTML the kernel rendered and escaped.

The page sends actions (``{t: "action", name, args}``), run on the chat's loop whatever thread
delivers them (``PanelModel``): a button's key (``send``, ``stop``, ``step``, ``continue``,
``retry``, ``clear``, ``export``) with ``text``, what the box holds then; ``type`` with
``text`` (a pause in typing); ``mode`` and ``export_format`` with ``value``. Each press runs
the button's ``on_click`` callbacks, as a click on an ipywidgets ``Button`` did.

The Python names people and tests use stay: ``chat.input.value``, ``chat.send_button``,
``chat.stop_button``, ``chat.mode_picker.value``, ``chat.tools.retry_button``... are small
stand-ins (``ControlButton``, ``ControlInput``, ``ControlChoice``, ``ControlHtml``) backed by
this model's state: they have the attributes code used on the widgets they replace
(``value``, ``disabled``, ``description``, ``tooltip``, ``placeholder``, ``layout.display``,
``click()``, ``on_click()``, ``observe()``).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import traitlets

from ._loop import LoopBridge
from ._model import PanelModel, inside_host, static_file

BUTTON_KEYS = ("send", "stop", "step", "continue", "retry", "clear", "export")
"""The buttons the controls draw, by their key in the state (and the action a press sends)."""
CLASSES = {
    "send": "nb-hitl-send",
    "stop": "nb-hitl-stop",
    "step": "nb-hitl-stop-step",
    "continue": "nb-hitl-continue",
    "retry": "nb-hitl-retry",
    "clear": "nb-hitl-clear",
    "export": "nb-hitl-export",
    "input": "nb-hitl-input",
    "mode": "nb-hitl-send-mode",
    "export_format": "nb-hitl-export-format",
    "status": "nb-hitl-status-line",
    "note": "nb-hitl-chat-note",
}
"""Each control's CSS class in the page (what users' CSS, the keyboard bindings and browser
tests read; ``js/src/chat/controls.js`` draws them)."""


class _Layout:
    """``control.layout`` as code used it on a widget: ``display`` (``"none"``: hidden); other
    attributes (widths...) are kept but not drawn: the front end lays the controls out."""

    def __init__(self, control: _Control) -> None:
        self._control = control

    @property
    def display(self) -> str:
        return "none" if self._control.hidden else ""

    @display.setter
    def display(self, value: str | None) -> None:
        self._control.hidden = value == "none"


class _Control:
    """What every stand-in has: its part of the state, observers, ``layout``."""

    _fields: tuple[str, ...] = ()

    def __init__(self, controls: ChatControls, key: str, **values: Any) -> None:
        self._controls = controls
        self._key = key
        self._values: dict[str, Any] = dict(values)
        self._observers: list[tuple[Callable[[dict[str, Any]], Any], tuple[str, ...]]] = []
        self.layout = _Layout(self)

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        """Its classes in the page (as a widget's ``_dom_classes``)."""
        return (CLASSES[self._key],)

    def _set(self, name: str, value: Any) -> None:
        old = self._values.get(name)
        if old == value and name in self._values:
            return
        self._values[name] = value
        self._controls._changed(self._key, self.part())
        change = {"name": name, "old": old, "new": value, "owner": self, "type": "change"}
        for callback, names in list(self._observers):
            if name in names:
                callback(change)

    @property
    def hidden(self) -> bool:
        """Not drawn (``layout.display == "none"``)."""
        return bool(self._values.get("hidden"))

    @hidden.setter
    def hidden(self, value: bool) -> None:
        if "hidden" in self._values:
            self._set("hidden", bool(value))
        else:
            self._values["hidden"] = bool(value)

    @property
    def disabled(self) -> bool:
        """Greyed out (the page refuses it): by the chat, or kept off by ``set_limits``."""
        return bool(self._values.get("disabled")) or self._key in self._controls.limits

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self._set("disabled", bool(value))

    @property
    def tooltip(self) -> str:
        """The title the page shows on hover (why it is off, when ``set_limits`` keeps it so)."""
        limit = self._controls.limits.get(self._key)
        return limit if limit is not None else str(self._values.get("tooltip") or "")

    @tooltip.setter
    def tooltip(self, value: str | None) -> None:
        self._set("tooltip", value or "")

    def observe(self, handler: Callable[[dict[str, Any]], Any], names: Any = "value") -> None:
        """Call ``handler(change)`` when one of ``names`` changes (as traitlets' ``observe``)."""
        wanted = (names,) if isinstance(names, str) else tuple(names)
        self._observers.append((handler, wanted))

    def unobserve(self, handler: Callable[[dict[str, Any]], Any], names: Any = "value") -> None:
        """Stop calling ``handler``."""
        self._observers = [(h, n) for h, n in self._observers if h is not handler]

    def part(self) -> dict[str, Any]:
        """This control's part of the view state."""
        part = {name: self._values.get(name) for name in self._fields}
        if self._key in self._controls.limits:  # off, whatever the chat set, and why
            part["disabled"] = True
            if "tooltip" in part:
                part["tooltip"] = self.tooltip
        return part


class ControlButton(_Control):
    """A button the controls draw: ``description``, ``icon``, ``button_style``, ``tooltip``,
    ``disabled``, ``layout.display``; ``click()`` runs the ``on_click`` callbacks, as a press
    in the page does (the ``ipywidgets.Button`` it replaces did the same)."""

    _fields = ("label", "icon", "style", "tooltip", "disabled", "hidden")

    def __init__(
        self,
        controls: ChatControls,
        key: str,
        description: str,
        *,
        icon: str = "",
        button_style: str = "",
        tooltip: str = "",
        disabled: bool = False,
        hidden: bool = False,
    ) -> None:
        super().__init__(
            controls,
            key,
            label=description,
            icon=icon,
            style=button_style,
            tooltip=tooltip,
            disabled=disabled,
            hidden=hidden,
        )
        self._clicks: list[Callable[[Any], Any]] = []

    @property
    def description(self) -> str:
        """The label."""
        return str(self._values["label"])

    @description.setter
    def description(self, value: str) -> None:
        self._set("label", value)

    @property
    def icon(self) -> str:
        """A Font Awesome icon name (``"stop"``)."""
        return str(self._values["icon"])

    @icon.setter
    def icon(self, value: str) -> None:
        self._set("icon", value)

    @property
    def button_style(self) -> str:
        """``"primary"``, ``"danger"`` or ``""``."""
        return str(self._values["style"])

    @button_style.setter
    def button_style(self, value: str) -> None:
        self._set("style", value)

    def on_click(self, callback: Callable[[Any], Any], remove: bool = False) -> None:
        """Run ``callback(button)`` on every press (``remove``: stop running it)."""
        if remove:
            self._clicks = [c for c in self._clicks if c is not callback]
        else:
            self._clicks.append(callback)

    def click(self) -> None:
        """Press it, as a click in the page does."""
        for callback in list(self._clicks):
            callback(self)


class ControlInput(_Control):
    """The message box: ``value`` (what is typed: the page sends it with every press and when
    typing pauses; setting it writes the box), ``placeholder``, ``disabled``."""

    _fields = ("placeholder", "disabled")

    def __init__(self, controls: ChatControls, placeholder: str = "") -> None:
        super().__init__(controls, "input", placeholder=placeholder, disabled=False)
        self._text = ""
        self._writes = 0

    @property
    def value(self) -> str:
        """The text in the box."""
        return self._text

    @value.setter
    def value(self, text: str) -> None:
        old, self._text = self._text, str(text)
        self._writes += 1
        self._controls._changed("input_value", {"text": self._text, "n": self._writes})
        if old != self._text:
            self._notify_value(old)

    def typed(self, text: Any) -> None:
        """The page says the box holds ``text`` (nothing is sent back)."""
        if not isinstance(text, str) or text == self._text:
            return
        old, self._text = self._text, text
        self._controls._quiet("input_value", {"text": text, "n": self._writes})
        self._notify_value(old)

    def _notify_value(self, old: str) -> None:
        change = {"name": "value", "old": old, "new": self._text, "owner": self, "type": "change"}
        for callback, names in list(self._observers):
            if "value" in names:
                callback(change)

    @property
    def placeholder(self) -> str:
        """The grey text of an empty box."""
        return str(self._values["placeholder"])

    @placeholder.setter
    def placeholder(self, value: str) -> None:
        self._set("placeholder", value)


class ControlChoice(_Control):
    """A choice among ``options`` (the send mode picker, the export format): ``value``,
    ``options`` (``(label, value)`` pairs, as ipywidgets takes them), ``disabled``."""

    _fields = ("value", "options", "label", "disabled")

    def __init__(
        self,
        controls: ChatControls,
        key: str,
        options: Iterable[tuple[str, str]],
        value: str,
        *,
        description: str = "",
        tooltips: Iterable[str] = (),
    ) -> None:
        pairs = [(str(label), str(v)) for label, v in options]
        hints = list(tooltips)
        super().__init__(
            controls,
            key,
            value=value,
            options=[[v, label, hints[i] if i < len(hints) else ""] for i, (label, v) in
                     enumerate(pairs)],
            label=description,
            disabled=False,
        )  # fmt: skip
        self._check(value)

    def _check(self, value: Any) -> None:
        allowed = [o[0] for o in self._values["options"]]
        if value not in allowed:
            raise traitlets.TraitError(
                f"Invalid selection: value {value!r} not among {', '.join(map(repr, allowed))}."
            )

    @property
    def options(self) -> list[tuple[str, str]]:
        """The ``(label, value)`` pairs, in order."""
        return [(o[1], o[0]) for o in self._values["options"]]

    @property
    def description(self) -> str:
        """The label in front of the choices."""
        return str(self._values["label"])

    @property
    def value(self) -> str:
        """The value chosen."""
        return str(self._values["value"])

    @value.setter
    def value(self, value: str) -> None:
        self._check(value)
        self._set("value", value)


class ControlHtml(_Control):
    """A part drawn as HTML the kernel rendered and escaped (the status line, the note):
    ``value``."""

    def __init__(self, controls: ChatControls, key: str) -> None:
        super().__init__(controls, key, value="")

    @property
    def value(self) -> str:
        """The HTML."""
        return str(self._values["value"])

    @value.setter
    def value(self, html: str) -> None:
        self._set("value", html)

    def part(self) -> Any:
        return self._values["value"]


class ChatControls(PanelModel):
    """The chat's controls, one front-end part (see module doc).

    Made in two steps: the stand-ins are set up (labels, tooltips, handlers), then ``ready()``
    sends the whole state; until then the state is empty.

    Args:
        bridge: the chat's loop (actions run on it).
        placeholder: the message box's grey text.
        send_mode: the mode picker's value; ``modes``: its ``(label, value)`` options,
            ``hints`` their tooltips.
        embedded: to be drawn inside another panel (``host.embed(controls, "controls")``):
            no comm of its own is opened (as if made in ``inside_host()``, which a chat
            does); its state is the host's part and its actions come as the host's action
            ``controls`` (``{name, args}``).
    """

    _esm = static_file("chat_controls.js")
    _css = static_file("chat_controls.css")

    def __init__(
        self,
        bridge: LoopBridge,
        *,
        placeholder: str,
        send_mode: str,
        modes: Iterable[tuple[str, str]],
        hints: Iterable[str],
        embedded: bool = False,
    ) -> None:
        self._building = True  # see ready()
        self.limits: dict[str, str] = {}
        """The controls kept off, each with why (``set_limits``)."""
        self._batch: dict[str, Any] | None = None
        self._parts: dict[str, Any] = {}
        """Every part, while being built."""
        if embedded:  # drawn inside its host (``host.embed``): no comm of its own is opened
            with inside_host():
                super().__init__({}, bridge=bridge)
        else:
            super().__init__({}, bridge=bridge)
        self.add_class("nb-hitl-controls")
        b = ControlButton
        self.send_button = b(self, "send", "Send", icon="paper-plane", button_style="primary")
        self.stop_button = b(
            self, "stop", "Stop", icon="stop", button_style="danger", disabled=True
        )
        self.step_button = b(self, "step", "After step", icon="step-forward", disabled=True)
        self.continue_button = b(self, "continue", "Continue", icon="play", disabled=True)
        self.retry_button = b(self, "retry", "Retry", icon="repeat", hidden=True)
        self.clear_button = b(self, "clear", "Clear", icon="eraser")
        self.export_button = b(self, "export", "Export", icon="download")
        self.input = ControlInput(self, placeholder)
        self.mode_picker = ControlChoice(
            self, "mode", modes, send_mode, description="While running:", tooltips=hints
        )
        self.export_format = ControlChoice(
            self, "export_format", [("Markdown", "markdown"), ("HTML", "html")], "markdown"
        )
        self.status = ControlHtml(self, "status")
        self.note = ControlHtml(self, "note")
        controls: list[_Control] = [
            *self.buttons().values(),
            self.input,
            self.mode_picker,
            self.export_format,
            self.status,
            self.note,
        ]
        for control in controls:
            self._parts[control._key] = control.part()
        self._parts["input_value"] = {"text": "", "n": 0}
        for key, button in self.buttons().items():
            self.on_action(key, self._press(button))
        # Tolerant of what another version of the page may add (unknown args are ignored).
        self.on_action("type", lambda text="", **_: self.input.typed(text))
        self.on_action("mode", lambda value="", **_: self._choose(self.mode_picker, value))
        self.on_action(
            "export_format", lambda value="", **_: self._choose(self.export_format, value)
        )

    def buttons(self) -> dict[str, ControlButton]:
        """The buttons, by their key (``BUTTON_KEYS``)."""
        return {
            "send": self.send_button,
            "stop": self.stop_button,
            "step": self.step_button,
            "continue": self.continue_button,
            "retry": self.retry_button,
            "clear": self.clear_button,
            "export": self.export_button,
        }

    def switchable(self) -> dict[str, _Control]:
        """The controls that can be off (all but the status line and the note), by key."""
        return {
            **self.buttons(),
            "input": self.input,
            "mode": self.mode_picker,
            "export_format": self.export_format,
        }

    def set_limits(self, limits: dict[str, str]) -> None:
        """Keep the controls named in ``limits`` (by key: ``"clear"``, ``"step"``, ``"mode"``...)
        off, each with its reason as its tooltip, whatever the chat sets on them later (what a
        remote agent cannot do); replaces the limits set before (``{}``: none).

        Raises:
            ValueError: a key that names no control (nothing is changed).
        """
        every = self.switchable()
        unknown = sorted(set(limits) - set(every))
        if unknown:
            raise ValueError(
                f"set_limits: no control named {', '.join(map(repr, unknown))} "
                f"(the controls: {', '.join(sorted(every))})"
            )
        old, self.limits = self.limits, {str(k): str(v) for k, v in limits.items()}
        with self.batch():
            for key in set(old) | set(self.limits):
                if old.get(key) != self.limits.get(key):
                    self._changed(key, every[key].part())

    def press(self, name: str, **args: Any) -> None:
        """Send action ``name`` as the page does (headless tests, scripts): ``press("send",
        text="hi")`` is typing "hi" and pressing Send."""
        self.page_message({"t": "action", "name": name, "args": args})

    def _press(self, button: ControlButton) -> Callable[..., None]:
        def pressed(text: Any = None, **_: Any) -> None:
            if text is not None:
                self.input.typed(text)
            button.click()

        return pressed

    def _choose(self, choice: ControlChoice, value: Any) -> None:
        try:
            choice.value = value
        except traitlets.TraitError:  # not one of ours (another version's page): redrawn
            self.apply_ops([{"op": "set", "key": choice._key, "value": choice.part()}])

    def drawn_html(self) -> str:
        """The parts the page inserts as HTML: the status line and the note (labels, tooltips
        and the placeholder are set as text and attributes)."""
        return "\n".join([self.status.value, self.note.value])

    def ready(self) -> None:
        """The chat has set the controls up: their whole state goes to the page at once, as
        the snapshot trait (so the first view draws them complete, with no empty frame and
        no op batch sent before any view could take it). Changes then go as ops."""
        if not self._building:
            return
        self._building = False
        self._state.update(copy.deepcopy(self._parts))
        self.seq += 1
        self.snapshot = self._snapshot()
        if self._host is not None:  # embedded before it was ready: the host's part now
            host, key = self._host
            host.set_view(**{key: self.state})

    # -- the state ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Send the changes made inside as one batch of ops."""
        if self._batch is not None or self._building:
            yield
            return
        self._batch = {}
        try:
            yield
        finally:
            parts, self._batch = self._batch, None
            self.set_view(**parts)

    def _changed(self, key: str, value: Any) -> None:
        if self._building:
            self._parts[key] = value
        elif self._batch is not None:
            self._batch[key] = value
        else:
            self.set_view(**{key: value})

    def _quiet(self, key: str, value: Any) -> None:
        """Record a part the page already shows (what it typed): nothing is sent."""
        if self._building:
            self._parts[key] = value
            return
        self._quietly(key, value)


__all__ = [
    "BUTTON_KEYS",
    "CLASSES",
    "ChatControls",
    "ControlButton",
    "ControlChoice",
    "ControlHtml",
    "ControlInput",
]
