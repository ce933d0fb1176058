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
function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}
function setKernelHtml(el, html) {
  el.innerHTML = String(html ?? "");
  return el;
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
function applyOp(row, op) {
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
  for (const op of msg.ops || []) applyOp(row, op);
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
    for (const h of row.blocks) blocks.appendChild(block(h));
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
var indexOf = (items, id) => items.findIndex((item) => item && item.id === id);
function applyOp2(state, op, extraOps = {}) {
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
  for (const inner of op.ops) part2 = applyOp2(part2, inner, own);
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
  for (const op of Array.isArray(msg.ops) ? msg.ops : []) state = applyOp2(state, op, extraOps);
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

// src/transcript.js
var transcript_default = {
  render: panelView({
    className: "nbh-panel nbh-transcript",
    extraOps: EXTRA_OPS,
    setup(ctx) {
      ctx.draw = transcriptView(ctx.root, ctx.act, ctx.model);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    }
  })
};
export {
  transcript_default as default
};
