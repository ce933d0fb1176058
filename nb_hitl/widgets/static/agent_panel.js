/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

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

// src/shared/ops.js
var emptySnapshot = () => ({ v: 1, seq: 0, state: {} });
var CHILD_OPS = /* @__PURE__ */ Symbol("nb_hitl child ops");
function withChildren(ownOps, children) {
  return { ...ownOps, [CHILD_OPS]: { ...ownOps?.[CHILD_OPS] || {}, ...children } };
}
function changedKeys(prev, next) {
  const keys = /* @__PURE__ */ new Set();
  for (const key of /* @__PURE__ */ new Set([...Object.keys(prev || {}), ...Object.keys(next || {})]))
    if (!prev || prev[key] !== next?.[key]) keys.add(key);
  return keys;
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
function panelView({ className, setup, draw: draw2, extraOps }) {
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
    draw2(ctx, store.state, all(), "reset");
    const off = store.subscribe((state, changed, verdict) => draw2(ctx, state, changed, verdict));
    return () => {
      off();
      unfollow();
      model.off?.("change:_dom_classes", classes);
      ctx.teardown?.();
      root.remove();
    };
  };
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
var SVG_NS = "http://www.w3.org/2000/svg";
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
function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}
function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}
function setKernelHtml(el, html) {
  el.innerHTML = String(html ?? "");
  return el;
}
function formatCount(n) {
  return Number(n || 0).toLocaleString("en-US");
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
  const draw2 = controlsView(root, (name, args) => act("controls", { name, args }), options);
  let last = null;
  return (part2) => {
    const next = part2 || {};
    const changed = new Set(Object.keys(next).filter((k) => !last || next[k] !== last[k]));
    last = next;
    if (changed.size) draw2(next, changed);
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
  const button2 = scope.querySelector(stopButton);
  if (!button2 || button2.disabled) return 0;
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
    const button2 = origin(ev).closest(selector);
    if (!button2 || !scope.contains(button2)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const fetched = button2.dataset.copyId !== void 0 && button2.dataset.copy === void 0;
    const copying = fetched ? copyFetched(button2.dataset.copyId) : copyText(button2.dataset.copy || "");
    copying.then((done) => {
      button2.classList.toggle("nb-hitl-copied", done);
      button2.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
      setTimeout(() => {
        button2.classList.remove("nb-hitl-copied");
        button2.title = "Copy this message";
      }, 1500);
    });
  });
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("action_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button2 = origin(ev).closest(selector);
    if (!button2 || !scope.contains(button2) || button2.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const msg = { action: button2.dataset.nbHitlAction || "", text: button2.dataset.nbHitlArg || "" };
    const card = button2.closest("[data-nb-hitl-card]");
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
      const button2 = near.querySelector(b.click);
      if (button2 && !button2.disabled) button2.click();
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
function changedKeys2(prev, next) {
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
  const draw2 = (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("css")) style(s.css);
    if (all.has("keys")) keys = s.keys || {};
    if (all.has("transcript"))
      drawTranscript(s.transcript || {}, changedKeys2(prev.transcript, s.transcript));
    if (all.has("controls")) drawControls(s.controls);
    prev = s;
  };
  return { draw: draw2, teardown: unbind };
}

// src/shared/chart.js
var W2 = 400;
var KINDS = {
  replayed: ["grey", "replayed call"],
  turn: ["blue", "call in this session"],
  now: ["blue", "now"],
  compress: ["purple", "compressed"],
  undo: ["green", "undone"]
};
var colour = (name) => `var(--nb-hitl-${name})`;
function marker(kind2, x, y, tip) {
  const fill2 = colour((KINDS[kind2] || KINDS.turn)[0]);
  const title = svg("title", {}, tip);
  if (kind2 === "compress") {
    const d = `M${(x - 5).toFixed(1)},${(y - 4).toFixed(1)} h10 l-5,8 z`;
    return svg("path", { class: "nb-hitl-compression-mark", d, fill: fill2 }, title);
  }
  if (kind2 === "undo") {
    const d = `M${(x - 5).toFixed(1)},${(y + 4).toFixed(1)} h10 l-5,-8 z`;
    return svg("path", { class: "nb-hitl-undo-mark", d, fill: fill2 }, title);
  }
  const r = kind2 === "replayed" ? 2 : 3.5;
  return svg(
    "circle",
    { class: `nb-hitl-point-${kind2}`, cx: x.toFixed(1), cy: y.toFixed(1), r, fill: fill2 },
    title
  );
}
function legend(items) {
  return h(
    "div",
    { class: "nb-hitl-legend" },
    items.map(
      ([name, style, label]) => h(
        "span",
        {},
        h("i", {
          class: `nb-hitl-swatch nb-hitl-swatch-${style}`,
          style: `${style === "dash" ? "border-color" : "background"}:${colour(name)}`
        }),
        label
      )
    )
  );
}
function layout(steps, threshold, height = 150) {
  const left = 48;
  const topPad = 8;
  const inner = height - topPad - 6;
  const peak = Math.max(...steps.map((s) => s[1]), threshold || 0, 1);
  const top = peak * 1.1;
  const px = (i) => left + (W2 - left - 6) * i / Math.max(steps.length - 1, 1);
  const py = (v) => topPad + inner * (1 - v / top);
  return { left, topPad, inner, peak, px, py };
}
function chartLabel(steps, threshold) {
  const last = steps[steps.length - 1][1];
  return `Prompt tokens over ${steps.length} steps, now ${formatCount(last)}${threshold > 0 ? `, threshold ${formatCount(threshold)}` : ", no threshold"}`;
}
function moveThreshold(box, steps, from, to, height = 150) {
  if (!(from > 0 && to > 0) || !steps.length) return false;
  const chart = box.querySelector("svg.nb-hitl-chart");
  const line = chart?.querySelector(".nb-hitl-chart-threshold");
  if (!line) return false;
  const { peak, py } = layout(steps, to, height);
  if (peak !== layout(steps, from, height).peak) return false;
  const y = py(to).toFixed(1);
  line.setAttribute("y1", y);
  line.setAttribute("y2", y);
  const title = line.querySelector("title");
  if (title) title.textContent = `trigger_threshold: ${formatCount(to)}`;
  chart.setAttribute("aria-label", chartLabel(steps, to));
  return true;
}
function stepsChart(steps, threshold, height = 150) {
  if (!steps.length) return [svg("svg", { class: "nb-hitl-chart", width: "100%", height: 20 })];
  const { left, topPad, inner, peak, px, py } = layout(steps, threshold, height);
  const base = (topPad + inner).toFixed(1);
  const parts = [
    svg("line", { x1: left, y1: base, x2: W2 - 4, y2: base, stroke: colour("grey") }),
    svg("polyline", {
      class: "nb-hitl-chart-line",
      fill: "none",
      "stroke-width": 1.2,
      stroke: colour("blue"),
      points: steps.map(([, v], i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(" ")
    })
  ];
  if (threshold > 0) {
    const y = py(threshold).toFixed(1);
    parts.push(
      svg(
        "line",
        {
          class: "nb-hitl-chart-threshold",
          x1: left,
          y1: y,
          x2: W2 - 4,
          y2: y,
          "stroke-dasharray": "4,3",
          stroke: colour("red")
        },
        svg("title", {}, `trigger_threshold: ${formatCount(threshold)}`)
      )
    );
  }
  steps.forEach(([kind2, v, tip], i) => {
    parts.push(marker(kind2, px(i), py(v), tip));
  });
  parts.push(
    svg(
      "text",
      { x: left - 4, y: (py(peak) + 4).toFixed(1), "font-size": 12, "text-anchor": "end" },
      formatCount(peak)
    ),
    svg("text", { x: left - 4, y: base, "font-size": 12, "text-anchor": "end" }, "0")
  );
  const kinds = Object.keys(KINDS).filter((k) => steps.some((s) => s[0] === k));
  const items = kinds.map((k) => [KINDS[k][0], "dot", KINDS[k][1]]);
  if (threshold > 0) items.push(["red", "dash", "threshold"]);
  const label = chartLabel(steps, threshold);
  return [
    legend(items),
    svg(
      "svg",
      {
        class: "nb-hitl-chart",
        viewBox: `0 0 ${W2} ${height}`,
        width: "100%",
        height,
        role: "img",
        "aria-label": label,
        "data-steps": steps.length
      },
      parts
    ),
    h("div", { class: "nb-hitl-caption" }, "prompt tokens, step by step (hover a point)")
  ];
}

// src/shared/controls.js
var nextId = 0;
var uid = (prefix) => `${prefix}-${++nextId}`;
function button(label, onclick, { title, primary, className } = {}) {
  const el = h(
    "button",
    { type: "button", class: [className, primary && "nbh-primary"], title },
    label
  );
  el.addEventListener("click", () => {
    if (!el.disabled) onclick();
  });
  el.dataset.title = title || "";
  return el;
}
function setOff(el, reason) {
  const off = reason != null;
  el.disabled = off;
  if (off && reason) el.title = reason;
  else if (el.dataset.title !== void 0) el.title = el.dataset.title;
  else el.removeAttribute("title");
}
function setValue(el, value) {
  if (el.ownerDocument.activeElement === el && el.type !== "range") return;
  const text = String(value ?? "");
  if (el.value !== text) el.value = text;
}
function numberPair(label, onChange, { throttleMs = 80 } = {}) {
  const id = uid("nbh-range");
  const range = h("input", { type: "range", id, min: 0, step: 1, "aria-label": label });
  const box = h("input", {
    type: "number",
    min: 0,
    step: 1,
    "aria-label": `${label} (number)`,
    class: "nbh-number"
  });
  const row = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: id, class: "nbh-pair-label" }, label),
    range,
    box
  );
  let continuous = true;
  let dragging = false;
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
function select(label, onChange) {
  const id = uid("nbh-select");
  const el = h("select", { id });
  el.addEventListener("change", () => onChange(el.value));
  const row = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: id, class: "nbh-pair-label" }, label),
    el
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

// src/views/explorer.js
function explorerView(root, act) {
  const header = h("div", { class: "nbh-explorer-header" });
  const threshold = numberPair("threshold", (value) => act("threshold", { value }));
  const keep = numberPair("keep_recent", (value) => act("keep", { value }));
  const budgetId = `nbh-budget-${Math.random().toString(36).slice(2)}`;
  const budget = h("input", { type: "number", id: budgetId, min: 1, step: 1, class: "nbh-number" });
  budget.addEventListener("change", () => {
    const value = Number(budget.value);
    if (budget.value !== "" && Number.isFinite(value)) act("budget", { value });
  });
  const budgetRow = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: budgetId, class: "nbh-pair-label" }, "budget"),
    budget
  );
  const policy = select("summary", (label) => act("policy", { label }));
  const metric = select("colour by", (key) => act("metric", { key }));
  const curve = h("div", { class: "nbh-explorer-curve" });
  const totals = h("div", { class: "nbh-explorer-totals" });
  const sweep = button("Run sweep", () => act("sweep"), { className: "nbh-sweep" });
  const cheapest = button("Use cheapest", () => act("cheapest"), { className: "nbh-cheapest" });
  const apply2 = button("Apply to agent", () => act("apply"), {
    className: "nbh-apply",
    title: "Set the agent's compression_config to these settings",
    primary: true
  });
  const heat = h("div", { class: "nbh-explorer-sweep" });
  const note = h("div", { class: "nbh-note", role: "status", "aria-live": "polite" });
  root.append(
    header,
    h("div", { class: "nbh-row" }, threshold.row, keep.row),
    h("div", { class: "nbh-row" }, budgetRow, policy.row),
    curve,
    totals,
    h("div", { class: "nbh-row nbh-buttons" }, sweep, metric.row, cheapest, apply2),
    heat,
    note
  );
  const drawn = {};
  const html = (el, key, value) => {
    if (drawn[key] !== value) setKernelHtml(el, value || "");
    drawn[key] = value;
  };
  return (state) => {
    if (!state) return;
    html(header, "header", state.header);
    html(curve, "curve", state.curve);
    html(totals, "totals", state.totals);
    html(heat, "sweep", state.sweep);
    html(note, "note", state.note);
    const c = state.controls;
    if (!c) return;
    const off = c.off || {};
    threshold.set({
      value: c.threshold,
      min: 1,
      max: c.threshold_max,
      boxMax: c.threshold_box_max,
      continuous: c.continuous,
      off: off.threshold
    });
    keep.set({
      value: c.keep,
      max: c.keep_max,
      boxMax: c.keep_box_max,
      continuous: c.continuous,
      off: off.keep
    });
    if (budget.ownerDocument.activeElement !== budget) budget.value = String(c.budget);
    policy.set(
      (c.policies || []).map((p) => [p, p]),
      c.policy,
      off.policy
    );
    metric.set(c.metrics || [], c.metric, off.metric);
    setOff(sweep, off.sweep);
    setOff(cheapest, off.cheapest);
    setOff(apply2, off.apply);
  };
}

