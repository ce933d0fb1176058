/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

// src/shared/ops.js
var emptySnapshot = () => ({ v: 1, seq: 0, state: {} });
var CHILD_OPS = /* @__PURE__ */ Symbol("nb_hitl child ops");
function withChildren(ownOps, children) {
  return { ...ownOps, [CHILD_OPS]: { ...ownOps?.[CHILD_OPS] || {}, ...children } };
}
var indexOf = (items, id) => items.findIndex((item) => item && item.id === id);
function applyOp(state, op, extraOps = {}) {
  if (!op || typeof op !== "object") return state;
  if (op.op === "child") return childOp(state, op, extraOps);
  const custom = Object.hasOwn(extraOps, op.op) ? extraOps[op.op] : null;
  if (custom) return custom(state, op);
  const key = op.key;
  if (typeof key !== "string") return state;
  const list = Array.isArray(state[key]) ? state[key] : [];
  switch (op.op) {
    case "set":
      return { ...state, [key]: op.value };
    case "merge":
      return { ...state, [key]: { ...state[key] || {}, ...op.value || {} } };
    case "append":
      return { ...state, [key]: list.concat(op.items || []) };
    case "insert": {
      const items = list.filter((item) => !item || item.id !== op.item?.id);
      const at = op.before == null ? -1 : indexOf(items, op.before);
      items.splice(at < 0 ? items.length : at, 0, op.item);
      return { ...state, [key]: items };
    }
    case "replace": {
      const at = indexOf(list, op.item?.id);
      const items = list.slice();
      if (at < 0) items.push(op.item);
      else items[at] = op.item;
      return { ...state, [key]: items };
    }
    case "remove": {
      const at = indexOf(list, op.id);
      if (at < 0) return state;
      return { ...state, [key]: list.filter((_, i) => i !== at) };
    }
    default:
      return state;
  }
}
function childOp(state, op, extraOps) {
  const key = op.key;
  if (typeof key !== "string" || !Array.isArray(op.ops)) return state;
  const own = extraOps[CHILD_OPS]?.[key] || {};
  const old = state[key];
  let part2 = old && typeof old === "object" && !Array.isArray(old) ? old : {};
  for (const inner of op.ops) part2 = applyOp(part2, inner, own);
  return part2 === old ? state : { ...state, [key]: part2 };
}
function readSnapshot(raw) {
  if (!raw || typeof raw !== "object") return emptySnapshot();
  const seq = Number.isInteger(raw.seq) && raw.seq >= 0 ? raw.seq : 0;
  const state = raw.state && typeof raw.state === "object" ? raw.state : {};
  return { v: raw.v || 1, seq, state };
}
function reduce(snapshot, msg, extraOps = {}) {
  const same = { verdict: "stale", snapshot, changed: /* @__PURE__ */ new Set() };
  if (!msg || typeof msg !== "object") return same;
  if (msg.t === "snapshot") {
    const next = readSnapshot(msg.snapshot);
    if (next.seq < snapshot.seq) return same;
    const changed2 = /* @__PURE__ */ new Set([...Object.keys(snapshot.state), ...Object.keys(next.state)]);
    return { verdict: "reset", snapshot: next, changed: changed2 };
  }
  if (msg.t !== "ops" || !Number.isInteger(msg.seq) || msg.seq <= snapshot.seq) return same;
  if (msg.seq !== snapshot.seq + 1) return { ...same, verdict: "gap" };
  let state = snapshot.state;
  for (const op of Array.isArray(msg.ops) ? msg.ops : []) state = applyOp(state, op, extraOps);
  const changed = /* @__PURE__ */ new Set();
  for (const key of /* @__PURE__ */ new Set([...Object.keys(snapshot.state), ...Object.keys(state)])) {
    if (state[key] !== snapshot.state[key]) changed.add(key);
  }
  return { verdict: "ok", snapshot: { ...snapshot, seq: msg.seq, state }, changed };
}

// src/views/style.js
var KERNEL_CSS_ID = "nb-hitl-kernel-css";
function styleScope(root) {
  const doc = root.ownerDocument;
  const place = root.getRootNode?.();
  const ShadowRoot = doc?.defaultView?.ShadowRoot;
  if (ShadowRoot && place instanceof ShadowRoot) return place;
  return doc?.body ? doc : null;
}
function share(scope, css) {
  const doc = scope.ownerDocument || scope;
  let style = scope.getElementById(KERNEL_CSS_ID);
  if (!style) {
    style = doc.createElement("style");
    style.id = KERNEL_CSS_ID;
    style.textContent = css;
    (scope === doc ? doc.body : scope).append(style);
  } else if (style.textContent !== css) style.textContent = css;
}
function kernelStyle(root) {
  let drawn = null;
  return (css) => {
    if (!css || css === drawn) return;
    drawn = css;
    const scope = styleScope(root);
    if (scope) share(scope, css);
    if (root.isConnected) return;
    const win = root.ownerDocument?.defaultView;
    let tries = 0;
    const look = () => {
      if (drawn !== css) return;
      if (!root.isConnected) {
        if (tries++ < 20) win.requestAnimationFrame(look);
        return;
      }
      const placed = styleScope(root);
      if (placed && placed !== scope) share(placed, css);
    };
    if (win?.requestAnimationFrame) win.requestAnimationFrame(look);
  };
}

