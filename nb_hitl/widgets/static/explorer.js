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
  const apply = button("Apply to agent", () => act("apply"), {
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
    h("div", { class: "nbh-row nbh-buttons" }, sweep, metric.row, cheapest, apply),
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
    setOff(apply, off.apply);
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

// src/explorer.js
var explorer_default = {
  render: panelView({
    className: "nbh-panel nbh-explorer",
    setup(ctx) {
      ctx.style = kernelStyle(ctx.root);
      ctx.draw = explorerView(ctx.root, ctx.act);
    },
    draw(ctx, state) {
      ctx.style(state.css);
      ctx.draw(state);
    }
  })
};
export {
  explorer_default as default
};
