/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

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
          ...options.map(([value, label]) => h("option", { value: String(value) }, String(label)))
        );
      }
      exportSelect.value = String(part.value ?? "");
      exportSelect.disabled = !!part.disabled;
    }
  };
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
  const apply = () => {
    root.dataset.nbhTheme = pageIsDark(doc) ? "dark" : "light";
  };
  const look = () => {
    frame = null;
    const place = el.getRootNode();
    if (place instanceof win.ShadowRoot) {
      apply();
      watch = new win.MutationObserver(apply);
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
  let part = old && typeof old === "object" && !Array.isArray(old) ? old : {};
  for (const inner of op.ops) part = applyOp(part, inner, own);
  return part === old ? state : { ...state, [key]: part };
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

// src/chat_controls.js
var chat_controls_default = {
  render: panelView({
    className: "nb-hitl-chat-controls",
    setup(ctx) {
      ctx.draw = controlsView(ctx.root, ctx.act);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    }
  })
};
export {
  chat_controls_default as default
};
