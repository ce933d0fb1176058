// The chat's controls (nb_hitl/widgets/_controls.py, `ChatControls`): the status line, the
// toolbar (Retry, Clear, export format, Export), the note, the send-mode picker, the message
// box and the Send / Stop / After step / Continue column, drawn by one view.
//
// State (one part per control): `send`, `stop`, `step`, `continue`, `retry`, `clear`,
// `export` ({label, icon, style, tooltip, disabled, hidden}); `input` ({placeholder,
// disabled}); `input_value` ({text, n}: what the kernel wrote in the box, `n` counting its
// writes); `mode` and `export_format` ({value, options, label, disabled}); `status` and `note`
// (HTML the kernel rendered and escaped). Everything else (labels, tooltips, placeholders) is
// set as text or attributes, never parsed as HTML.
//
// The DOM keeps ipywidgets' classes (`jupyter-button widget-button mod-primary`,
// `widget-textarea`, `widget-toggle-buttons`...) so the look, users' CSS and the keyboard
// bindings (`nb-hitl-input`, `nb-hitl-stop`) keep applying.
import "./controls.css";
import { h, setKernelHtml } from "../shared/dom.js";

/** Each button's key in the state, and its CSS class (what tests and users' CSS read). */
export const BUTTONS = {
  send: "nb-hitl-send",
  stop: "nb-hitl-stop",
  step: "nb-hitl-stop-step",
  continue: "nb-hitl-continue",
  retry: "nb-hitl-retry",
  clear: "nb-hitl-clear",
  export: "nb-hitl-export",
};
/** Milliseconds of no typing after which the box's text is sent (`type`). */
export const TYPE_PAUSE_MS = 300;

const W = "lm-Widget jupyter-widgets";

/** ipywidgets' icon element for a Font Awesome name ("" for none). */
function icon(name, alone) {
  if (!name) return null;
  const names = String(name)
    .split(/\s+/)
    .filter(Boolean)
    .map((n) => `fa-${n.replace(/^fa-/, "")}`);
  return h("i", { class: ["fa", ...names, alone && "center"], "aria-hidden": "true" });
}

/** Draw button `el` from its part `b`. */
export function drawButton(el, b) {
  const part = b || {};
  const label = String(part.label ?? "");
  el.replaceChildren(...[icon(part.icon, !label), label].filter(Boolean));
  el.classList.toggle("mod-primary", part.style === "primary");
  el.classList.toggle("mod-danger", part.style === "danger");
  el.disabled = !!part.disabled;
  el.hidden = !!part.hidden;
  el.style.display = part.hidden ? "none" : "";
  if (part.tooltip) el.title = String(part.tooltip);
  else el.removeAttribute("title");
  if (!label && part.tooltip) el.setAttribute("aria-label", String(part.tooltip));
  else el.removeAttribute("aria-label");
}

/**
 * Build the controls into `root`; returns `draw(state, changed)` (`changed`: the state keys
 * that changed, all of them the first time). `act(name, args)` sends an action.
 */