// src/shared/dom.js
function fill(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (name === "class")
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (name === "text") el.textContent = String(value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function")
      el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child == null || child === false) continue;
    el.append(child instanceof el.ownerDocument.defaultView.Node ? child : String(child));
  }
  return el;
}
function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}
function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}
function setKernelHtml(el, html) {
  el.innerHTML = String(html ?? "");
  return el;
}

// src/chat/controls.js
var BUTTONS = {
  send: "nb-hitl-send",
  stop: "nb-hitl-stop",
  step: "nb-hitl-stop-step",
  continue: "nb-hitl-continue",
  retry: "nb-hitl-retry",
  clear: "nb-hitl-clear",
  export: "nb-hitl-export"
};
var TYPE_PAUSE_MS = 300;
var W = "lm-Widget jupyter-widgets";
function icon(name, alone) {
  if (!name) return null;
  const names = String(name).split(/\s+/).filter(Boolean).map((n) => `fa-${n.replace(/^fa-/, "")}`);
  return h("i", { class: ["fa", ...names, alone && "center"], "aria-hidden": "true" });
}
function drawButton(el, b) {
  const part2 = b || {};
  const label = String(part2.label ?? "");
  el.replaceChildren(...[icon(part2.icon, !label), label].filter(Boolean));
  el.classList.toggle("mod-primary", part2.style === "primary");
  el.classList.toggle("mod-danger", part2.style === "danger");
  el.disabled = !!part2.disabled;
  el.hidden = !!part2.hidden;
  el.style.display = part2.hidden ? "none" : "";
  if (part2.tooltip) el.title = String(part2.tooltip);
  else el.removeAttribute("title");
  if (!label && part2.tooltip) el.setAttribute("aria-label", String(part2.tooltip));
  else el.removeAttribute("aria-label");
}
function controlsView(root, act, { typePause = TYPE_PAUSE_MS } = {}) {
  const statusHtml = h("div", { class: "widget-html-content" });
  const status = h(
    "div",
    { class: `${W} widget-inline-hbox widget-html nb-hitl-status-line` },
    statusHtml
  );
  const noteHtml = h("div", { class: "widget-html-content" });
  const note = h(
    "div",
    { class: `${W} widget-inline-hbox widget-html nb-hitl-chat-note` },
    noteHtml
  );
  const box = h("textarea", {
    class: "widget-input",
    rows: 3,
    "aria-label": "Message"
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
      flushTyping();
      act(key, { text: box.value });
    });
    buttons[key] = el;
  }
  const exportSelect = h("select", { "aria-label": "Export format" });
  exportSelect.addEventListener(
    "change",
    () => act("export_format", { value: exportSelect.value })
  );
  const exportFormat = h(
    "div",
    { class: `${W} widget-inline-hbox widget-dropdown nb-hitl-export-format` },
    exportSelect
  );
  const tools = h(
    "div",
    {
      class: `${W} widget-container widget-box widget-hbox nb-hitl-chat-tools`,
      role: "toolbar",
      "aria-label": "Chat tools"
    },
    buttons.retry,
    buttons.clear,
    exportFormat,
    buttons.export
  );
  const modeLabel = h("label", { class: "widget-label" });
  const modeGroup = h("div", { class: "btn-group", role: "group" });
  const mode = h(
    "div",
    { class: `${W} widget-inline-hbox widget-toggle-buttons nb-hitl-send-mode` },
    modeLabel,
    modeGroup
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
    buttons.continue
  );
  const bar = h(
    "div",
    { class: `${W} widget-container widget-box widget-hbox nb-hitl-chat-bar` },
    input,
    column
  );
  root.append(status, tools, note, mode, bar);
  let written = -1;
  return (state, changed) => {
    const has = (key) => changed.has(key);
    for (const key of Object.keys(BUTTONS)) if (has(key)) drawButton(buttons[key], state[key]);
    if (has("status")) setKernelHtml(statusHtml, state.status);
    if (has("note")) {
      setKernelHtml(noteHtml, state.note);
      note.classList.toggle("nb-hitl-empty", !state.note);
    }
    if (has("input")) {
      const part2 = state.input || {};
      box.placeholder = String(part2.placeholder ?? "");
      box.disabled = !!part2.disabled;
    }
    if (has("input_value")) {
      const part2 = state.input_value || {};
      const n = Number(part2.n ?? 0);
      if (n !== written) {
        written = n;
        const text = String(part2.text ?? "");
        if (box.value !== text) {
          flushTyping();
          box.value = text;
        }
      }
    }
    if (has("mode")) {
      const part2 = state.mode || {};
      const options = Array.isArray(part2.options) ? part2.options : [];
      const key = JSON.stringify(options);
      if (key !== modeDrawn) {
        modeDrawn = key;
        modeGroup.replaceChildren(
          ...options.map(([value, label2, hint]) => {
            const b = h(
              "button",
              {
                type: "button",
                class: "jupyter-button widget-toggle-button",
                title: hint || null,
                dataset: { value: String(value) }
              },
              String(label2)
            );
            b.addEventListener("click", () => {
              if (b.disabled || modeValue === b.dataset.value) return;
              pickMode(b.dataset.value);
              act("mode", { value: b.dataset.value });
            });
            return b;
          })
        );
      }
      const label = String(part2.label ?? "");
      modeLabel.textContent = label;
      modeLabel.title = label;
      modeGroup.setAttribute("aria-label", label.replace(/:$/, "") || "Send mode");
      for (const b of modeGroup.children) b.disabled = !!part2.disabled;
      pickMode(String(part2.value ?? ""));
    }
    if (has("export_format")) {
      const part2 = state.export_format || {};
      const options = Array.isArray(part2.options) ? part2.options : [];
      const key = JSON.stringify(options);
      if (exportSelect.dataset.options !== key) {
        exportSelect.dataset.options = key;
        exportSelect.replaceChildren(
          ...options.map(([value, label]) => h("option", { value: String(value) }, String(label)))
        );
      }
      exportSelect.value = String(part2.value ?? "");
      exportSelect.disabled = !!part2.disabled;
    }
  };
}
function embeddedControls(root, act, options) {
  const draw = controlsView(root, (name, args) => act("controls", { name, args }), options);
  let last = null;
  return (part2) => {
    const next = part2 || {};
    const changed = new Set(Object.keys(next).filter((k) => !last || next[k] !== last[k]));
    last = next;
    if (changed.size) draw(next, changed);
  };
}

