// A streaming row drawn from a snapshot plus deltas (the kernel's side: nb_hitl/widgets/
// _row_deltas.py and _live_delta.py).
//
// A row's state (`newRow()`, the `snapshot` trait, the `row` of a snapshot message):
//
//     {v: 1, seq, head, blocks: [html, ...], tail, extras, done, html}
//
// `head`, `blocks`, `extras` and `html` are HTML rendered and escaped by the kernel
// (nb_hitl._render: markdown with raw HTML disabled); `tail` is the plain text streamed since
// the last finished block and is drawn as text (a DOM text node), never parsed as HTML.
// `done`: the message is final and `html` is the whole row (copy button, header, body).
//
// Messages from the kernel (`widget.send`; `apply(row, msg)` is the pure reducer):
// - `{t: "delta", seq, ops: [...]}`: applied only when `seq == row.seq + 1` (older ones are
//   dropped, a gap asks for a snapshot); ops: `{op: "append", text}` (to the tail),
//   `{op: "freeze", html, tail}` (a finished block; the tail becomes `tail`),
//   `{op: "tail", text}` (the tail replaced), `{op: "extras", html}`, `{op: "head", html}`,
//   `{op: "finish", before, keep, after}` (final: the row's `html` is `before` + its first
//   `keep` blocks + `after`; the view then stores the final state in its `snapshot`);
// - `{t: "snapshot", row}`: the whole state (the answer to a view's `{t: "sync"}`).
//
// The view sends `{t: "sync", seq}` when it starts (a second view, a reloaded page: custom
// messages are not part of the widget state) and after a gap.
import { setKernelHtml } from "../shared/dom.js";

/** The state of a row before the kernel said anything. */
export const newRow = () => ({
  v: 1,
  seq: 0,
  head: "",
  blocks: [],
  tail: "",
  extras: "",
  done: false,
  html: "",
});

/** A well-formed copy of a row from the wire. */
export const copyRow = (r) => ({
  v: 1,
  seq: (r?.seq ?? 0) | 0,
  head: r?.head || "",
  blocks: Array.isArray(r?.blocks) ? r.blocks.slice() : [],
  tail: r?.tail || "",
  extras: r?.extras || "",
  done: !!r?.done,
  html: r?.html || "",
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

/**
 * The pure reducer (mutates `row`): "ok" (applied), "reset" (replaced by a snapshot), "stale"
 * (already included), "gap" (a delta is missing: ask for a snapshot).
 */
export function apply(row, msg) {
  if (!msg || typeof msg !== "object") return "stale";
  if (msg.t === "snapshot") {
    const seq = msg.row ? msg.row.seq | 0 : -1;
    if (seq < row.seq || (seq === row.seq && row.done)) return "stale";
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

const part = (cls) => {
  const d = document.createElement("div");
  d.className = cls;
  return d;
};
const block = (html) => setKernelHtml(part("nb-hitl-block"), html);

/**
 * Draws one row into `el` and keeps it up to date with the fewest DOM changes: appended text
 * grows a text node, a finished block is one new element.
 */
export class RowView {
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
    if (verdict === "reset" || (verdict === "ok" && !this.parts)) {
      this.draw();
      return verdict;
    }
    if (verdict !== "ok") return verdict;
    if (this.row.done) {
      this.draw(); // the final row, whole
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
}

/**
 * Keeps `el`'s classes equal to a list the kernel sets (ipywidgets does the same for
 * `_dom_classes`; other hosts such as marimo do not), leaving classes others add alone.
 * Returns the set now applied (pass it back next time).
 */
export function syncClasses(el, classes, applied) {
  const next = new Set(classes || []);
  for (const c of applied) if (!next.has(c)) el.classList.remove(c);
  for (const c of next) el.classList.add(c);
  return next;
}
