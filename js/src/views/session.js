// The session bar's view (nb_hitl/widgets/_session.py): drawn by session.js on its own, or
// inside the agent panel (panel.js) as its part `session`.
//
// State: `controls` ({path: the session file, autosave, undo: Undo load is on, confirm: a Load
// asks Replace / Cancel, undo_tip}), `note` (HTML the kernel rendered and escaped) and `css`.
// Every button sends the path in the box with its action, so a path typed but not yet
// committed is the one saved to or loaded from.
import "../panel.css";
import { button, setOff, setValue, uid } from "../shared/controls.js";
import { h, setKernelHtml } from "../shared/dom.js";
import { kernelStyle } from "./style.js";

/** Build the bar into `root`; returns `draw(state)`. `act(name, args)` sends an action. */
export function sessionView(root, act) {
  const style = kernelStyle(root);
  const id = uid("nbh-session-path");
  const path = h("input", {
    type: "text",
    id,
    class: "nbh-session-path",
    spellcheck: "false",
    autocomplete: "off",
  });
  const withPath = (name) => () => act(name, { path: path.value });
  path.addEventListener("change", () => act("path", { value: path.value }));
  path.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.isComposing) {
      ev.preventDefault();
      act("path", { value: path.value });
    }
  });
  const save = button("Save", withPath("save"), { className: "nbh-session-save" });
  const load = button("Load", withPath("load"), { className: "nbh-session-load" });
  const undo = button("Undo load", withPath("undo"), { className: "nbh-session-undo" });
  const autosave = h("input", { type: "checkbox", class: "nbh-session-autosave" });
  autosave.addEventListener("change", () => act("autosave", { value: autosave.checked }));
  const note = h("span", { class: "nbh-session-note", role: "status", "aria-live": "polite" });
  const replace = button("Replace", withPath("replace"), {
    className: "nbh-session-replace nbh-warning",
  });
  const cancel = button("Cancel", withPath("cancel"), { className: "nbh-session-cancel" });
  const bar = h(
    "div",
    { class: "nbh-row nbh-session", role: "group", "aria-label": "Session" },
    h("label", { for: id, class: "nbh-session-label" }, "Session"),
    path,
    save,
    load,
    undo,
    h("label", { class: "nbh-check" }, autosave, "Autosave"),
    note,
    replace,
    cancel,
  );
  root.append(bar);
  let drawnNote = null;
  return (state) => {
    const s = state || {};
    const c = s.controls || {};
    style(s.css);
    setValue(path, c.path);
    autosave.checked = Boolean(c.autosave);
    undo.dataset.title = c.undo_tip || "";
    setOff(undo, c.undo ? null : "");
    setOff(load, c.confirm ? "" : null);
    replace.hidden = !c.confirm;
    cancel.hidden = !c.confirm;
    if (s.note !== drawnNote) {
      setKernelHtml(note, s.note || "");
      drawnNote = s.note;
    }
  };
}
