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

// src/chat/rows.js
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

// src/chat/live_row.js
function render({ model, el }) {
  el.classList.add("nb-hitl-live-row");
  const view = new RowView(el);
  view.reset(model.get("snapshot"));
  let classes = syncClasses(el, model.get("_dom_classes"), /* @__PURE__ */ new Set());
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sendSync(model, view.row.seq);
    else if (verdict === "ok" && view.row.done) model.set("snapshot", copyRow(view.row));
  };
  const onSnapshot = () => view.reset(model.get("snapshot"));
  const onClasses = () => {
    classes = syncClasses(el, model.get("_dom_classes"), classes);
  };
  model.on("msg:custom", onMsg);
  model.on("change:snapshot", onSnapshot);
  model.on("change:_dom_classes", onClasses);
  if (!view.row.done) sendSync(model, view.row.seq);
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:snapshot", onSnapshot);
    model.off("change:_dom_classes", onClasses);
  };
}
var live_row_default = { render };
export {
  live_row_default as default
};