// src/chat/keys.js
var INACTIVE = "nb-hitl-inactive";
var STOPPING = "nb-hitl-stopping";
var INACTIVE_STATUS = "● inactive: no kernel behind this panel";
var EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";
function matches(ev, b) {
  if (ev.key !== b.key) return false;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!!b.mod !== mod) return false;
  if (!b.mod && (!!b.shift !== ev.shiftKey || ev.altKey)) return false;
  return true;
}
var origin = (ev) => ev.composedPath?.()[0] || ev.target;
function markStopping(scope, rows, stopButton) {
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
async function copyText(text) {
  if (window.isSecureContext && navigator.clipboard) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
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
function bindingFor(ev, bindings, scope, inside) {
  for (const b of bindings || []) {
    if (!matches(ev, b)) continue;
    if (!inside && !b.anywhere) continue;
    if (!inside && b.enabled) {
      const needed = scope.querySelector(b.enabled);
      if (!needed || needed.disabled) continue;
    }
    const field = b.within ? origin(ev).closest(b.within) : origin(ev);
    if (!field) continue;
    return { binding: b, field };
  }
  return null;
}
function formValues(card) {
  const form = {};
  for (const field of card.querySelectorAll("input[name], textarea[name], select[name]")) {
    const { name } = field;
    if (field.type === "checkbox" || field.type === "radio") {
      if (!field.checked) continue;
      if (field.type === "checkbox") form[name] = [...form[name] || [], field.value];
      else form[name] = field.value;
    } else form[name] = field.value;
  }
  for (const choice of card.querySelectorAll("[data-nb-hitl-choice][aria-pressed='true']")) {
    const group = choice.dataset.nbHitlChoice;
    form[group] = [...form[group] || [], choice.value];
  }
  return form;
}
function toggleChoice(choice) {
  const on = choice.getAttribute("aria-pressed") !== "true";
  const card = choice.closest("[data-nb-hitl-card]");
  if (on && card && choice.dataset.nbHitlSingle !== void 0) {
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
var REGIONS = [[".nb-hitl-transcript", { role: "log", "aria-label": "Transcript" }]];
function labelRegions(scope) {
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
function goInactive(scope, text) {
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
function areaFocused(area, target, pointed, cell) {
  if (!area) return false;
  if (area.contains(target)) return true;
  if (!pointed || target instanceof Element && target.closest(EDITABLE)) return false;
  return !cell || cell.classList.contains("jp-mod-active");
}

// src/chat/key_bindings.js
function bindKeys(el, io) {
  const { model } = io;
  const setting = (name) => io.setting(name);
  const root = () => el.closest(`.${setting("scope")}`);
  const listeners = [];
  const listen = (type, fn) => {
    window.addEventListener(type, fn, true);
    listeners.push([type, fn]);
  };
  let regions = null;
  if (!labelRegions(root())) {
    regions = new MutationObserver(() => {
      if (labelRegions(root())) regions.disconnect();
    });
    regions.observe(document.body, { childList: true, subtree: true });
    setTimeout(() => regions.disconnect(), 1e4);
  }
  const stopping = () => markStopping(root(), setting("stopping_rows"), setting("stop_button"));
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("stop_button");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    if (scope.contains(origin(ev)) && origin(ev).closest(selector)) stopping();
  });
  const asked = /* @__PURE__ */ new Map();
  const offMessage = io.onMessage((msg) => {
    if (msg && typeof msg.copy === "string" && asked.has(msg.copy)) {
      asked.get(msg.copy)(typeof msg.text === "string" ? msg.text : null);
      asked.delete(msg.copy);
    }
  });
  const fetchText = (id) => new Promise((resolve) => {
    asked.set(id, resolve);
    io.send({ action: "copy", text: id });
    setTimeout(() => {
      if (asked.has(id)) {
        asked.delete(id);
        resolve(null);
      }
    }, 1e4);
  });
  async function copyFetched(id) {
    const text = fetchText(id);
    if (window.isSecureContext && window.ClipboardItem && navigator.clipboard?.write) {
      try {
        const blob = text.then((t) => {
          if (t === null) throw new Error("the kernel did not answer");
          return new Blob([t], { type: "text/plain" });
        });
        await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
        return true;
      } catch {
      }
    }
    const got = await text;
    return got === null ? false : copyText(got);
  }
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("copy_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const fetched = button.dataset.copyId !== void 0 && button.dataset.copy === void 0;
    const copying = fetched ? copyFetched(button.dataset.copyId) : copyText(button.dataset.copy || "");
    copying.then((done) => {
      button.classList.toggle("nb-hitl-copied", done);
      button.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
      setTimeout(() => {
        button.classList.remove("nb-hitl-copied");
        button.title = "Copy this message";
      }, 1500);
    });
  });
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("action_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button) || button.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const msg = { action: button.dataset.nbHitlAction || "", text: button.dataset.nbHitlArg || "" };
    const card = button.closest("[data-nb-hitl-card]");
    if (card) msg.form = formValues(card);
    io.send(msg);
  });
  listen("click", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Element)) return;
    const choice = origin(ev).closest("[data-nb-hitl-choice]");
    if (!choice || !scope.contains(choice) || choice.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    toggleChoice(choice);
  });
  const panel = () => el.closest(`.${setting("focus_scope") || setting("scope")}`) || root();
  let pointed = false;
  listen("pointerdown", (ev) => {
    const area = panel();
    pointed = !!area && origin(ev) instanceof Node && area.contains(origin(ev));
  });
  listen("keydown", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Node)) return;
    if (scope.classList.contains(INACTIVE) || ev.isComposing) return;
    const inside = scope.contains(origin(ev));
    if (!inside && !areaFocused(panel(), origin(ev), pointed, el.closest(".jp-Cell"))) return;
    const found = bindingFor(ev, setting("bindings"), scope, inside);
    if (!found) return;
    const { binding: b, field } = found;
    const near = b.near ? origin(ev).closest(b.near) || scope : scope;
    ev.preventDefault();
    ev.stopPropagation();
    ev.stopImmediatePropagation();
    if (b.click) {
      const button = near.querySelector(b.click);
      if (button && !button.disabled) button.click();
    }
    if (b.action && b.action === setting("stop_action")) stopping();
    if (b.action) {
      const sel = "textarea, input";
      const box = field.matches(sel) ? field : field.querySelector(sel);
      const text = box ? box.value : "";
      io.send({ action: b.action, text });
      if (b.clear && box && text.trim()) {
        box.value = "";
        box.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
  });
  let inactive = false;
  function offline() {
    if (inactive) return;
    const scope = el.closest(`.${setting("inactive_scope")}`) || root();
    if (!scope) return;
    inactive = true;
    goInactive(scope, setting("inactive_text"));
  }
  if (setting("inactive_scope")) model.on?.("comm_live_update", offline);
  const wm = model.widget_manager;
  const kernelOf = () => {
    try {
      return wm?.kernel;
    } catch {
      return void 0;
    }
  };
  const firstId = kernelOf()?.id;
  const timer = firstId && setting("inactive_scope") ? setInterval(() => {
    const k = kernelOf();
    if (!k || k.isDisposed || k.id !== firstId || k.status === "dead") offline();
  }, 1e3) : null;
  return () => {
    for (const [type, fn] of listeners) window.removeEventListener(type, fn, true);
    regions?.disconnect();
    if (timer) clearInterval(timer);
    model.off?.("comm_live_update", offline);
    offMessage?.();
  };
}

