// A rows segment: a run of consecutive finished message rows kept by key (the kernel's side:
// nb_hitl/widgets/_segment.py).
//
// State (the `rows` trait, the `state` of a snapshot message): `{v: 1, seq, rows: [{id, cls,
// html}, ...]}`. `html` is a whole row (Copy button, header, body, Edit / Regenerate buttons)
// rendered AND escaped by the kernel (nb_hitl._render: markdown with raw HTML disabled);
// `cls` the row's classes (`nb-hitl-row`, a hub speaker's colour); `id` the message id (a key,
// never parsed as HTML).
//
// Messages from the kernel (`widget.send`; `apply(state, msg)` is the pure reducer):
// - `{t: "ops", seq, ops: [...]}`: applied only when `seq == state.seq + 1` (older ones are
//   dropped, a gap asks for a snapshot); ops, in order: `{op: "insert", id, cls, html, before}`
//   (before the row `before`, at the end when it is null or unknown; a row with that id
//   moves), `{op: "replace", id, cls, html}`, `{op: "remove", id}`, `{op: "classes", id, cls}`;
// - `{t: "snapshot", state}`: the whole state (the answer to a view's `{t: "sync", seq}`).
//
// A view sends `{t: "sync", seq}` when it starts (ops sent before the view existed are not in
// the state it started from; the kernel answers only when the view is behind) and after a gap.
// After each op batch the view stores the state in its model (`model.set`, no `save_changes`),
// so a second view and a saved notebook start from it.
import { setKernelHtml } from "../shared/dom.js";

/** A segment's state before the kernel said anything. */
export const newState = () => ({ v: 1, seq: 0, rows: [] });
const copyRow = (r) => ({ id: String(r.id), cls: r.cls || "", html: r.html || "" });

/** A well-formed copy of a segment state from the wire. */
export const copyState = (s) => ({
  v: 1,
  seq: (s?.seq ?? 0) | 0,
  rows: Array.isArray(s?.rows) ? s.rows.map(copyRow) : [],
});
const at = (rows, id) => rows.findIndex((r) => r.id === id);

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

/**
 * The pure reducer (mutates `state`): "ok" (applied), "reset" (replaced by a snapshot),
 * "stale" (already included), "gap" (an op batch is missing: ask for a snapshot).
 */
export function apply(state, msg) {
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

/** One row element, shaped like an ipywidgets HTML widget's (the same stylesheet, look checks
 * and marimo styles apply); the HTML was escaped by the kernel. */
export function rowNode(r) {
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

/**
 * Draws a segment's rows into `el` and keeps them up to date with the fewest DOM changes: an
 * insert is one new element, a remove one element gone, the rest stay untouched.
 */
export class SegmentView {
  constructor(el) {
    this.el = el;
    this.state = newState();
    this.nodes = new Map();
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
}
