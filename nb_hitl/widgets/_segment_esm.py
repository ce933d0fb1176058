"""The front end of a rows segment: finished message rows kept by key (JavaScript).

A ``RowsSegment`` (``_segment.py``) draws a run of consecutive finished message rows in one
widget instead of one ``ipywidgets.HTML`` per row. ``SEGMENT_CORE_JS`` defines one global-free
object, ``NbHitlSegment`` (no imports, no exports, no build step); ``SEGMENT_ESM`` is the
widget's ES module (the core followed by its ``render``).

State (the ``rows`` trait, the ``state`` of a snapshot message)::

    {v: 1, seq, rows: [{id, cls, html}, ...]}

``html`` is a whole row (Copy button, header, body, Edit / Regenerate buttons) rendered AND
escaped by the kernel (``nb_hitl._render``: markdown with raw HTML disabled), the same HTML an
``ipywidgets.HTML`` row held; ``cls`` the row's classes (``nb-hitl-row``, a hub speaker's
colour); ``id`` the message id (a key, never parsed as HTML).

Messages from the kernel (``widget.send``; ``NbHitlSegment.apply(state, msg)`` is the pure
reducer):

- ``{t: "ops", seq, ops: [...]}``: applied only when ``seq == state.seq + 1`` (older ones are
  dropped, a gap asks for a snapshot); ops, in order: ``{op: "insert", id, cls, html, before}``
  (before the row ``before``, at the end when it is null or unknown; a row with that id moves),
  ``{op: "replace", id, cls, html}``, ``{op: "remove", id}``, ``{op: "classes", id, cls}``;
- ``{t: "snapshot", state}``: the whole state (the answer to a view's ``{t: "sync", seq}``).

A view sends ``{t: "sync", seq}`` when it starts (ops sent before the view existed are not in
the state it started from; the kernel answers only when the view is behind) and after a gap.
After each op batch the view stores the state in its model (``model.set``, no
``save_changes``), so a second view and a saved notebook start from it; the kernel keeps the
same value without sending it (a reloaded page's ``request_state`` gets it).
"""

from __future__ import annotations

SEGMENT_CORE_JS = r"""
const NbHitlSegment = (() => {
  const newState = () => ({ v: 1, seq: 0, rows: [] });
  const copyRow = (r) => ({ id: String(r.id), cls: r.cls || "", html: r.html || "" });
  const copyState = (s) => ({ v: 1, seq: (s && s.seq) | 0,
    rows: s && Array.isArray(s.rows) ? s.rows.map(copyRow) : [] });
  const at = (rows, id) => rows.findIndex((r) => r.id === id);

  function applyOp(rows, op) {
    const i = at(rows, op.id);
    if (op.op === "insert") {
      if (i >= 0) rows.splice(i, 1);
      const b = op.before == null ? -1 : at(rows, op.before);
      rows.splice(b < 0 ? rows.length : b, 0, copyRow(op));
    } else if (op.op === "replace") {
      if (i < 0) rows.push(copyRow(op));
      else rows[i] = { id: rows[i].id, cls: op.cls == null ? rows[i].cls : op.cls,
                       html: op.html || "" };
    } else if (op.op === "remove") {
      if (i >= 0) rows.splice(i, 1);
    } else if (op.op === "classes") {
      if (i >= 0) rows[i].cls = op.cls || "";
    }
  }

  // The pure reducer: "ok" (applied), "reset" (replaced by a snapshot), "stale" (already
  // included), "gap" (an op batch is missing: ask for a snapshot).
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

  // One row element, shaped like an ipywidgets HTML widget's (so the same stylesheet, look
  // checks and marimo styles apply); the HTML was escaped by the kernel.
  function rowNode(r) {
    const node = document.createElement("div");
    node.className = "lm-Widget jupyter-widgets widget-inline-hbox widget-html";
    for (const c of r.cls.split(/\s+/)) if (c) node.classList.add(c);
    node.dataset.nbHitlKey = r.id;
    const content = document.createElement("div");
    content.className = "widget-html-content";
    content.innerHTML = r.html;
    node.appendChild(content);
    return node;
  }

  // Draws a segment's rows into `el` and keeps them up to date with the fewest DOM changes:
  // an insert is one new element, a remove one element gone, the rest stay untouched.
  class SegmentView {
    constructor(el) { this.el = el; this.state = newState(); this.nodes = new Map(); this.draw(); }
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
      for (const op of msg.ops || []) {
        const old = this.nodes.get(op.id);
        if (op.op === "remove") {
          if (old) { old.remove(); this.nodes.delete(op.id); }
          continue;
        }
        const row = this.state.rows[at(this.state.rows, op.id)];
        if (!row) continue;
        if (op.op === "classes" && old) {
          const fresh = rowNode(row);
          old.className = fresh.className;
          continue;
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
      return verdict;
    }
    // A snapshot (the trait, a sync answer) replaces the state unless it is older.
    reset(snapshot) { return this.apply({ t: "snapshot", state: snapshot }); }
  }

  return { newState, copyState, apply, SegmentView };
})();
"""

SEGMENT_ESM = (
    SEGMENT_CORE_JS
    + r"""
function render({ model, el }) {
  el.classList.add("nb-hitl-segment", "widget-container", "widget-box", "widget-vbox");
  const view = new NbHitlSegment.SegmentView(el);
  view.reset(model.get("rows"));
  const sync = () => model.send({ t: "sync", seq: view.state.seq });
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sync();
    // The current rows are the widget's state (a second view, a saved notebook); the kernel
    // holds the same value without sending it.
    else if (verdict === "ok" || verdict === "reset") {
      model.set("rows", NbHitlSegment.copyState(view.state));
    }
  };
  const onRows = () => view.reset(model.get("rows"));
  model.on("msg:custom", onMsg);
  model.on("change:rows", onRows);
  sync();  // ops sent before this view existed are not in the state: ask (answered if behind)
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:rows", onRows);
  };
}
export { NbHitlSegment };
export default { render };
"""
)

SEGMENT_CSS = """
.nb-hitl-segment { display: flex; flex-direction: column; min-width: 0; }
.nb-hitl-segment > .widget-html { flex-shrink: 0; }
"""


__all__ = ["SEGMENT_CORE_JS", "SEGMENT_CSS", "SEGMENT_ESM"]