// src/shared/live_row.js
var newRow = () => ({
  v: 1,
  seq: 0,
  head: "",
  blocks: [],
  tail: "",
  extras: "",
  done: false,
  html: ""
});
var copyRow = (r) => ({
  v: 1,
  seq: (r?.seq ?? 0) | 0,
  head: r?.head || "",
  blocks: Array.isArray(r?.blocks) ? r.blocks.slice() : [],
  tail: r?.tail || "",
  extras: r?.extras || "",
  done: !!r?.done,
  html: r?.html || ""
});
function applyOp2(row, op) {
  if (op.op === "append") row.tail += op.text;
  else if (op.op === "freeze") {
    row.blocks.push(op.html);
    row.tail = op.tail || "";
  } else if (op.op === "tail") row.tail = op.text;
  else if (op.op === "extras") row.extras = op.html;
  else if (op.op === "head") row.head = op.html;
  else if (op.op === "finish") {
    row.html = (op.before || "") + row.blocks.slice(0, op.keep | 0).join("") + (op.after || "");
    Object.assign(row, { done: true, blocks: [], tail: "", extras: "" });
  }
}
function apply(row, msg) {
  if (!msg || typeof msg !== "object") return "stale";
  if (msg.t === "snapshot") {
    const seq = msg.row ? msg.row.seq | 0 : -1;
    if (seq < row.seq || seq === row.seq && row.done) return "stale";
    Object.assign(row, copyRow(msg.row));
    return "reset";
  }
  if (msg.t !== "delta") return "stale";
  if (row.done || msg.seq <= row.seq) return "stale";
  if (msg.seq !== row.seq + 1) return "gap";
  for (const op of msg.ops || []) applyOp2(row, op);
  row.seq = msg.seq;
  return "ok";
}
var part = (cls) => {
  const d = document.createElement("div");
  d.className = cls;
  return d;
};
var block = (html) => setKernelHtml(part("nb-hitl-block"), html);
var RowView = class {
  constructor(el) {
    this.el = el;
    this.row = newRow();
    this.draw();
  }
  draw() {
    const { el, row } = this;
    el.textContent = "";
    this.parts = null;
    if (row.done) {
      setKernelHtml(el, row.html);
      return;
    }
    const head = setKernelHtml(part("nb-hitl-live-head"), row.head);
    const blocks = part("nb-hitl-live-blocks");
    const tail = part("nb-hitl-tail");
    const extras = setKernelHtml(part("nb-hitl-live-extras"), row.extras);
    for (const h2 of row.blocks) blocks.appendChild(block(h2));
    const text = document.createTextNode(row.tail);
    tail.appendChild(text);
    el.append(head, blocks, tail, extras);
    this.parts = { head, blocks, tail, text, extras };
  }
  /** Apply a kernel message; returns the reducer's verdict. */
  apply(msg) {
    const verdict = apply(this.row, msg);
    if (verdict === "reset" || verdict === "ok" && !this.parts) {
      this.draw();
      return verdict;
    }
    if (verdict !== "ok") return verdict;
    if (this.row.done) {
      this.draw();
      return verdict;
    }
    const p = this.parts;
    for (const op of msg.ops || []) {
      if (op.op === "append") p.text.appendData(op.text);
      else if (op.op === "freeze") {
        p.blocks.appendChild(block(op.html));
        p.text.data = op.tail || "";
      } else if (op.op === "tail") p.text.data = op.text;
      else if (op.op === "extras") setKernelHtml(p.extras, op.html);
      else if (op.op === "head") setKernelHtml(p.head, op.html);
    }
    return verdict;
  }
  /** A snapshot (a trait, a sync answer) replaces the state unless it is older. */
  reset(snapshot) {
    return this.apply({ t: "snapshot", row: snapshot });
  }
};
function syncClasses(el, classes, applied) {
  const next = new Set(classes || []);
  for (const c of applied) if (!next.has(c)) el.classList.remove(c);
  for (const c of next) el.classList.add(c);
  return next;
}
var sent = /* @__PURE__ */ new WeakMap();
function liveOp(state, op) {
  const key = typeof op.key === "string" ? op.key : "rows";
  const rows = Array.isArray(state[key]) ? state[key] : [];
  const at = rows.findIndex((item2) => item2 && item2.id === op.id);
  if (at < 0) return state;
  const old = rows[at];
  let item = { ...old };
  if (typeof op.cls === "string") item.cls = op.cls;
  if (op.msg && old.live) {
    const row = copyRow(old.live);
    const verdict = apply(row, op.msg);
    if (verdict === "ok" || verdict === "reset") {
      if (row.done) item = { id: old.id, cls: item.cls || "", html: row.html };
      else {
        item.live = row;
        sent.set(item, { msg: op.msg, seq: old.live.seq | 0 });
      }
    }
  }
  const next = rows.slice();
  next[at] = item;
  return { ...state, [key]: next };
}
var LIVE_OPS = { live: liveOp };
function updateLive(view, was, item) {
  const d = sent.get(item);
  if (d && d.seq === view.row.seq && item.live.seq === d.seq + 1) view.apply(d.msg);
  else if (item.live !== was?.live) {
    view.row = copyRow(item.live);
    view.draw();
  }
}

