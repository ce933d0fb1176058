// Keyboard shortcuts, row buttons, Copy and the "kernel restarted" banner for one widget's
// part of the page (the kernel's side: nb_hitl/widgets/_keys.py, `KeyBindings`).
//
// The listeners are on `window` in the capture phase, so the widget sees its keys before
// JupyterLab's own shortcut handling (Escape leaving edit mode, Ctrl+Enter running the cell);
// they stop only the keys they handle, and only inside the widget's scope.

export const INACTIVE = "nb-hitl-inactive";
export const STOPPING = "nb-hitl-stopping";
export const INACTIVE_STATUS = "\u25CF inactive: no kernel behind this panel";
const EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";

/** Whether key event `ev` is binding `b`'s key (`mod`: Ctrl or Cmd; `shift`). */
export function matches(ev, b) {
  if (ev.key !== b.key) return false;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!!b.mod !== mod) return false;
  if (!b.mod && (!!b.shift !== ev.shiftKey || ev.altKey)) return false;
  return true;
}

/** The element the event happened on, also inside a shadow root (marimo draws widgets in one;
 * a listener on window sees only the shadow's host as the target). */
export const origin = (ev) => ev.composedPath?.()[0] || ev.target;

/**
 * Draw Stop in the click's own frame: the rows matching `rows` inside `scope` get the
 * stopping class until the kernel next changes their classes (its word then stands).
 */
export function markStopping(scope, rows, stopButton) {
  if (!scope || !rows || scope.classList.contains(INACTIVE)) return 0;
  const button = scope.querySelector(stopButton);
  if (!button || button.disabled) return 0;
  let marked = 0;
  for (const row of scope.querySelectorAll(rows)) {
    if (row.classList.contains(STOPPING)) continue;
    row.classList.add(STOPPING);
    marked += 1;
    const answer = new MutationObserver(() => {
      answer.disconnect();
      row.classList.remove(STOPPING);
    });
    answer.observe(row, { attributes: true, attributeFilter: ["class"] });
  }
  return marked;
}

/** Copy `text`: the clipboard API in a secure context, else a hidden text box. */
export async function copyText(text) {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // the fallback below
    }
  }
  const box = document.createElement("textarea");
  box.value = text;
  box.setAttribute("readonly", "");
  box.style.position = "fixed";
  box.style.opacity = "0";
  document.body.appendChild(box);
  box.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  box.remove();
  return done;
}

/**
 * The binding a key press triggers, or null: `bindings` in order, the first that matches and
 * applies where the press happened (`inside` the scope, or only `anywhere` ones outside it,
 * and those only while their `enabled` button is).
 */
export function bindingFor(ev, bindings, scope, inside) {
  for (const b of bindings || []) {
    if (!matches(ev, b)) continue;
    if (!inside && !b.anywhere) continue;
    if (!inside && b.enabled) {
      const needed = scope.querySelector(b.enabled);
      if (!needed || needed.disabled) continue; // nothing to do: the key stays JupyterLab's
    }
    const field = b.within ? origin(ev).closest(b.within) : origin(ev);
    if (!field) continue;
    return { binding: b, field };
  }
  return null;
}

/**
 * The values of a card's named controls (`[data-nb-hitl-card]`, drawn by the kernel: its
 * arguments box, a deny reason, a rule's scope), sent with a press of one of its buttons.
 * A check box or radio button gives its value when ticked; several ticked boxes of one name
 * give a list.
 */
export function formValues(card) {
  const form = {};
  for (const field of card.querySelectorAll("input[name], textarea[name], select[name]")) {
    const { name } = field;
    if (field.type === "checkbox" || field.type === "radio") {
      if (!field.checked) continue;
      if (field.type === "checkbox") form[name] = [...(form[name] || []), field.value];
      else form[name] = field.value;
    } else form[name] = field.value;
  }
  for (const choice of card.querySelectorAll("[data-nb-hitl-choice][aria-pressed='true']")) {
    const group = choice.dataset.nbHitlChoice;
    form[group] = [...(form[group] || []), choice.value];
  }
  return form;
}

/**
 * A question's choice button pressed: it toggles, drawn at once in the page (the form is sent
 * with "Send answers"); in a one-answer group (`data-nb-hitl-single`) the others unpick.
 */
export function toggleChoice(choice) {
  const on = choice.getAttribute("aria-pressed") !== "true";
  const card = choice.closest("[data-nb-hitl-card]");
  if (on && card && choice.dataset.nbHitlSingle !== undefined) {
    for (const other of card.querySelectorAll("[data-nb-hitl-choice]")) {
      if (other !== choice && other.dataset.nbHitlChoice === choice.dataset.nbHitlChoice)
        setPressed(other, false);
    }
  }
  setPressed(choice, on);
}

function setPressed(choice, on) {
  choice.setAttribute("aria-pressed", on ? "true" : "false");
  choice.classList.toggle("mod-active", on);
  choice.classList.toggle("mod-info", on);
}

/** ARIA roles for the regions the kernel draws as widgets: the transcript is a log. */
export const REGIONS = [[".nb-hitl-transcript", { role: "log", "aria-label": "Transcript" }]];

/** Give the regions in `scope` their roles; whether every one was there. */
export function labelRegions(scope) {
  let all = true;
  for (const [selector, attrs] of REGIONS) {
    const nodes = scope ? scope.querySelectorAll(selector) : [];
    if (!nodes.length) all = false;
    for (const node of nodes) {
      for (const [name, value] of Object.entries(attrs)) {
        if (!node.hasAttribute(name)) node.setAttribute(name, value);
      }
    }
  }
  return all;
}

/** Turn `scope` off: the banner, every control disabled, the status line says why. */
export function goInactive(scope, text) {
  scope.classList.add(INACTIVE);
  for (const node of scope.querySelectorAll("button, textarea, input, select"))
    node.disabled = true;
  for (const status of scope.querySelectorAll(".nb-hitl-status")) {
    status.dataset.state = "inactive";
    status.className = "nb-hitl-status nb-hitl-status-inactive";
    status.textContent = INACTIVE_STATUS;
  }
  const note = document.createElement("div");
  note.className = "nb-hitl-inactive-note";
  note.textContent = text;
  scope.insertBefore(note, scope.firstChild);
}

/** Whether `target` counts as focus in `area`: inside it, or after a press in it (`pointed`)
 * on text that takes no focus, while the widget's notebook cell is the active one. */
export function areaFocused(area, target, pointed, cell) {
  if (!area) return false;
  if (area.contains(target)) return true;
  if (!pointed || (target instanceof Element && target.closest(EDITABLE))) return false;
  return !cell || cell.classList.contains("jp-mod-active");
}
