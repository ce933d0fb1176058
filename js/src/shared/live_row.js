// A streaming row: its state, the one reducer of its messages and the keyed `live` op, and
// the one view that draws it (the kernel's side: nb_hitl/widgets/_row_deltas.py). The chat's
// transcript (chat/transcript.js) and the hub's feed (shared/rows.js) both hold streaming rows
// as items `{id, cls, live}` of a part and draw them with `RowView` through `updateLive`.
//
// A row's state (`newRow()`, the `live` of an item, the `row` of a snapshot message):
//
//     {v: 1, seq, head, blocks: [html, ...], tail, extras, done, html}
//
// `head`, `blocks`, `extras` and `html` are HTML rendered and escaped by the kernel
// (nb_hitl._render: markdown with raw HTML disabled); `tail` is the plain text streamed since
// the last finished block and is drawn as text (a DOM text node), never parsed as HTML.
// `done`: the message is final and `html` is the whole row (copy button, header, body).
//
// Row messages (`apply(row, msg)` is the pure reducer):
// - `{t: "delta", seq, ops: [...]}`: applied only when `seq == row.seq + 1` (older ones are
//   dropped, a gap leaves the row as it is: the panel's snapshot brings it back); ops:
//   `{op: "append", text}` (to the tail), `{op: "freeze", html, tail}` (a finished block; the
//   tail becomes `tail`), `{op: "tail", text}` (the tail replaced), `{op: "extras", html}`,
//   `{op: "head", html}`, `{op: "finish", before, keep, after}` (final: the row's `html` is
//   `before` + its first `keep` blocks + `after`);
// - `{t: "snapshot", row}`: the whole state (a text that does not continue what was sent).
//
// The keyed op of a panel's batch (shared/ops.js) carries them: `{op: "live", key, id, cls?,
// msg?}`: the streaming row `id` of part `key` ("rows" when absent) takes the classes `cls`
// (Stop's interrupted style, sent alone and first) and the row message `msg`. A row whose
// message finishes becomes a finished row `{id, cls, html}`.
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

const sent = new WeakMap(); // a live item -> the row message that made it (for the view)

/** The `live` op (a pure reducer step, as `extraOps` of shared/ops.js wants it). */
export function liveOp(state, op) {
  const key = typeof op.key === "string" ? op.key : "rows";
  const rows = Array.isArray(state[key]) ? state[key] : [];
  const at = rows.findIndex((item) => item && item.id === op.id);
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

/** The streaming rows' ops, as `extraOps` for a panel's store. */
export const LIVE_OPS = { live: liveOp };

/**
 * Bring `view` (a `RowView`) from the item `was` it drew to `item` (both `{id, cls, live}`):
 * the row message that made `item` applied to the DOM when it follows what is drawn (appended
 * text grows a text node), else, when the row's state is another, the row drawn anew.
 */
export function updateLive(view, was, item) {
  const d = sent.get(item);
  if (d && d.seq === view.row.seq && item.live.seq === d.seq + 1) view.apply(d.msg);
  else if (item.live !== was?.live) {
    view.row = copyRow(item.live);
    view.draw();
  }
}
