// Form controls every panel shares: buttons, a slider paired with a number box, a select.
// Each takes its values from the panel state and reports the user's changes through a
// callback (the panel sends them as actions); none keeps state of its own.
import "./controls.css";
import { h } from "./dom.js";

let nextId = 0;
/** A page-unique id for a label's `for`. */
export const uid = (prefix) => `${prefix}-${++nextId}`;

/** A button; `off` (a string, "" for no reason) disables it and says why in its tooltip. */
export function button(label, onclick, { title, primary, className } = {}) {
  const el = h(
    "button",
    { type: "button", class: [className, primary && "nbh-primary"], title },
    label,
  );
  el.addEventListener("click", () => {
    if (!el.disabled) onclick();
  });
  el.dataset.title = title || "";
  return el;
}

/** Turn a control on or off; off with a reason shows it as the tooltip. */
export function setOff(el, reason) {
  const off = reason != null;
  el.disabled = off;
  if (off && reason) el.title = reason;
  else if (el.dataset.title !== undefined) el.title = el.dataset.title;
  else el.removeAttribute("title");
}

/** Set an input's value unless the user is typing in it (the kernel's echo must not fight). */
export function setValue(el, value) {
  if (el.ownerDocument.activeElement === el && el.type !== "range") return;
  const text = String(value ?? "");
  if (el.value !== text) el.value = text;
}

/**
 * A labelled slider and number box that mirror each other: `{row, range, box, set(c)}`.
 *
 * `onChange(value)` runs when the user lets go of the slider or commits the box (Enter, blur);
 * while the slider is dragged it also runs every `throttleMs` when `continuous` is true.
 * Typing past the slider's end widens the slider instead of being clamped.
 */
export function numberPair(label, onChange, { throttleMs = 80 } = {}) {
  const id = uid("nbh-range");
  const range = h("input", { type: "range", id, min: 0, step: 1, "aria-label": label });
  const box = h("input", {
    type: "number",
    min: 0,
    step: 1,
    "aria-label": `${label} (number)`,
    class: "nbh-number",
  });
  const row = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: id, class: "nbh-pair-label" }, label),
    range,
    box,
  );
  let continuous = true;
  let dragging = false; // the kernel's echo of an earlier value must not move the thumb back
  range.addEventListener("pointerdown", () => {
    dragging = true;
  });
  const release = () => {
    dragging = false;
  };
  range.addEventListener("pointerup", release);
  range.addEventListener("pointercancel", release);
  range.addEventListener("change", release);
  let last = 0;
  let timer = null;
  const send = (value) => {
    clearTimeout(timer);
    timer = null;
    last = Date.now();
    onChange(value);
  };
  range.addEventListener("input", () => {
    box.value = range.value;
    if (!continuous) return;
    const wait = throttleMs - (Date.now() - last);
    if (wait <= 0) send(Number(range.value));
    else if (timer == null) timer = setTimeout(() => send(Number(range.value)), wait);
  });
  range.addEventListener("change", () => send(Number(range.value)));
  box.addEventListener("change", () => {
    const value = Number(box.value);
    if (!Number.isFinite(value) || box.value === "") return;
    if (value > Number(range.max)) range.max = String(Math.ceil(value * 1.5));
    range.value = String(value);
    send(value);
  });
  const set = ({ value, min = 0, max, boxMax, continuous: c = true, off }) => {
    continuous = c;
    range.min = String(min);
    box.min = String(min);
    if (max != null) range.max = String(Math.max(max, value));
    if (boxMax != null) box.max = String(boxMax);
    if (!dragging) setValue(range, value);
    setValue(box, value);
    setOff(range, off);
    setOff(box, off);
  };
  return { row, range, box, set };
}

/** A labelled select of `[value, text]` options: `{row, select, set(options, value, off)}`. */
export function select(label, onChange) {
  const id = uid("nbh-select");
  const el = h("select", { id });
  el.addEventListener("change", () => onChange(el.value));
  const row = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: id, class: "nbh-pair-label" }, label),
    el,
  );
  let drawn = "";
  const set = (options, value, off) => {
    const key = JSON.stringify(options);
    if (key !== drawn) {
      el.replaceChildren(...options.map(([v, text]) => h("option", { value: v }, text)));
      drawn = key;
    }
    setValue(el, value);
    setOff(el, off);
  };
  return { row, select: el, set };
}
