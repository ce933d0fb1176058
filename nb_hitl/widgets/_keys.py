"""KeyBindings: keyboard shortcuts for a widget's part of the page, and its liveness banner.

Stock ipywidgets never see key events, so this small ``anywidget`` (its front end is
``js/src/keys.js``, bundled into ``static/keys.js``; JupyterLab 4, Notebook 7, VS Code, Colab)
listens in the page. It sits, invisible, inside the widget it serves (``scope``: the CSS
class of that widget, e.g. ``nb-hitl-chat``) and handles keys only while focus is inside it:

- a binding with ``click`` presses that button in the page (the same comm message as a mouse
  click, so there is one code path);
- a binding with ``action`` sends ``{"action": ..., "text": <value of the focused box>}`` to
  the kernel, where ``on_action`` callbacks run on the widget's loop (``LoopBridge``).

The listener is on ``window`` in the capture phase, so the widget sees its keys before
JupyterLab's own shortcut handling (Escape leaving edit mode, Ctrl+Enter running the cell);
it stops only the keys it handles, and only inside its scope. Everything else reaches
JupyterLab untouched. A binding marked ``anywhere`` (the chat's Escape) also works with focus
anywhere in the surrounding panel, including after a click on the transcript's text, which
takes no focus of its own (the notebook gets it): from a press inside the panel until a press
elsewhere, while the panel's cell is the active one.

With ``stopping_rows`` set it also draws Stop at once: a click on ``stop_button`` (or the key
bound to ``stop_action``) gives the rows matching ``stopping_rows`` the class ``STOPPING_CLASS``
(drawn like an interrupted message) in the click's own frame, without waiting for the kernel's
round trip. The guess lasts until the kernel next sets that row's classes: then the kernel's
word stands (interrupted, or finished after all if the reply ended first).

It also tells when the panel can no longer reach its kernel: when the widget manager drops
the comms (kernel restart) or the kernel goes away (shutdown), it shows ``INACTIVE_TEXT``
and disables every button and text box in ``inactive_scope``.

A chat draws its keys itself (``js/src/chat.js``): there the bindings are a ``PanelModel``
part of the chat (``embed(keys, "keys")``, made with ``inside_host()``: no comm of its own),
its state the settings above, and a key press arrives as the chat's action ``keys`` with
``{name: "press", args: {action, text, form}}``. Shown on its own, it is the anywidget it
always was (``keys.js`` reads the traits and sends ``{action, text, form}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import traitlets

from ._loop import LoopBridge
from ._model import PanelModel, static_file

INACTIVE_TEXT = "kernel restarted: this panel is inactive"
STOPPING_CLASS = "nb-hitl-stopping"
"""The front end's class for a row whose Stop was clicked, until the kernel answers."""


SETTINGS = (
    "scope",
    "inactive_scope",
    "inactive_text",
    "bindings",
    "stopping_rows",
    "stop_button",
    "stop_action",
    "focus_scope",
    "copy_buttons",
    "action_buttons",
)
"""The traits a front end reads (the part's state inside a chat, the same names)."""