// src/chat/transcript.js
var EXTRA_OPS = LIVE_OPS;
var kind = (item) => item.live ? "live" : item.widget ? "widget" : "html";
var ROW_CLASSES = "lm-Widget jupyter-widgets widget-inline-hbox widget-html";
function buttonNode(spec, act) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "lm-Widget jupyter-widgets jupyter-button widget-button";
  for (const c of String(spec.cls || "").split(/\s+/)) if (c) b.classList.add(c);
  if (spec.icon) {
    const i = document.createElement("i");
    i.className = `fa fa-${String(spec.icon).replace(/[^a-z0-9-]/gi, "")}`;
    i.setAttribute("aria-hidden", "true");
    b.append(i, " ");
  }
  b.append(String(spec.label ?? ""));
  if (spec.title) b.title = String(spec.title);
  b.disabled = !!spec.disabled;
  if (spec.hidden) b.style.display = "none";
  b.addEventListener("click", () => {
    if (!b.disabled && spec.action) act(String(spec.action), spec.args || {});
  });
  return b;
}
function htmlNode(item, act) {
  const content = setKernelHtml(document.createElement("div"), item.html);
  content.className = "widget-html-content";
  const html = document.createElement("div");
  html.className = ROW_CLASSES;
  html.append(content);
  if (!item.buttons?.length) {
    for (const c of String(item.cls || "").split(/\s+/)) if (c) html.classList.add(c);
    html.dataset.nbHitlKey = String(item.id);
    return html;
  }
  const box = document.createElement("div");
  box.className = "nb-hitl-row-box";
  for (const c of String(item.cls || "").split(/\s+/)) if (c) box.classList.add(c);
  box.dataset.nbHitlKey = String(item.id);
  box.append(html, ...item.buttons.map((spec) => buttonNode(spec, act)));
  return box;
}
function liveNode(item) {
  const el = document.createElement("div");
  el.className = "nb-hitl-live-row";
  el.dataset.nbHitlKey = String(item.id);
  const view = new RowView(el);
  view.reset(item.live);
  const classes = syncClasses(
    el,
    String(item.cls || "").split(/\s+/).filter(Boolean),
    /* @__PURE__ */ new Set()
  );
  return { node: el, view, classes };
}
function widgetNode(item, model) {
  const el = document.createElement("div");
  el.className = "nb-hitl-widget-row";
  el.dataset.nbHitlKey = String(item.id);
  const manager = model?.widget_manager;
  const id = String(item.widget || "").replace(/^IPY_MODEL_/, "");
  if (manager && typeof manager.get_model === "function") {
    Promise.resolve(manager.get_model(id)).then(async (child) => {
      if (!child || typeof manager.create_view !== "function") return;
      const view = await manager.create_view(child);
      el.append(view.el);
      view.trigger?.("displayed");
    }).catch(() => {
      el.textContent = "(a widget this page cannot draw)";
    });
  }
  return el;
}
function transcriptView(root, act, model) {
  const earlier = buttonNode(
    { label: "Show earlier messages", action: "show_earlier", cls: "nb-hitl-earlier" },
    act
  );
  earlier.style.display = "none";
  const box = document.createElement("div");
  box.className = "nb-hitl-transcript";
  box.setAttribute("role", "log");
  box.setAttribute("aria-label", "Transcript");
  const list = document.createElement("div");
  list.className = "nb-hitl-rows";
  box.append(list);
  root.append(earlier, box);
  const drawn = /* @__PURE__ */ new Map();
  const make = (item) => {
    const k = kind(item);
    if (k === "live") return { item, ...liveNode(item) };
    if (k === "widget") return { item, node: widgetNode(item, model) };
    return { item, node: htmlNode(item, act) };
  };
  const update = (entry, item) => {
    if (entry.item === item) return entry;
    const was = entry.item;
    if (kind(was) !== kind(item) || kind(item) === "widget" && was.widget !== item.widget) {
      const next2 = make(item);
      entry.node.replaceWith(next2.node);
      return next2;
    }
    if (kind(item) === "live") {
      updateLive(entry.view, was, item);
      if (item.cls !== was.cls) {
        const cls = String(item.cls || "").split(/\s+/).filter(Boolean);
        entry.classes = syncClasses(entry.node, cls, entry.classes);
      }
      entry.item = item;
      return entry;
    }
    if (kind(item) === "html" && !item.buttons?.length && !was.buttons?.length) {
      if (item.html !== was.html) setKernelHtml(entry.node.firstChild, item.html);
      if (item.cls !== was.cls) {
        entry.node.className = ROW_CLASSES;
        for (const c of String(item.cls || "").split(/\s+/)) if (c) entry.node.classList.add(c);
      }
      entry.item = item;
      return entry;
    }
    const next = make(item);
    entry.node.replaceWith(next.node);
    return next;
  };
  const drawRows = (rows) => {
    const seen = /* @__PURE__ */ new Set();
    let prev = null;
    for (const item of Array.isArray(rows) ? rows : []) {
      if (!item || item.id == null) continue;
      const id = String(item.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const old = drawn.get(id);
      const entry = old ? update(old, item) : make(item);
      drawn.set(id, entry);
      const want = prev ? prev.nextSibling : list.firstChild;
      if (want !== entry.node) list.insertBefore(entry.node, want);
      prev = entry.node;
    }
    for (const [id, entry] of drawn) {
      if (!seen.has(id)) {
        entry.node.remove();
        drawn.delete(id);
      }
    }
  };
  return (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("earlier")) {
      earlier.style.display = s.earlier ? "" : "none";
      replaceChildren(earlier, String(s.earlier || ""));
    }
    if (all.has("rows")) drawRows(s.rows);
  };
}