// src/views/remote.js
var LINKS = /* @__PURE__ */ new Set(["connecting", "connected", "disconnected", "error"]);
function remoteView(root) {
  const style = kernelStyle(root);
  const code = (cls) => h("code", { class: cls });
  const fields = {
    server: code("nbh-remote-server"),
    thread: code("nbh-remote-thread"),
    link: h("span", { class: "nbh-remote-link-text" }),
    error: h("span", { class: "nbh-remote-error" }),
    can: h("span", { class: "nbh-remote-can" }),
    state: h("pre", { class: "nbh-remote-state-text", tabindex: 0, "aria-label": "State" })
  };
  const link = h(
    "div",
    { class: "nbh-remote-link", role: "status", "aria-live": "polite" },
    "link: ",
    fields.link,
    fields.error
  );
  const box = h(
    "details",
    { class: "nbh-remote", open: true },
    h("summary", {}, h("b", {}, "Remote agent")),
    h("div", {}, "server: ", fields.server),
    h("div", {}, "thread: ", fields.thread),
    link,
    h("div", {}, "server can: ", fields.can),
    h("div", {}, "state:"),
    fields.state
  );
  root.append(box);
  return (state) => {
    const s = state || {};
    style(s.css);
    const c = s.controls || {};
    for (const key of ["server", "thread", "can", "state"]) {
      const text = String(c[key] ?? "");
      if (fields[key].textContent !== text) fields[key].textContent = text;
    }
    const kind2 = LINKS.has(c.link) ? c.link : "connecting";
    link.dataset.link = kind2;
    fields.link.textContent = String(c.link_text || kind2);
    fields.error.textContent = c.error ? `: ${c.error}` : "";
    fields.error.hidden = !c.error;
    box.hidden = !Object.keys(c).length;
  };
}