class KeyBindings(PanelModel):
    """Keyboard shortcuts inside one widget, plus its "kernel restarted" banner.

    Args:
        scope: CSS class of the widget whose keys this handles (it must be an ancestor).
        bindings: dicts with ``key`` (``"Enter"``, ``"Escape"``), ``mod`` (Ctrl or Cmd held),
            ``shift`` (Shift held: ``Escape`` and Shift+``Escape`` are two bindings),
            ``within`` (CSS selector the focused element must be inside), ``near`` (ancestor
            in which ``click`` is looked up), and ``click`` (a button's CSS selector) and/or
            ``action`` (a name sent to the kernel; ``clear`` empties the box after sending).
        bridge: the owning widget's loop bridge (actions run on its loop).
        inactive_scope: CSS class of the widget that goes inactive with the kernel (the
            scope itself when there is no such ancestor; ``""``: never).
        stopping_rows: CSS selector of the rows drawn as stopping at once when Stop is
            clicked (``""``: none; the kernel's own answer then draws them).
        stop_button: CSS selector of the Stop button (marks rows only while enabled).
        stop_action: the action name whose key stops (marks rows like a click).
        focus_scope: CSS class of the area whose focus counts for bindings with
            ``anywhere`` (e.g. the whole panel around the chat; default the scope): focus
            anywhere in it, or a click on its text, which takes no focus. Such a binding with
            ``enabled`` (a button's selector) acts from outside the scope only while that
            button is enabled, so an idle panel leaves the key to JupyterLab.
        copy_buttons: CSS selector of the scope's Copy buttons: a click copies the button's
            ``data-copy`` text to the clipboard, or asks the kernel for the text of message
            ``data-copy-id`` (``on_copy`` answers; ``""``: no Copy buttons).
        action_buttons: CSS selector of the scope's row buttons: a click sends the action
            named by the button's ``data-nb-hitl-action`` with ``data-nb-hitl-arg`` as its
            text (``""``: none).
    """

    _esm = static_file("keys.js")  # js/src/keys.js and js/src/chat/keys.js
    _nb_hitl_panel = False
    """A part of a panel, never a panel marimo shows on its own (``_in_marimo.py``)."""
    _css = static_file("keys.css")
    scope = traitlets.Unicode("").tag(sync=True)
    inactive_scope = traitlets.Unicode("").tag(sync=True)
    inactive_text = traitlets.Unicode(INACTIVE_TEXT).tag(sync=True)
    bindings = traitlets.List(traitlets.Dict()).tag(sync=True)
    stopping_rows = traitlets.Unicode("").tag(sync=True)
    stop_button = traitlets.Unicode("").tag(sync=True)
    stop_action = traitlets.Unicode("").tag(sync=True)
    focus_scope = traitlets.Unicode("").tag(sync=True)
    copy_buttons = traitlets.Unicode("").tag(sync=True)
    action_buttons = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        scope: str,
        bindings: list[dict[str, Any]],
        bridge: LoopBridge,
        *,
        inactive_scope: str = "nb-hitl-panel",
        stopping_rows: str = "",
        stop_button: str = "",
        stop_action: str = "",
        focus_scope: str = "",
        copy_buttons: str = "",
        action_buttons: str = "",
    ) -> None:
        settings: dict[str, Any] = {
            "action_buttons": action_buttons,
            "focus_scope": focus_scope,
            "copy_buttons": copy_buttons,
            "scope": scope,
            "bindings": bindings,
            "inactive_scope": inactive_scope,
            "inactive_text": INACTIVE_TEXT,
            "stopping_rows": stopping_rows,
            "stop_button": stop_button,
            "stop_action": stop_action,
        }
        self._keys: dict[str, Callable[[str], Any]] = {}
        self._form_actions: dict[str, Callable[[str, dict[str, Any]], Any]] = {}
        super().__init__(settings, bridge=bridge, **settings)
        self._bridge = bridge
        # A host's page (the chat's) sends a press as this part's action.
        PanelModel.on_action(self, "press", self._pressed)
        self.observe(self._setting_changed, names=list(SETTINGS))
        self.on_msg(self._on_front_end_msg)

    def drawn_html(self) -> str:
        """Nothing: the keys draw no HTML (their settings are selectors and key names)."""
        return ""

    def _setting_changed(self, change: Any) -> None:
        self.set_view(**{change["name"]: change["new"]})

    def on_action(self, name: str, callback: Callable[[str], Any]) -> None:
        """Run ``callback(text)`` (on the loop) when the front end sends action ``name``."""
        self._keys[name] = callback

    def on_form_action(self, name: str, callback: Callable[[str, dict[str, Any]], Any]) -> None:
        """Run ``callback(text, form)`` (on the loop) for action ``name``: a card's button,
        sent with the values of the card's named controls (``form``; ``_card.py``)."""
        self._form_actions[name] = callback

    def on_copy(self, text_of: Callable[[str], str | None]) -> None:
        """Answer the front end's request for the text of a long message (its Copy button):
        ``text_of(message id)`` gives the text, or None when there is no such message."""

        def answer(msg_id: str) -> None:  # on the comm that draws the keys (the chat's)
            self.carrier().page_send({"copy": msg_id, "text": text_of(msg_id)})

        self.on_action("copy", answer)

    def press(self, name: str, text: str = "", form: dict[str, Any] | None = None) -> None:
        """Do what the front end's action ``name`` does (headless tests, scripts)."""
        with_form = self._form_actions.get(name)
        if with_form is not None:
            self._bridge.call(with_form, text, dict(form or {}))
            return
        callback = self._keys.get(name)
        if callback is not None:
            self._bridge.call(callback, text)

    def _pressed(self, action: Any = "", text: Any = "", form: Any = None, **_: Any) -> None:
        if isinstance(action, str):
            self.press(
                action,
                text if isinstance(text, str) else "",
                form if isinstance(form, dict) else None,
            )

    def _on_front_end_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and isinstance(content.get("action"), str):
            text = content.get("text")
            form = content.get("form")
            self.press(
                content["action"],
                text if isinstance(text, str) else "",
                form if isinstance(form, dict) else None,
            )


__all__ = ["INACTIVE_TEXT", "STOPPING_CLASS", "KeyBindings"]