// src/chat/view.js
var CHAT_OPS = withChildren({}, { transcript: EXTRA_OPS });
function changedKeys(prev, next) {
  const keys = /* @__PURE__ */ new Set();
  for (const key of /* @__PURE__ */ new Set([...Object.keys(prev || {}), ...Object.keys(next || {})]))
    if (!prev || prev[key] !== next?.[key]) keys.add(key);
  return keys;
}
function chatView({ root, act, model, scope = root, initial = {} }) {
  const style = kernelStyle(root);
  const transcriptBox = document.createElement("div");
  transcriptBox.className = "nb-hitl-transcript-view";
  const transcriptRoot = document.createElement("div");
  transcriptRoot.className = "nbh-panel nbh-transcript";
  transcriptBox.append(transcriptRoot);
  const controlsBox = document.createElement("div");
  controlsBox.className = "nb-hitl-controls";
  const controlsRoot = document.createElement("div");
  controlsRoot.className = "nb-hitl-chat-controls";
  controlsBox.append(controlsRoot);
  const keysMark = document.createElement("div");
  keysMark.className = "nb-hitl-keys";
  keysMark.hidden = true;
  root.append(transcriptBox, controlsBox, keysMark);
  const part2 = (key) => (name, args = {}) => act(key, { name, args });
  const drawTranscript = transcriptView(transcriptRoot, part2("transcript"), model);
  const drawControls = embeddedControls(controlsRoot, act);
  let keys = initial.keys || {};
  const press = part2("keys");
  const onMessage = (fn) => {
    if (!model?.on) return () => {
    };
    model.on("msg:custom", fn);
    return () => model.off?.("msg:custom", fn);
  };
  const unbind = bindKeys(scope, {
    model: model || {},
    setting: (name) => keys[name],
    send: (msg) => press("press", msg),
    onMessage
  });
  let prev = {};
  const draw = (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("css")) style(s.css);
    if (all.has("keys")) keys = s.keys || {};
    if (all.has("transcript"))
      drawTranscript(s.transcript || {}, changedKeys(prev.transcript, s.transcript));
    if (all.has("controls")) drawControls(s.controls);
    prev = s;
  };
  return { draw, teardown: unbind };
}

