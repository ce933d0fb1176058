"""KeyBindings: keyboard shortcuts for a widget's part of the page, and its liveness banner.

Stock ipywidgets never see key events, so this small ``anywidget`` (an ES module given as a
Python string: no build step; JupyterLab 4, Notebook 7, VS Code, Colab) listens in the front
end. It sits, invisible, inside the widget it serves (``scope``: the CSS class of that widget,
e.g. ``nb-hitl-chat``) and handles keys only while focus is inside that widget:

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from ._look import look
from ._loop import LoopBridge

INACTIVE_TEXT = "kernel restarted: this panel is inactive"
STOPPING_CLASS = "nb-hitl-stopping"
"""The front end's class for a row whose Stop was clicked, until the kernel answers."""

_ESM = r"""
const INACTIVE = "nb-hitl-inactive";
const STOPPING = "nb-hitl-stopping";

function matches(ev, b) {
  if (ev.key !== b.key) return false;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!!b.mod !== mod) return false;
  if (!b.mod && (!!b.shift !== ev.shiftKey || ev.altKey)) return false;
  return true;
}

// The element the event happened on, also inside a shadow root (marimo draws widgets in one;
// a listener on window sees only the shadow's host as the target).
const origin = (ev) => (ev.composedPath && ev.composedPath()[0]) || ev.target;

function render({ model, el }) {
  el.classList.add("nb-hitl-keys");
  el.style.display = "none";
  const root = () => el.closest("." + model.get("scope"));

  // Stop drawn in the click's frame: the kernel's answer takes a round trip, under load longer
  // than a person waits. The kernel's next change to the row's classes ends the guess.
  function markStopping() {
    const scope = root();
    const rows = model.get("stopping_rows");
    if (!scope || !rows || scope.classList.contains(INACTIVE)) return;
    const button = scope.querySelector(model.get("stop_button"));
    if (!button || button.disabled) return;
    for (const row of scope.querySelectorAll(rows)) {
      if (row.classList.contains(STOPPING)) continue;
      row.classList.add(STOPPING);
      const answer = new MutationObserver(() => {
        answer.disconnect();
        row.classList.remove(STOPPING);
      });
      answer.observe(row, { attributes: true, attributeFilter: ["class"] });
    }
  }
  function onClick(ev) {
    const scope = root();
    const selector = model.get("stop_button");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    if (scope.contains(origin(ev)) && origin(ev).closest(selector)) markStopping();
  }
  window.addEventListener("click", onClick, true);

  // Copy buttons carry their message's text; the clipboard API needs a secure context
  // (JupyterLab on localhost or https), a hidden text box does the rest.
  async function copyText(text) {
    if (window.isSecureContext && navigator.clipboard) {
      try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* below */ }
    }
    const box = document.createElement("textarea");
    box.value = text;
    box.setAttribute("readonly", "");
    box.style.position = "fixed";
    box.style.opacity = "0";
    document.body.appendChild(box);
    box.select();
    let done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    box.remove();
    return done;
  }
  // A long text is not in the page: the kernel sends it on request ({copy: id, text}).
  const asked = new Map();
  model.on("msg:custom", (msg) => {
    if (msg && typeof msg.copy === "string" && asked.has(msg.copy)) {
      asked.get(msg.copy)(typeof msg.text === "string" ? msg.text : null);
      asked.delete(msg.copy);
    }
  });
  function fetchText(id) {
    return new Promise((resolve) => {
      asked.set(id, resolve);
      model.send({ action: "copy", text: id });
      setTimeout(() => { if (asked.has(id)) { asked.delete(id); resolve(null); } }, 10000);
    });
  }
  async function copyFetched(id) {
    const text = fetchText(id);
    // A ClipboardItem given a promise keeps the click's permission while the text arrives.
    if (window.isSecureContext && window.ClipboardItem && navigator.clipboard &&
        navigator.clipboard.write) {
      try {
        const blob = text.then((t) => {
          if (t === null) throw new Error("the kernel did not answer");
          return new Blob([t], { type: "text/plain" });
        });
        await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
        return true;
      } catch (e) { /* below */ }
    }
    const got = await text;
    return got === null ? false : copyText(got);
  }
  function onCopy(ev) {
    const scope = root();
    const selector = model.get("copy_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const copying = button.dataset.copyId !== undefined && button.dataset.copy === undefined
      ? copyFetched(button.dataset.copyId) : copyText(button.dataset.copy || "");
    copying.then((done) => {
      button.classList.toggle("nb-hitl-copied", done);
      button.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
      setTimeout(() => { button.classList.remove("nb-hitl-copied");
                         button.title = "Copy this message"; }, 1500);
    });
  }
  window.addEventListener("click", onCopy, true);

  // Row buttons (Edit, Regenerate, the branch switcher's arrows) carry an action and its
  // argument: a click (or Enter / Space on the focused button) sends them to the kernel.
  function onAction(ev) {
    const scope = root();
    const selector = model.get("action_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button) || button.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    model.send({ action: button.dataset.nbHitlAction || "", text: button.dataset.nbHitlArg || "" });
  }
  window.addEventListener("click", onAction, true);

  // "Focus inside the panel" also covers a click on text that takes no focus (the transcript):
  // the browser then focuses the notebook around it. The panel counts as focused from a press
  // inside it until a press elsewhere, while its cell is the notebook's active one.
  const panel = () => el.closest("." + (model.get("focus_scope") || model.get("scope"))) || root();
  let pointed = false;
  function onPointer(ev) {
    const area = panel();
    pointed = !!area && origin(ev) instanceof Node && area.contains(origin(ev));
  }
  window.addEventListener("pointerdown", onPointer, true);
  const EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";
  function panelFocused(target) {
    const area = panel();
    if (!area) return false;
    if (area.contains(target)) return true;
    if (!pointed || (target instanceof Element && target.closest(EDITABLE))) return false;
    const cell = el.closest(".jp-Cell");
    return !cell || cell.classList.contains("jp-mod-active");
  }

  function onKey(ev) {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Node)) return;
    if (scope.classList.contains(INACTIVE) || ev.isComposing) return;
    const inside = scope.contains(origin(ev));
    if (!inside && !panelFocused(origin(ev))) return;
    for (const b of model.get("bindings")) {
      if (!matches(ev, b)) continue;
      if (!inside && !b.anywhere) continue;
      if (!inside && b.enabled) {
        const needed = scope.querySelector(b.enabled);
        if (!needed || needed.disabled) continue;  // nothing to do: the key stays JupyterLab's
      }
      const field = b.within ? origin(ev).closest(b.within) : origin(ev);
      if (!field) continue;
      const near = b.near ? origin(ev).closest(b.near) || scope : scope;
      ev.preventDefault();
      ev.stopPropagation();
      ev.stopImmediatePropagation();
      if (b.click) {
        const button = near.querySelector(b.click);
        if (button && !button.disabled) button.click();
      }
      if (b.action && b.action === model.get("stop_action")) markStopping();
      if (b.action) {
        const sel = "textarea, input";
        const box = field.matches(sel) ? field : field.querySelector(sel);
        const text = box ? box.value : "";
        model.send({ action: b.action, text });
        if (b.clear && box && text.trim()) {
          box.value = "";
          box.dispatchEvent(new Event("input", { bubbles: true }));
        }
      }
      return;
    }
  }
  window.addEventListener("keydown", onKey, true);

  let inactive = false;
  function goInactive() {
    if (inactive) return;
    const scope = el.closest("." + model.get("inactive_scope")) || root();
    if (!scope) return;
    inactive = true;
    scope.classList.add(INACTIVE);
    for (const node of scope.querySelectorAll("button, textarea, input, select")) {
      node.disabled = true;
    }
    for (const status of scope.querySelectorAll(".nb-hitl-status")) {
      status.dataset.state = "inactive";
      status.className = "nb-hitl-status nb-hitl-status-inactive";
      status.textContent = "\u25CF inactive: no kernel behind this panel";
    }
    const note = document.createElement("div");
    note.className = "nb-hitl-inactive-note";
    note.textContent = model.get("inactive_text");
    scope.insertBefore(note, scope.firstChild);
  }
  if (model.get("inactive_scope")) model.on("comm_live_update", goInactive);

  // A shutdown (or a new kernel) does not touch the comms: watch the kernel itself.
  const wm = model.widget_manager;
  const kernelOf = () => {
    try { return wm && wm.kernel; } catch (e) { return undefined; }
  };
  const first = kernelOf();
  const firstId = first && first.id;
  const timer = firstId && model.get("inactive_scope") ? setInterval(() => {
    const k = kernelOf();
    if (!k || k.isDisposed || k.id !== firstId || k.status === "dead") goInactive();
  }, 1000) : null;

  return () => {
    window.removeEventListener("keydown", onKey, true);
    window.removeEventListener("click", onClick, true);
    window.removeEventListener("click", onCopy, true);
    window.removeEventListener("click", onAction, true);
    window.removeEventListener("pointerdown", onPointer, true);
    if (timer) clearInterval(timer);
  };
}
export default { render };
"""


