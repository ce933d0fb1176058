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

// src/shared/chart.js
var W = 400;
var KINDS = {
  replayed: ["grey", "replayed call"],
  turn: ["blue", "call in this session"],
  now: ["blue", "now"],
  compress: ["purple", "compressed"],
  undo: ["green", "undone"]
};
var colour = (name) => `var(--nb-hitl-${name})`;
function marker(kind, x, y, tip) {
  const fill2 = colour((KINDS[kind] || KINDS.turn)[0]);
  const title = svg("title", {}, tip);
  if (kind === "compress") {
    const d = `M${(x - 5).toFixed(1)},${(y - 4).toFixed(1)} h10 l-5,8 z`;
    return svg("path", { class: "nb-hitl-compression-mark", d, fill: fill2 }, title);
  }
  if (kind === "undo") {
    const d = `M${(x - 5).toFixed(1)},${(y + 4).toFixed(1)} h10 l-5,-8 z`;
    return svg("path", { class: "nb-hitl-undo-mark", d, fill: fill2 }, title);
  }
  const r = kind === "replayed" ? 2 : 3.5;
  return svg(
    "circle",
    { class: `nb-hitl-point-${kind}`, cx: x.toFixed(1), cy: y.toFixed(1), r, fill: fill2 },
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
  const px = (i) => left + (W - left - 6) * i / Math.max(steps.length - 1, 1);
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
    svg("line", { x1: left, y1: base, x2: W - 4, y2: base, stroke: colour("grey") }),
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
          x2: W - 4,
          y2: y,
          "stroke-dasharray": "4,3",
          stroke: colour("red")
        },
        svg("title", {}, `trigger_threshold: ${formatCount(threshold)}`)
      )
    );
  }
  steps.forEach(([kind, v, tip], i) => {
    parts.push(marker(kind, px(i), py(v), tip));
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
        viewBox: `0 0 ${W} ${height}`,
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
    const kind = LINKS.has(c.link) ? c.link : "connecting";
    link.dataset.link = kind;
    fields.link.textContent = String(c.link_text || kind);
    fields.error.textContent = c.error ? `: ${c.error}` : "";
    fields.error.hidden = !c.error;
    box.hidden = !Object.keys(c).length;
  };
}

// src/views/inspector.js
function inspectorView(root, act) {
  const ctx = { root, act };
  ctx.style = kernelStyle(root);
  const part = (cls, attrs = {}) => h("div", { class: cls, ...attrs });
  const els = {
    header: part("nbh-inspector-header"),
    approx: part("nbh-inspector-approx"),
    bar: part("nbh-inspector-bar"),
    plan: part("nbh-inspector-plan"),
    note: part("nbh-note", { role: "status", "aria-live": "polite" }),
    chart: part("nbh-inspector-chart"),
    table: part("nb-hitl-table-box nbh-inspector-table", {
      role: "region",
      "aria-label": "Memory",
      tabindex: 0
    }),
    explorer: part("nbh-inspector-explorer"),
    remote: part("nbh-inspector-remote")
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

// src/inspector.js
var inspector_default = {
  render: panelView({
    className: "nbh-panel nbh-inspector",
    setup(ctx) {
      ctx.draw = inspectorView(ctx.root, ctx.act);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    }
  })
};
export {
  inspector_default as default
};
