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
function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
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

// src/permissions.js
var permissions_default = {
  render: panelView({
    className: "nbh-panel nbh-permissions-panel",
    setup(ctx) {
      ctx.draw = permissionsView(ctx.root, ctx.act);
    },
    draw(ctx, state) {
      ctx.draw(state);
    }
  })
};
export {
  permissions_default as default
};