// src/shared/actions.js
function sendAction(model, name, args = {}) {
  model.send({ t: "action", name, args });
}
function sendSync(model, seq) {
  model.send({ t: "sync", seq });
}

// src/shared/host.js
function pageIsDark(doc) {
  const html = doc.documentElement;
  const body = doc.body;
  return html.classList.contains("dark") || !!body?.classList.contains("dark") || !!body?.classList.contains("vscode-dark") || body?.dataset?.jpThemeLight === "false";
}
function followPageTheme(el, root) {
  const doc = el.ownerDocument;
  const win = doc?.defaultView;
  if (!win) return () => {
  };
  let watch = null;
  let frame = null;
  let tries = 0;
  const apply2 = () => {
    root.dataset.nbhTheme = pageIsDark(doc) ? "dark" : "light";
  };
  const look = () => {
    frame = null;
    const place = el.getRootNode();
    if (place instanceof win.ShadowRoot) {
      apply2();
      watch = new win.MutationObserver(apply2);
      const marks = { attributes: true, attributeFilter: ["class", "data-jp-theme-light"] };
      watch.observe(doc.documentElement, marks);
      if (doc.body) watch.observe(doc.body, marks);
    } else if (place === el || !el.isConnected) {
      if (tries++ < 20 && win.requestAnimationFrame) frame = win.requestAnimationFrame(look);
    }
  };
  look();
  return () => {
    if (frame !== null) win.cancelAnimationFrame?.(frame);
    watch?.disconnect();
  };
}

