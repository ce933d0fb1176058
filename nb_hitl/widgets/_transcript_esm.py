"""The transcript's front end: a streaming row drawn from a snapshot plus deltas (JavaScript).

``ROW_CORE_JS`` is plain JavaScript (no imports, no exports, no build step) that defines one
global-free object, ``NbHitlRows``; ``ROW_ESM`` is the ES module of the ``LiveMessage``
anywidget: the core followed by its ``render``. Another anywidget (the marimo panel) embeds the
same core by putting ``ROW_CORE_JS`` at the top of its own module source.

A row's state (``NbHitlRows.newRow()``, the ``snapshot`` trait, the ``row`` of a snapshot
message)::

    {v: 1, seq, head, blocks: [html, ...], tail, extras, done, html}

``head``, ``blocks``, ``extras`` and ``html`` are HTML rendered and escaped by the kernel
(``nb_hitl._render``: markdown with raw HTML disabled); ``tail`` is the plain text streamed
since the last finished block and is drawn as text (a DOM text node), never parsed as HTML.
``done``: the message is final and ``html`` is the whole row (copy button, header, body).

Messages from the kernel (``widget.send``; ``NbHitlRows.apply(row, msg)`` is the pure reducer):

- ``{t: "delta", seq, ops: [...]}``: applied only when ``seq == row.seq + 1`` (older ones are
  dropped, a gap asks for a snapshot); ops: ``{op: "append", text}`` (to the tail),
  ``{op: "freeze", html, tail}`` (a finished block; the tail becomes ``tail``),
  ``{op: "tail", text}`` (the tail replaced), ``{op: "extras", html}``, ``{op: "head", html}``;
  ``{op: "finish", before, keep, after}`` (final: the row's ``html`` is ``before`` + its first
  ``keep`` blocks + ``after``; the view then stores the final state in its ``snapshot``);
- ``{t: "snapshot", row}``: the whole state (the answer to a view's ``{t: "sync"}``).

The view sends ``{t: "sync", seq}`` when it starts (a second view, a reloaded page: custom
messages are not part of the widget state) and after a gap.
"""

from __future__ import annotations

ROW_CORE_JS = r"""
const NbHitlRows = (() => {
  const newRow = () => ({ v: 1, seq: 0, head: "", blocks: [], tail: "", extras: "",
                          done: false, html: "" });
  const copyRow = (r) => ({ v: 1, seq: r.seq | 0, head: r.head || "",
    blocks: Array.isArray(r.blocks) ? r.blocks.slice() : [], tail: r.tail || "",
    extras: r.extras || "", done: !!r.done, html: r.html || "" });

  // The pure reducer: "ok" (applied), "reset" (replaced by a snapshot), "stale" (already
  // included), "gap" (a delta is missing: ask for a snapshot).
  function apply(row, msg) {
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
    for (const op of msg.ops || []) {
      if (op.op === "append") row.tail += op.text;
      else if (op.op === "freeze") { row.blocks.push(op.html); row.tail = op.tail || ""; }
      else if (op.op === "tail") row.tail = op.text;
      else if (op.op === "extras") row.extras = op.html;
      else if (op.op === "head") row.head = op.html;
      else if (op.op === "finish") {
        row.html = (op.before || "") + row.blocks.slice(0, op.keep | 0).join("") + (op.after || "");
        Object.assign(row, { done: true, blocks: [], tail: "", extras: "" });
      }
    }
    row.seq = msg.seq;
    return "ok";
  }

  const part = (cls) => { const d = document.createElement("div"); d.className = cls; return d; };
  function block(html) {
    const b = part("nb-hitl-block");
    b.innerHTML = html;  // rendered and escaped by the kernel
    return b;
  }

  // Draws one row into `el` and keeps it up to date with the fewest DOM changes: appended text
  // grows a text node, a finished block is one new element.
  class RowView {
    constructor(el) { this.el = el; this.row = newRow(); this.draw(); }
    draw() {
      const el = this.el, row = this.row;
      el.textContent = "";
      this.parts = null;
      if (row.done) { el.innerHTML = row.html; return; }
      const head = part("nb-hitl-live-head"), blocks = part("nb-hitl-live-blocks");
      const tail = part("nb-hitl-tail"), extras = part("nb-hitl-live-extras");
      head.innerHTML = row.head;
      for (const h of row.blocks) blocks.appendChild(block(h));
      const text = document.createTextNode(row.tail);
      tail.appendChild(text);
      extras.innerHTML = row.extras;
      el.append(head, blocks, tail, extras);
      this.parts = { head, blocks, tail, text, extras };
    }
    // Apply a kernel message; returns the reducer's verdict.
    apply(msg) {
      const verdict = apply(this.row, msg);
      if (verdict === "reset" || (verdict === "ok" && !this.parts)) { this.draw(); return verdict; }
      if (verdict !== "ok") return verdict;
      if (this.row.done) { this.draw(); return verdict; }  // the final row, whole
      const p = this.parts;
      for (const op of msg.ops || []) {
        if (op.op === "append") p.text.appendData(op.text);
        else if (op.op === "freeze") {
          p.blocks.appendChild(block(op.html));
          p.text.data = op.tail || "";
        }
        else if (op.op === "tail") p.text.data = op.text;
        else if (op.op === "extras") p.extras.innerHTML = op.html;
        else if (op.op === "head") p.head.innerHTML = op.html;
      }
      return verdict;
    }
    // A snapshot (a trait, a sync answer) replaces the state unless it is older.
    reset(snapshot) { return this.apply({ t: "snapshot", row: snapshot }); }
  }

  // Keeps `el`'s classes equal to a list the kernel sets (ipywidgets does the same for
  // `_dom_classes`; other hosts such as marimo do not), leaving classes others add alone.
  function syncClasses(el, classes, applied) {
    const next = new Set(classes || []);
    for (const c of applied) if (!next.has(c)) el.classList.remove(c);
    for (const c of next) el.classList.add(c);
    return next;
  }

  return { newRow, copyRow, apply, RowView, syncClasses };
})();
"""

ROW_ESM = (
    ROW_CORE_JS
    + r"""
function render({ model, el }) {
  el.classList.add("nb-hitl-live-row");
  const view = new NbHitlRows.RowView(el);
  view.reset(model.get("snapshot"));
  let classes = NbHitlRows.syncClasses(el, model.get("_dom_classes"), new Set());
  const sync = () => model.send({ t: "sync", seq: view.row.seq });
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sync();
    // The final row is the widget's state from now on (a saved notebook, a second view):
    // the kernel holds the same value without sending it again.
    else if (verdict === "ok" && view.row.done) model.set("snapshot", NbHitlRows.copyRow(view.row));
  };
  const onSnapshot = () => view.reset(model.get("snapshot"));
  const onClasses = () => {
    classes = NbHitlRows.syncClasses(el, model.get("_dom_classes"), classes);
  };
  model.on("msg:custom", onMsg);
  model.on("change:snapshot", onSnapshot);
  model.on("change:_dom_classes", onClasses);
  // Deltas sent before this view existed are not in the trait: ask for the current state.
  if (!view.row.done) sync();
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:snapshot", onSnapshot);
    model.off("change:_dom_classes", onClasses);
  };
}
export { NbHitlRows };
export default { render };
"""
)

ROW_CSS = """
.nb-hitl-tail { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; }
.nb-hitl-tail:empty { display: none; }
"""


__all__ = ["ROW_CORE_JS", "ROW_CSS", "ROW_ESM"]