// src/views/inspector.js
function inspectorView(root, act) {
  const ctx = { root, act };
  ctx.style = kernelStyle(root);
  const part2 = (cls, attrs = {}) => h("div", { class: cls, ...attrs });
  const els = {
    header: part2("nbh-inspector-header"),
    approx: part2("nbh-inspector-approx"),
    bar: part2("nbh-inspector-bar"),
    plan: part2("nbh-inspector-plan"),
    note: part2("nbh-note", { role: "status", "aria-live": "polite" }),
    chart: part2("nbh-inspector-chart"),
    table: part2("nb-hitl-table-box nbh-inspector-table", {
      role: "region",
      "aria-label": "Memory",
      tabindex: 0
    }),
    explorer: part2("nbh-inspector-explorer"),
    remote: part2("nbh-inspector-remote")
  };
  const threshold = numberPair("threshold", (value) => act("threshold", { value }));
  const keep = numberPair("keep_recent", (value) => act("keep", { value }));
  const buttons = {
    compress: button("Compress now", () => act("compress"), { className: "nbh-compress" }),
    undo: button("Undo", () => act("undo"), { className: "nbh-undo" }),
    reset: button("Reset what-if", () => act("reset"), { className: "nbh-reset" }),
    explore: button("Explore settings", () => act("explore"), {
      className: "nbh-explore",
      title: "Replay this conversation under any threshold and keep_recent, and sweep"
    })
  };
  const pinId = uid("nbh-pin");
  const pinRef = h("input", {
    type: "text",
    id: pinId,
    class: "nbh-pin-ref",
    placeholder: "row # or message id",
    "aria-label": "Row number or message id to pin"
  });
  const pin = button("Pin", () => act("pin", { ref: pinRef.value }), {
    className: "nbh-pin",
    title: "Pin (Enter)"
  });
  const unpin = button("Unpin", () => act("unpin", { ref: pinRef.value }), {
    className: "nbh-unpin"
  });
  pinRef.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      pin.click();
    }
  });
  const showAll = button(
    "Show all rows",
    () => act("show_all", { value: showAll.getAttribute("aria-pressed") !== "true" }),
    {
      className: "nbh-show-all"
    }
  );
  showAll.setAttribute("aria-pressed", "false");
  const controls = h(
    "div",
    { class: "nbh-controls", role: "group", "aria-label": "What-if compression settings" },
    h("div", { class: "nbh-row" }, threshold.row),
    h("div", { class: "nbh-row" }, keep.row),
    h("div", { class: "nbh-row nbh-buttons" }, Object.values(buttons)),
    h("div", { class: "nbh-row nbh-buttons" }, pinRef, pin, unpin, showAll)
  );
  root.append(
    els.header,
    els.approx,
    els.bar,
    els.plan,
    controls,
    els.explorer,
    els.note,
    els.chart,
    els.table,
    els.remote
  );
  Object.assign(ctx, { els, threshold, keep, buttons, pinRef, pin, unpin, showAll, drawn: {} });
  return (state, changed) => draw(ctx, state || {}, changed || new Set(Object.keys(state || {})));
}
function draw(ctx, state, changed) {
  const { els, drawn } = ctx;
  if (changed.has("css")) ctx.style(state.css);
  for (const key of ["header", "approx", "bar", "plan", "note", "table"]) {
    if (changed.has(key) && drawn[key] !== state[key]) {
      setKernelHtml(els[key], state[key] || "");
      drawn[key] = state[key];
    }
  }
  if (changed.has("chart")) {
    const chart = state.chart || { steps: [], threshold: 0 };
    const was = ctx.chart;
    const moved = was?.steps === chart.steps && moveThreshold(els.chart, chart.steps, was.threshold, chart.threshold);
    if (!moved)
      replaceChildren(
        els.chart,
        chart.steps.length ? stepsChart(chart.steps, chart.threshold) : []
      );
    ctx.chart = chart;
  }
  if (changed.has("controls") && state.controls) {
    const c = state.controls;
    const off = c.off || {};
    ctx.threshold.set({
      value: c.threshold,
      max: c.threshold_max,
      boxMax: c.threshold_box_max,
      off: off.threshold
    });
    ctx.keep.set({ value: c.keep, max: c.keep_max, boxMax: c.keep_box_max, off: off.keep });
    for (const [name, el] of Object.entries(ctx.buttons)) setOff(el, off[name]);
    setOff(ctx.pinRef, off.pin);
    setOff(ctx.pin, off.pin);
    setOff(ctx.unpin, off.unpin);
    setOff(ctx.showAll, off.show_all);
    ctx.showAll.setAttribute("aria-pressed", String(Boolean(c.show_all)));
    ctx.showAll.textContent = c.show_all ? "Show recent rows" : "Show all rows";
  }
  if (changed.has("explorer")) {
    if (state.explorer && !ctx.explorer) {
      els.explorer.classList.add("nb-hitl-explorer");
      const act = (name, args = {}) => ctx.act("explorer", { name, args });
      ctx.explorer = explorerView(els.explorer, act);
    }
    if (ctx.explorer) ctx.explorer(state.explorer);
  }
  if (changed.has("remote") && state.remote) {
    if (!ctx.remote) {
      els.remote.classList.add("nb-hitl-remote-state");
      ctx.remote = remoteView(els.remote);
    }
    ctx.remote(state.remote);
  }
}

