/* Built by js/build.mjs from js/src: edit the source, then `npm run build`. */

// src/shared/actions.js
function sendSync(model, seq) {
  model.send({ t: "sync", seq });
}

// src/shared/dom.js
function setKernelHtml(el, html) {
  el.innerHTML = String(html ?? "");
  return el;
}

// src/chat/segment.js
var newState = () => ({ v: 1, seq: 0, rows: [] });
var copyRow = (r) => ({ id: String(r.id), cls: r.cls || "", html: r.html || "" });
var copyState = (s) => ({
  v: 1,
  seq: (s?.seq ?? 0) | 0,
  rows: Array.isArray(s?.rows) ? s.rows.map(copyRow) : []
});
var at = (rows, id) => rows.findIndex((r) => r.id === id);
function applyOp(rows, op) {
  const i = at(rows, op.id);
  if (op.op === "insert") {
    if (i >= 0) rows.splice(i, 1);
    const b = op.before == null ? -1 : at(rows, op.before);
    rows.splice(b < 0 ? rows.length : b, 0, copyRow(op));
  } else if (op.op === "replace") {
    if (i < 0) rows.push(copyRow(op));
    else
      rows[i] = { id: rows[i].id, cls: op.cls == null ? rows[i].cls : op.cls, html: op.html || "" };
  } else if (op.op === "remove") {
    if (i >= 0) rows.splice(i, 1);
  } else if (op.op === "classes") {
    if (i >= 0) rows[i].cls = op.cls || "";
  }
}
function apply(state, msg) {
  if (!msg || typeof msg !== "object") return "stale";
  if (msg.t === "snapshot") {
    const next = copyState(msg.state);
    if (next.seq <= state.seq && state.seq > 0) return "stale";
    Object.assign(state, next);
    return "reset";
  }
  if (msg.t !== "ops" || msg.seq <= state.seq) return "stale";
  if (msg.seq !== state.seq + 1) return "gap";
  for (const op of msg.ops || []) applyOp(state.rows, op);
  state.seq = msg.seq;
  return "ok";
}
function rowNode(r) {
  const node = document.createElement("div");
  node.className = "lm-Widget jupyter-widgets widget-inline-hbox widget-html";
  for (const c of r.cls.split(/\s+/)) if (c) node.classList.add(c);
  node.dataset.nbHitlKey = r.id;
  const content = document.createElement("div");
  content.className = "widget-html-content";
  setKernelHtml(content, r.html);
  node.appendChild(content);
  return node;
}
var SegmentView = class {
  constructor(el) {
    this.el = el;
    this.state = newState();
    this.nodes = /* @__PURE__ */ new Map();
    this.draw();
  }
  draw() {
    this.el.textContent = "";
    this.nodes.clear();
    for (const r of this.state.rows) {
      const node = rowNode(r);
      this.nodes.set(r.id, node);
      this.el.appendChild(node);
    }
  }
  apply(msg) {
    const verdict = apply(this.state, msg);
    if (verdict === "reset") this.draw();
    if (verdict !== "ok") return verdict;
    for (const op of msg.ops || []) this.drawOp(op);
    return verdict;
  }
  drawOp(op) {
    const old = this.nodes.get(op.id);
    if (op.op === "remove") {
      if (old) {
        old.remove();
        this.nodes.delete(op.id);
      }
      return;
    }
    const row = this.state.rows[at(this.state.rows, op.id)];
    if (!row) return;
    if (op.op === "classes" && old) {
      old.className = rowNode(row).className;
      return;
    }
    const node = rowNode(row);
    if (op.op === "insert" || !old) {
      if (old) old.remove();
      const before = op.before == null ? null : this.nodes.get(op.before) || null;
      this.el.insertBefore(node, before && before.parentNode === this.el ? before : null);
    } else {
      this.el.replaceChild(node, old);
    }
    this.nodes.set(op.id, node);
  }
  /** A snapshot (the trait, a sync answer) replaces the state unless it is older. */
  reset(snapshot) {
    return this.apply({ t: "snapshot", state: snapshot });
  }
};

// src/chat/rows_segment.js
function render({ model, el }) {
  el.classList.add("nb-hitl-segment", "widget-container", "widget-box", "widget-vbox");
  const view = new SegmentView(el);
  view.reset(model.get("rows"));
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sendSync(model, view.state.seq);
    else if (verdict === "ok" || verdict === "reset") model.set("rows", copyState(view.state));
  };
  const onRows = () => view.reset(model.get("rows"));
  model.on("msg:custom", onMsg);
  model.on("change:rows", onRows);
  sendSync(model, view.state.seq);
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:rows", onRows);
  };
}
var rows_segment_default = { render };
export {
  rows_segment_default as default
};