class KeyBindings(anywidget.AnyWidget):
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

    _esm = _ESM
    _css = """
    .nb-hitl-inactive-note { margin: 4px 0; padding: 4px 8px; font-size: 12px;
      border-left: 3px solid var(--nb-hitl-brown, #7a5200); color: var(--nb-hitl-brown, #7a5200);
      background: rgba(138, 109, 59, 0.10); }
    .nb-hitl-inactive button, .nb-hitl-inactive textarea { cursor: not-allowed; }
    .nb-hitl-status-inactive { color: var(--nb-hitl-brown, #7a5200); }
    /* Our note says it once; JupyterLab's broken-link icon on every widget is noise here. */
    .nb-hitl-inactive.jupyter-widgets-disconnected::before,
    .nb-hitl-inactive .jupyter-widgets-disconnected::before { content: none !important;
      display: none !important; }
    """
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
        super().__init__(
            action_buttons=action_buttons,
            focus_scope=focus_scope,
            copy_buttons=copy_buttons,
            scope=scope,
            bindings=bindings,
            inactive_scope=inactive_scope,
            stopping_rows=stopping_rows,
            stop_button=stop_button,
            stop_action=stop_action,
            **look(anywidget.AnyWidget),  # drawn nowhere: the one shared layout
        )
        self._bridge = bridge
        self._actions: dict[str, Callable[[str], Any]] = {}
        self.on_msg(self._on_front_end_msg)

    def on_action(self, name: str, callback: Callable[[str], Any]) -> None:
        """Run ``callback(text)`` (on the loop) when the front end sends action ``name``."""
        self._actions[name] = callback

    def on_copy(self, text_of: Callable[[str], str | None]) -> None:
        """Answer the front end's request for the text of a long message (its Copy button):
        ``text_of(message id)`` gives the text, or None when there is no such message."""

        def answer(msg_id: str) -> None:
            self.send({"copy": msg_id, "text": text_of(msg_id)})

        self.on_action("copy", answer)

    def press(self, name: str, text: str = "") -> None:
        """Do what the front end's action ``name`` does (headless tests, scripts)."""
        callback = self._actions.get(name)
        if callback is not None:
            self._bridge.call(callback, text)

    def _on_front_end_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and isinstance(content.get("action"), str):
            text = content.get("text")
            self.press(content["action"], text if isinstance(text, str) else "")


__all__ = ["INACTIVE_TEXT", "STOPPING_CLASS", "KeyBindings"]