// src/views/permissions.js
function permissionsView(root, act) {
  const style = kernelStyle(root);
  const picker = select("Permissions", (value) => act("mode", { value }));
  picker.select.classList.add("nb-hitl-permission-mode-picker");
  const modeText = h("span", { class: "nbh-permission-mode-text" });
  const rules = h("div", { class: "nb-hitl-rules", role: "list", "aria-label": "Rules" });
  const tasks = h("div", {
    class: "nb-hitl-tasks",
    role: "list",
    "aria-label": "Background tasks"
  });
  const note = h("div", { class: "nb-hitl-approval-error nbh-note", role: "alert" });
  const box = h(
    "div",
    { class: "nbh-permissions", role: "group", "aria-label": "Permissions" },
    h("div", { class: "nbh-row nbh-permission-mode-row" }, picker.row, modeText),
    rules,
    tasks,
    note
  );
  root.append(box);
  const drawn = {};
  const row = (cls, item, label, name, extra) => h(
    "div",
    { class: ["nbh-row", cls], role: "listitem", dataset: { id: item.id } },
    setKernelHtml(h("span", { class: `${cls}-text` }), item.html),
    button(label, () => act(name, { id: item.id }), extra)
  );
  return (state) => {
    const s = state || {};
    const c = s.controls || {};
    style(s.css);
    box.hidden = !c.shown;
    picker.set(c.modes || [], c.mode);
    if (drawn.mode !== s.mode_html) setKernelHtml(modeText, s.mode_html || "");
    drawn.mode = s.mode_html;
    const ruleKey = JSON.stringify(s.rules || []);
    if (drawn.rules !== ruleKey) {
      const items = (s.rules || []).map(
        (r) => row("nb-hitl-rule", r, "Revoke", "revoke", {
          className: "nb-hitl-revoke",
          title: "Remove this rule"
        })
      );
      replaceChildren(
        rules,
        items.length ? items : h("i", { class: "nbh-rules-empty" }, "No permission rules: the mode decides.")
      );
      drawn.rules = ruleKey;
    }
    const taskKey = JSON.stringify(s.tasks || []);
    if (drawn.tasks !== taskKey) {
      replaceChildren(
        tasks,
        (s.tasks || []).map(
          (t) => row("nb-hitl-task", t, "Stop", "stop", {
            className: "nb-hitl-stop-task nbh-warning",
            title: "Stop this background task"
          })
        )
      );
      drawn.tasks = taskKey;
    }
    if (drawn.note !== s.note) setKernelHtml(note, s.note || "");
    drawn.note = s.note;
  };
}