export function controlsView(root, act, { typePause = TYPE_PAUSE_MS } = {}) {
  const statusHtml = h("div", { class: "widget-html-content" });
  const status = h(
    "div",
    { class: `${W} widget-inline-hbox widget-html nb-hitl-status-line` },
    statusHtml,
  );
  const noteHtml = h("div", { class: "widget-html-content" });
  const note = h(
    "div",
    { class: `${W} widget-inline-hbox widget-html nb-hitl-chat-note` },
    noteHtml,
  );

  const box = h("textarea", {
    class: "widget-input",
    rows: 3,
    "aria-label": "Message",
  });
  const input = h("div", { class: `${W} widget-inline-hbox widget-textarea nb-hitl-input` }, box);

  let typing = null;
  const flushTyping = () => {
    clearTimeout(typing);
    typing = null;
  };
  box.addEventListener("input", () => {
    flushTyping();
    typing = setTimeout(() => {
      typing = null;
      act("type", { text: box.value });
    }, typePause);
  });

  const buttons = {};
  for (const [key, cls] of Object.entries(BUTTONS)) {
    const el = h("button", { type: "button", class: `${W} jupyter-button widget-button ${cls}` });
    el.addEventListener("click", () => {
      if (el.disabled) return;
      flushTyping(); // the text goes with the press
      act(key, { text: box.value });
    });
    buttons[key] = el;
  }

  const exportSelect = h("select", { "aria-label": "Export format" });
  exportSelect.addEventListener("change", () =>
    act("export_format", { value: exportSelect.value }),
  );
  const exportFormat = h(
    "div",
    { class: `${W} widget-inline-hbox widget-dropdown nb-hitl-export-format` },
    exportSelect,
  );
  const tools = h(
    "div",
    {
      class: `${W} widget-container widget-box widget-hbox nb-hitl-chat-tools`,
      role: "toolbar",
      "aria-label": "Chat tools",
    },
    buttons.retry,
    buttons.clear,
    exportFormat,
    buttons.export,
  );

  const modeLabel = h("label", { class: "widget-label" });
  const modeGroup = h("div", { class: "btn-group", role: "group" });
  const mode = h(
    "div",
    { class: `${W} widget-inline-hbox widget-toggle-buttons nb-hitl-send-mode` },
    modeLabel,
    modeGroup,
  );
  let modeDrawn = "";
  let modeValue = null;
  const pickMode = (value) => {
    modeValue = value;
    for (const b of modeGroup.children) {
      const on = b.dataset.value === value;
      b.classList.toggle("mod-active", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    }
  };

  const column = h(
    "div",
    { class: `${W} widget-container widget-box widget-vbox nb-hitl-chat-buttons` },
    buttons.send,
    buttons.stop,
    buttons.step,
    buttons.continue,
  );
  const bar = h(
    "div",
    { class: `${W} widget-container widget-box widget-hbox nb-hitl-chat-bar` },
    input,
    column,
  );
  root.append(status, tools, note, mode, bar);

  let written = -1; // the kernel's last write to the box that the page applied

  return (state, changed) => {
    const has = (key) => changed.has(key);
    for (const key of Object.keys(BUTTONS)) if (has(key)) drawButton(buttons[key], state[key]);
    if (has("status")) setKernelHtml(statusHtml, state.status);
    if (has("note")) {
      setKernelHtml(noteHtml, state.note);
      note.classList.toggle("nb-hitl-empty", !state.note);
    }
    if (has("input")) {
      const part = state.input || {};
      box.placeholder = String(part.placeholder ?? "");
      box.disabled = !!part.disabled;
    }
    if (has("input_value")) {
      const part = state.input_value || {};
      const n = Number(part.n ?? 0);
      if (n !== written) {
        written = n;
        const text = String(part.text ?? "");
        if (box.value !== text) {
          flushTyping();
          box.value = text;
        }
      }
    }
    if (has("mode")) {
      const part = state.mode || {};
      const options = Array.isArray(part.options) ? part.options : [];
      const key = JSON.stringify(options);
      if (key !== modeDrawn) {
        modeDrawn = key;
        modeGroup.replaceChildren(
          ...options.map(([value, label, hint]) => {
            const b = h(
              "button",
              {
                type: "button",
                class: "jupyter-button widget-toggle-button",
                title: hint || null,
                dataset: { value: String(value) },
              },
              String(label),
            );
            b.addEventListener("click", () => {
              if (b.disabled || modeValue === b.dataset.value) return;
              pickMode(b.dataset.value); // drawn at once; the kernel's word follows
              act("mode", { value: b.dataset.value });
            });
            return b;
          }),
        );
      }
      const label = String(part.label ?? "");
      modeLabel.textContent = label;
      modeLabel.title = label;
      modeGroup.setAttribute("aria-label", label.replace(/:$/, "") || "Send mode");
      for (const b of modeGroup.children) b.disabled = !!part.disabled;
      pickMode(String(part.value ?? ""));
    }
    if (has("export_format")) {
      const part = state.export_format || {};
      const options = Array.isArray(part.options) ? part.options : [];
      const key = JSON.stringify(options);
      if (exportSelect.dataset.options !== key) {
        exportSelect.dataset.options = key;
        exportSelect.replaceChildren(
          ...options.map(([value, label]) => h("option", { value: String(value) }, String(label))),
        );
      }
      exportSelect.value = String(part.value ?? "");
      exportSelect.disabled = !!part.disabled;
    }
  };
}

/**
 * The controls drawn inside a host panel (`host.embed(controls, "controls")` in Python: the
 * controls' state is the host's part `controls`, their actions go as the host's action
 * `controls` with `{name, args}`). Returns `draw(part)`: call it with the host's
 * `state.controls` whenever that part changed; it redraws only the sub-parts whose value did
 * (the controls' own ops, applied to the part by a `child` op, keep the others' identity).
 */
export function embeddedControls(root, act, options) {
  const draw = controlsView(root, (name, args) => act("controls", { name, args }), options);
  let last = null;
  return (part) => {
    const next = part || {};
    const changed = new Set(Object.keys(next).filter((k) => !last || next[k] !== last[k]));
    last = next;
    if (changed.size) draw(next, changed);
  };
}
