/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

// src/marimo_host.js
var modules = /* @__PURE__ */ new Map();
async function load(source) {
  if (!modules.has(source)) {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    modules.set(
      source,
      import(url).finally(() => URL.revokeObjectURL(url))
    );
  }
  return modules.get(source);
}
function fragment(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t.content;
}
function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "nb-hitl-marimo";
  const styles = document.createElement("div");
  styles.className = "nb-hitl-marimo-styles";
  el.appendChild(styles);
  el.appendChild(root);
  let seq = -1;
  const hosted = /* @__PURE__ */ new Map();
  const find = (id) => root.querySelector(`[data-nbw="${CSS.escape(id)}"]`);
  function theme() {
    const dark = !!el.closest(".dark") || document.body.classList.contains("dark") || document.documentElement.classList.contains("dark");
    root.dataset.theme = dark ? "dark" : "light";
  }
  theme();
  const watch = new MutationObserver(theme);
  watch.observe(document.body, { attributes: true, attributeFilter: ["class", "data-theme"] });
  watch.observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  function modelOf(id) {
    if (hosted.has(id)) return hosted.get(id);
    const entry = { state: {}, handlers: /* @__PURE__ */ new Map(), pending: {}, views: [] };
    const on = (name, cb) => {
      if (!entry.handlers.has(name)) entry.handlers.set(name, /* @__PURE__ */ new Set());
      entry.handlers.get(name).add(cb);
    };
    entry.emit = (name, ...args) => {
      for (const cb of entry.handlers.get(name) || []) {
        try {
          cb(...args);
        } catch (e) {
          console.error("nb_hitl hosted widget", e);
        }
      }
    };
    entry.model = {
      get: (k) => entry.state[k],
      set: (k, v) => {
        entry.state[k] = v;
        entry.pending[k] = v;
        entry.emit(`change:${k}`);
      },
      save_changes: () => {
        const state = entry.pending;
        entry.pending = {};
        if (Object.keys(state).length) up(id, { method: "update", state });
      },
      send: (content) => up(id, { method: "custom", content }),
      on,
      off: (name, cb) => {
        if (!name) entry.handlers.clear();
        else if (!cb) entry.handlers.delete(name);
        else if (entry.handlers.has(name)) entry.handlers.get(name).delete(cb);
      },
      widget_manager: {}
    };
    hosted.set(id, entry);
    return entry;
  }
  function fromKernel(id, data) {
    const entry = modelOf(id);
    if (data.method === "update" && data.state) {
      Object.assign(entry.state, data.state);
      for (const k of Object.keys(data.state)) entry.emit(`change:${k}`);
      entry.emit("change");
    } else if (data.method === "custom") {
      entry.emit("msg:custom", data.content, []);
    }
  }
  const cssDone = /* @__PURE__ */ new Set();
  async function mount(node) {
    if (node._nbHitlMounted) return;
    node._nbHitlMounted = true;
    const entry = modelOf(node.dataset.nbw);
    const source = entry.state._esm;
    if (!source) return;
    const css = entry.state._css;
    if (css && !cssDone.has(css)) {
      cssDone.add(css);
      const style = document.createElement("style");
      style.textContent = css;
      styles.appendChild(style);
    }
    try {
      const mod = await load(source);
      let def = mod.default || mod;
      if (typeof def === "function") def = await def();
      if (!entry.initialized && def.initialize) {
        entry.initialized = true;
        await def.initialize({ model: entry.model });
      }
      const cleanup = def.render ? await def.render({ model: entry.model, el: node }) : null;
      if (typeof cleanup === "function") entry.views.push({ node, cleanup });
    } catch (e) {
      console.error("nb_hitl: could not mount a hosted widget", e);
    }
  }
  function mountAll() {
    for (const node of root.querySelectorAll('[data-kind="anywidget"]')) mount(node);
    for (const entry of hosted.values()) {
      entry.views = entry.views.filter((v) => {
        if (root.contains(v.node)) return true;
        try {
          v.cleanup();
        } catch (_e) {
        }
        return false;
      });
    }
  }
  function replace(id, html) {
    const old = find(id);
    if (!old) return false;
    const active = el.getRootNode().activeElement;
    const keep = active && old.contains(active) && active.matches("textarea, input, select") ? { start: active.selectionStart, end: active.selectionEnd, value: active.value } : null;
    const next = fragment(html).firstElementChild;
    old.replaceWith(next);
    if (keep && next) {
      const box = next.querySelector("textarea, input, select") || next;
      box.focus();
      if (box.value === keep.value && keep.start !== null && box.setSelectionRange) {
        box.setSelectionRange(keep.start, keep.end);
      }
    }
    return true;
  }
  function reorder(id, order, fresh) {
    const box = find(id);
    if (!box) return false;
    const have = /* @__PURE__ */ new Map();
    for (const c of box.children) if (c.dataset?.nbw) have.set(c.dataset.nbw, c);
    const kids = [];
    for (const cid of order) {
      const node = have.get(cid) || (fresh[cid] ? fragment(fresh[cid]).firstElementChild : null);
      if (!node) return false;
      kids.push(node);
    }
    box.replaceChildren(...kids);
    return true;
  }
  model.on("msg:custom", (msg) => {
    if (!msg || typeof msg !== "object") return;
    for (const [id, state] of Object.entries(msg.models || {})) {
      fromKernel(id, { method: "update", state });
    }
    if (typeof msg.full === "string") {
      seq = msg.seq;
      root.replaceChildren(fragment(msg.full));
      mountAll();
      return;
    }
    if (typeof msg.seq !== "number" || msg.seq <= seq) return;
    let ok = msg.seq === seq + 1;
    seq = msg.seq;
    for (const [id, order, fresh] of msg.children || []) ok = reorder(id, order, fresh) && ok;
    for (const [id, cls, style] of msg.shell || []) {
      const node = find(id);
      if (!node) continue;
      node.className = cls;
      if (style) node.setAttribute("style", style);
      else node.removeAttribute("style");
    }
    for (const [id, html] of msg.replace || []) ok = replace(id, html) && ok;
    for (const [id, data] of msg.child || []) fromKernel(id, data);
    mountAll();
    if (!ok) model.send({ hello: true });
  });
  const pending = /* @__PURE__ */ new Map();
  function up(id, data) {
    model.send({ w: id, data });
  }
  function editValue(owner, box) {
    const kind = owner.dataset.kind;
    if (kind === "check") return { value: box.checked };
    if (kind === "number") return { value: Number(box.value) };
    if (kind === "select") return { index: Number(box.value) };
    return { value: box.value };
  }
  function flushEdits() {
    for (const [id, timer] of pending) {
      clearTimeout(timer);
      const owner = find(id);
      const box = owner?.querySelector("textarea, input, select");
      if (box) up(id, { method: "update", state: editValue(owner, box) });
    }
    pending.clear();
  }
  root.addEventListener("click", (ev) => {
    const button = ev.target.closest("button");
    if (!button || button.disabled || !root.contains(button)) return;
    const owner = button.closest("[data-nbw]");
    if (!owner) return;
    const kind = owner.dataset.kind;
    const id = owner.dataset.nbw;
    if (kind === "button" && owner === button) {
      flushEdits();
      up(id, { method: "custom", content: { event: "click" } });
    } else if (kind === "toggle" && owner === button) {
      const pressed = button.getAttribute("aria-pressed") === "true";
      up(id, { method: "update", state: { value: !pressed } });
    } else if (kind === "toggles" && button.dataset.index !== void 0) {
      up(id, { method: "update", state: { index: Number(button.dataset.index) } });
    }
  });
  root.addEventListener("input", (ev) => {
    const owner = ev.target.closest("[data-nbw]");
    if (!owner || !["text", "number"].includes(owner.dataset.kind)) return;
    const id = owner.dataset.nbw;
    const box = ev.target;
    clearTimeout(pending.get(id));
    pending.set(
      id,
      setTimeout(() => {
        pending.delete(id);
        up(id, { method: "update", state: editValue(owner, box) });
      }, 250)
    );
  });
  root.addEventListener("change", (ev) => {
    const owner = ev.target.closest("[data-nbw]");
    if (!owner || !["text", "number", "select", "check"].includes(owner.dataset.kind)) return;
    clearTimeout(pending.get(owner.dataset.nbw));
    pending.delete(owner.dataset.nbw);
    up(owner.dataset.nbw, { method: "update", state: editValue(owner, ev.target) });
  });
  model.send({ hello: true });
  return () => {
    watch.disconnect();
    for (const entry of hosted.values()) for (const v of entry.views) v.cleanup();
  };
}
var marimo_host_default = { render };
export {
  marimo_host_default as default
};
