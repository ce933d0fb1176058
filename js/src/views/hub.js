// The hub panel's view (nb_hitl/widgets/hub/_panel.py): the speakers and status line, the
// discussion's rows (shared/rows.js), the pause prompt, Start / Next round / Continue, the
// input with Send and Stop speaker, and the inspector of the participant picked (drawn inside:
// PanelModel.embed).
//
// State: `css` (the kernel's stylesheet), `speakers` (the chips: HTML the kernel escaped),
// `rows`, `pause` ({shown, question: HTML, controls: the buttons' labels}), `note` (HTML),
// `controls` (labels, tooltips, what is off or hidden, the status line `now`, the picker,
// the key bindings: set as text and attributes, never parsed), `inspector` (its state).

import {
  areaFocused,
  bindingFor,
  copyText,
  formValues,
  goInactive,
  INACTIVE,
  INACTIVE_STATUS,
  markStopping,
  origin,
  toggleChoice,
} from "../chat/keys.js";
import { setValue, uid } from "../shared/controls.js";
import { h, setKernelHtml } from "../shared/dom.js";
import { rowsView } from "../shared/rows.js";
import { inspectorView } from "./inspector.js";
import { kernelStyle } from "./style.js";

const LIVE_ROWS = ".nb-hitl-live";
const STOP = ".nb-hitl-hub-stop";

function hubButton(className, onclick, style = "") {
  const el = h("button", {
    type: "button",
    class: ["nbh-hub-button", className, style && `nbh-${style}`],
  });
  el.addEventListener("click", () => {
    if (!el.disabled) onclick();
  });
  return el;
}

/** Draw a button from its part of `controls`: `{label, tip, off, shown}`. */
export function setButton(el, c) {
  if (!c) return;
  if (el.textContent !== c.label) el.textContent = c.label || "";
  if (c.tip) el.title = c.tip;
  else el.removeAttribute("title");
  el.disabled = !!c.off;
  el.hidden = c.shown === false;
}

/** The keys of `next` whose values are not those of `prev` (all of them the first time). */
function changedKeys(prev, next) {
  const keys = new Set();
  for (const key of new Set([...Object.keys(prev || {}), ...Object.keys(next || {})]))
    if (!prev || prev[key] !== next?.[key]) keys.add(key);
  return keys;
}

/**
 * Build the hub into `ctx.root`; returns `draw(state, changed)`. `ctx.act(name, args)` sends
 * an action; `ctx.model` is the widget's model (copy answers, liveness).
 */