// src/shared/modules.js
var bases = /* @__PURE__ */ new WeakMap();
function modulesBase(doc = document) {
  if (bases.has(doc)) return bases.get(doc);
  let base = null;
  const config = doc.getElementById("jupyter-config-data");
  if (config) {
    try {
      const path = JSON.parse(config.textContent || "{}").nbHitlModules;
      if (typeof path === "string" && path.endsWith("/nb_hitl/static/")) {
        const url = new URL(path, doc.baseURI);
        if (url.protocol === "http:" || url.protocol === "https:") base = url.href;
      }
    } catch {
      base = null;
    }
  }
  bases.set(doc, base);
  return base;
}
var isUrl = (esm) => typeof esm === "string" && /^https?:\/\//.test(esm);
function announceModules(model, doc = document) {
  if (isUrl(model.get("_esm"))) return false;
  const base = modulesBase(doc);
  if (!base) return false;
  model.send({ t: "modules", base });
  return true;
}

// src/shared/store.js
var stores = /* @__PURE__ */ new WeakMap();
function storeFor(model, extraOps = {}) {
  let store = stores.get(model);
  if (store) return store;
  const listeners = /* @__PURE__ */ new Set();
  let snapshot = readSnapshot(model.get("snapshot"));
  let waiting = false;
  const notify = (changed, verdict) => {
    for (const fn of listeners) fn(snapshot.state, changed, verdict);
  };
  const onMessage = (msg) => {
    const out = reduce(snapshot, msg, extraOps);
    if (out.verdict === "gap") {
      if (!waiting) sendSync(model, snapshot.seq);
      waiting = true;
      return;
    }
    if (out.verdict === "stale") return;
    waiting = false;
    snapshot = out.snapshot;
    model.set("snapshot", snapshot);
    notify(out.changed, out.verdict);
  };
  const onTrait = () => {
    const next = readSnapshot(model.get("snapshot"));
    if (next === snapshot || next.seq <= snapshot.seq) return;
    onMessage({ t: "snapshot", snapshot: next });
  };
  model.on("msg:custom", onMessage);
  model.on("change:snapshot", onTrait);
  store = {
    get snapshot() {
      return snapshot;
    },
    get state() {
      return snapshot.state;
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    receive: onMessage
  };
  stores.set(model, store);
  sendSync(model, snapshot.seq);
  return store;
}

// src/shared/panel.js
function panelView({ className, setup, draw, extraOps }) {
  return ({ model, el }) => {
    const store = storeFor(model, extraOps);
    const classes = () => {
      for (const name of model.get("_dom_classes") || []) el.classList.add(name);
    };
    classes();
    model.on("change:_dom_classes", classes);
    const root = document.createElement("div");
    root.className = className;
    el.append(root);
    const unfollow = followPageTheme(el, root);
    const ctx = { model, el, root, act: (name, args) => sendAction(model, name, args), store };
    announceModules(model);
    setup?.(ctx);
    const all = () => new Set(Object.keys(store.state));
    draw(ctx, store.state, all(), "reset");
    const off = store.subscribe((state, changed, verdict) => draw(ctx, state, changed, verdict));
    return () => {
      off();
      unfollow();
      model.off?.("change:_dom_classes", classes);
      ctx.teardown?.();
      root.remove();
    };
  };
}

// src/chat.js
var chat_default = {
  render: panelView({
    className: "nbh-chat",
    extraOps: CHAT_OPS,
    setup(ctx) {
      const view = chatView({ ...ctx, initial: ctx.store.state });
      ctx.draw = view.draw;
      ctx.teardown = view.teardown;
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    }
  })
};
export {
  chat_default as default
};