// src/views/session.js
function sessionView(root, act) {
  const style = kernelStyle(root);
  const id = uid("nbh-session-path");
  const path = h("input", {
    type: "text",
    id,
    class: "nbh-session-path",
    spellcheck: "false",
    autocomplete: "off"
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
    className: "nbh-session-replace nbh-warning"
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
    cancel
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

// src/views/panel.js
var PARTS = [
  ["permissions", "nb-hitl-permissions", permissionsView],
  ["session", "nb-hitl-session-bar", sessionView]
];
function panelRowsView(root, act) {
  const views = {};
  const els = {};
  for (const [key, cls] of PARTS) {
    els[key] = h("div", { class: `nbh-part ${cls}`, hidden: true });
    root.append(els[key]);
  }
  const limits = h("div", { class: "nbh-part nbh-limits" });
  root.append(limits);
  let drawnLimits = null;
  return (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    for (const [key, , view] of PARTS) {
      if (!all.has(key)) continue;
      const part2 = s[key];
      els[key].hidden = !part2;
      if (!part2) continue;
      if (!views[key]) views[key] = view(els[key], (name, args = {}) => act(key, { name, args }));
      views[key](part2);
    }
    if (s.limits !== drawnLimits) {
      setKernelHtml(limits, s.limits || "");
      drawnLimits = s.limits;
    }
  };
}

// src/views/agent_panel.js
var AGENT_PANEL_OPS = withChildren({}, { chat: CHAT_OPS });
function agentPanelView({ root, act, model, el = root }) {
  const style = kernelStyle(root);
  const part2 = (key) => (name, args = {}) => act(key, { name, args });
  const chatBox = h("div", { class: "nb-hitl-chat nb-hitl-column-main" });
  const sideBox = h("div", { class: "nb-hitl-inspector nb-hitl-column-side", hidden: true });
  const inspectorRoot = h("div", { class: "nbh-panel nbh-inspector" });
  sideBox.append(inspectorRoot);
  const columns = h("div", { class: "nb-hitl-columns" }, chatBox, sideBox);
  const rowsRoot = h("div", { class: "nbh-panel nbh-panel-rows" });
  const rows = h("div", { class: "nb-hitl-panel-parts" }, rowsRoot);
  root.append(columns, rows);
  const unfollow = [followPageTheme(el, inspectorRoot), followPageTheme(el, rowsRoot)];
  let chat = null;
  let chatGeneration = null;
  const buildChat = (state) => {
    chat?.teardown();
    chatBox.replaceChildren();
    const chatRoot = h("div", { class: "nbh-chat" });
    chatBox.append(chatRoot);
    chat = chatView({ root: chatRoot, act: part2("chat"), model, scope: chatRoot, initial: state });
  };
  let inspector = null;
  const drawRows = panelRowsView(rowsRoot, act);
  let prev = {};
  const draw2 = (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("css")) style(s.css);
    if (s.chat_generation !== chatGeneration || !chat) {
      buildChat(s.chat || {});
      chatGeneration = s.chat_generation;
      chat.draw(s.chat || {});
    } else if (all.has("chat")) {
      chat.draw(s.chat || {}, changedKeys(prev.chat, s.chat));
    }
    sideBox.hidden = !s.inspector;
    columns.classList.toggle("nbh-chat-only", !s.inspector);
    if (all.has("inspector")) {
      if (s.inspector) {
        if (!inspector) inspector = inspectorView(inspectorRoot, part2("inspector"));
        inspector(s.inspector, changedKeys(prev.inspector, s.inspector));
      }
    }
    if (all.has("permissions") || all.has("session") || all.has("limits")) {
      const under = new Set(["permissions", "session", "limits"].filter((k) => all.has(k)));
      drawRows(s, under);
    }
    prev = s;
  };
  const teardown = () => {
    chat?.teardown();
    for (const off of unfollow) off();
  };
  return { draw: draw2, teardown };
}

// src/agent_panel.js
var agent_panel_default = {
  render: panelView({
    className: "nbh-agent-panel",
    extraOps: AGENT_PANEL_OPS,
    setup(ctx) {
      const view = agentPanelView({ ...ctx, initial: ctx.store.state });
      ctx.draw = view.draw;
      ctx.teardown = view.teardown;
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    }
  })
};
export {
  agent_panel_default as default
};