export function hubView(ctx) {
  const { root, act, model } = ctx;
  const style = kernelStyle(root);
  const chips = h("div", { class: "nb-hitl-hub-chips" });
  const now = h("div", { class: "nb-hitl-now", role: "status", "aria-live": "polite" });
  const speakers = h("div", { class: "nb-hitl-hub-speakers" }, chips, now);
  const earlier = hubButton("nb-hitl-hub-earlier", () => act("earlier"));
  const inner = h("div", { class: "nb-hitl-rows" });
  const transcript = h(
    "div",
    { class: "nb-hitl-transcript", role: "log", "aria-label": "Discussion", tabindex: 0 },
    inner,
  );
  const drawRows = rowsView(inner);

  const question = h("div", { class: "nb-hitl-pause-question" });
  const instruction = h("textarea", {
    class: "nb-hitl-hub-instruction nbh-hub-text",
    rows: 2,
    "aria-label": "Instruction (optional): what should happen next?",
  });
  const choose = (choice) => act("pause", { choice, text: instruction.value });
  const retry = hubButton("nb-hitl-pause-retry", () => choose("retry"), "primary");
  const skip = hubButton("nb-hitl-pause-skip", () => choose("skip"));
  const end = hubButton("nb-hitl-pause-stop", () => choose("stop"), "danger");
  const pause = h(
    "div",
    { class: "nb-hitl-hub-pause", role: "group", "aria-label": "Paused", hidden: true },
    question,
    instruction,
    h("div", { class: "nbh-row nb-hitl-hub-choices" }, retry, skip, end),
  );
  const note = h("div", { class: "nb-hitl-hub-note", role: "status", "aria-live": "polite" });

  const input = h("textarea", {
    class: "nb-hitl-hub-input nbh-hub-text",
    rows: 2,
    "aria-label": "Your message",
  });
  const typed = () => {
    const text = input.value;
    if (text.trim()) input.value = "";
    return text;
  };
  const start = hubButton("nb-hitl-hub-start", () => act("start", { text: typed() }), "primary");
  const next = hubButton("nb-hitl-hub-next", () => act("next", { text: typed() }));
  const goOn = hubButton("nb-hitl-hub-continue", () => act("continue", { text: typed() }));
  const runs = h("div", { class: "nbh-row nb-hitl-hub-runs" }, start, next, goOn);
  const send = hubButton("nb-hitl-hub-send", () => act("send", { text: input.value }), "primary");
  const stopNow = () => {
    markStopping(root, LIVE_ROWS, STOP); // drawn in the click's own frame
    act("stop");
  };
  const stop = hubButton("nb-hitl-hub-stop", stopNow, "danger");
  const bar = h(
    "div",
    { class: "nb-hitl-hub-bar" },
    input,
    h("div", { class: "nb-hitl-chat-buttons nb-hitl-hub-buttons" }, send, stop),
  );
  const main = h(
    "div",
    { class: "nb-hitl-column-main" },
    speakers,
    earlier,
    transcript,
    pause,
    note,
    runs,
    bar,
  );

  const pickId = uid("nbh-hub-pick");
  const pickSelect = h("select", { id: pickId });
  pickSelect.addEventListener("change", () => act("pick", { index: Number(pickSelect.value) }));
  const pickLabel = h("label", { for: pickId, class: "nbh-pair-label" }, "Memory of");
  const picker = h("div", { class: "nbh-row nb-hitl-hub-picker" }, pickLabel, pickSelect);
  const inspectorBox = h("div", { class: "nb-hitl-inspector nbh-hub-inspector" });
  const side = h("div", { class: "nb-hitl-column-side", hidden: true }, picker, inspectorBox);
  root.append(h("div", { class: "nb-hitl-columns" }, main, side));

  let drawnOptions = "";
  let inspector = null;
  let prev = {};

  // Clicks in the rows: a card's buttons (with its form's values), "Show all", Copy, choices.
  const answers = new Map();
  model.on("msg:custom", (msg) => {
    if (msg && msg.t === "copy" && answers.has(msg.id)) {
      answers.get(msg.id)(typeof msg.text === "string" ? msg.text : null);
      answers.delete(msg.id);
    }
  });
  const fetchText = (id) =>
    new Promise((resolve) => {
      answers.set(id, resolve);
      act("copy", { text: id });
      setTimeout(() => {
        if (answers.has(id)) {
          answers.delete(id);
          resolve(null);
        }
      }, 10000);
    });
  transcript.addEventListener("click", (ev) => {
    const target = origin(ev);
    if (!(target instanceof Element) || root.classList.contains(INACTIVE)) return;
    const copy = target.closest(".nb-hitl-copy");
    if (copy) {
      ev.preventDefault();
      const byId = copy.dataset.copyId !== undefined && copy.dataset.copy === undefined;
      const text = byId ? fetchText(copy.dataset.copyId) : Promise.resolve(copy.dataset.copy);
      text
        .then((t) => (t == null ? false : copyText(t)))
        .then((done) => {
          copy.classList.toggle("nb-hitl-copied", done);
          copy.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
          setTimeout(() => {
            copy.classList.remove("nb-hitl-copied");
            copy.title = "Copy this message";
          }, 1500);
        });
      return;
    }
    const choice = target.closest("[data-nb-hitl-choice]");
    if (choice && !choice.disabled) {
      toggleChoice(choice);
      return;
    }
    const button = target.closest("[data-nb-hitl-action]");
    if (!button || button.disabled) return;
    ev.preventDefault();
    const args = { text: button.dataset.nbHitlArg || "" };
    const card = button.closest("[data-nb-hitl-card]");
    if (card) args.form = formValues(card);
    act(button.dataset.nbHitlAction || "", args);
  });

  // Keys: the bindings the kernel lists (controls.keys), matched as the chat's are.
  let bindings = [];
  let pointed = false;
  const scope = () => root.closest(".nb-hitl-hub") || root;
  const onPointer = (ev) => {
    pointed = origin(ev) instanceof Node && scope().contains(origin(ev));
  };
  const onKey = (ev) => {
    const area = scope();
    const target = origin(ev);
    if (!(target instanceof Node) || ev.isComposing || root.classList.contains(INACTIVE)) return;
    const inside = area.contains(target);
    if (!inside && !areaFocused(area, target, pointed, area.closest(".jp-Cell"))) return;
    const found = bindingFor(ev, bindings, area, inside);
    if (!found) return;
    const { binding: b, field } = found;
    const near = b.near ? target.closest(b.near) || area : area;
    ev.preventDefault();
    ev.stopPropagation();
    ev.stopImmediatePropagation();
    if (b.click) {
      const button = near.querySelector(b.click);
      if (button && !button.disabled) button.click();
    }
    if (b.action === "stop") stopNow();
    else if (b.action) {
      const box = field?.matches?.("textarea, input") ? field : field?.querySelector?.("textarea");
      const text = box ? box.value : "";
      act(b.action, { text });
      if (b.clear && box && text.trim()) box.value = "";
    }
  };
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("pointerdown", onPointer, true);

  // No kernel behind the panel any more: say so and turn everything off.
  let inactive = false;
  const offline = () => {
    if (inactive) return;
    inactive = true;
    goInactive(root, INACTIVE_STATUS);
  };
  model.on("comm_live_update", offline);
  const kernelOf = () => {
    try {
      return model.widget_manager?.kernel;
    } catch {
      return undefined;
    }
  };
  const firstId = kernelOf()?.id;
  const timer = firstId
    ? setInterval(() => {
        const k = kernelOf();
        if (!k || k.isDisposed || k.id !== firstId || k.status === "dead") offline();
      }, 1000)
    : null;
  ctx.teardown = () => {
    window.removeEventListener("keydown", onKey, true);
    window.removeEventListener("pointerdown", onPointer, true);
    if (timer) clearInterval(timer);
  };

  return function draw(state, changed) {
    const c = state.controls || {};
    // The status line first: after Stop it is what the person waits for ("Paused").
    if (changed.has("controls")) {
      if (now.textContent !== (c.now || "")) now.textContent = c.now || "";
      setButton(stop, c.stop);
      setButton(send, c.send);
      setButton(start, c.start);
      setButton(next, c.next);
      setButton(goOn, c.continue);
      setButton(earlier, c.earlier);
      const box = c.input || {};
      if (box.placeholder !== undefined) input.placeholder = box.placeholder;
      const was = prev.controls?.input || {};
      if (box.cleared !== was.cleared && was.cleared !== undefined) input.value = "";
      else if (box.value !== was.value) setValue(input, box.value);
      bindings = Array.isArray(c.keys) ? c.keys : [];
      if (c.picker) {
        side.hidden = false;
        const key = JSON.stringify(c.picker.options || []);
        if (key !== drawnOptions) {
          pickSelect.replaceChildren(
            ...(c.picker.options || []).map(([label, value]) =>
              h("option", { value: String(value) }, label),
            ),
          );
          drawnOptions = key;
        }
        if (c.picker.value != null) setValue(pickSelect, String(c.picker.value));
      }
    }
    if (changed.has("pause")) {
      const p = state.pause || {};
      const pc = p.controls || {};
      pause.hidden = !p.shown;
      setKernelHtml(question, p.question || "");
      setButton(retry, pc.retry);
      setButton(skip, pc.skip);
      setButton(end, pc.stop);
      if (pc.placeholder) instruction.placeholder = pc.placeholder;
      if (pc.cleared !== prev.pause?.controls?.cleared) instruction.value = "";
    }
    if (changed.has("css")) style(state.css);
    if (changed.has("speakers")) setKernelHtml(chips, state.speakers || "");
    if (changed.has("note")) setKernelHtml(note, state.note || "");
    if (changed.has("rows")) drawRows(state.rows);
    if (changed.has("inspector") && state.inspector) {
      if (!inspector) {
        const actInside = (name, args = {}) => act("inspector", { name, args });
        inspector = inspectorView(inspectorBox, actInside);
      }
      inspector(state.inspector, changedKeys(prev.inspector, state.inspector));
    }
    prev = state;
  };
}
