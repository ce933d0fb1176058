// A transcript's rows as one part of a panel's state, drawn by key (the kernel's side:
// nb_hitl/widgets/hub/_feed.py, `HubTranscript`).
//
// Part `rows` is a list of `{id, cls, html}` (a finished message: the chat's row HTML, a card,
// a note; kernel-rendered and escaped) or `{id, cls, live}` (a streaming message, changed by
// the keyed `live` op and drawn by `RowView`: shared/live_row.js, the chat's own code path).
import { setKernelHtml } from "./dom.js";
import { RowView, updateLive } from "./live_row.js";

function update(d, item) {
  const was = d.item;
  if (d.el.className !== item.cls) d.el.className = item.cls || "";
  d.el.dataset.key = item.id;
  if (item.live) {
    if (d.view && was?.live) updateLive(d.view, was, item);
    else {
      d.view = new RowView(d.el);
      d.view.reset(item.live);
    }
  } else if (!was || d.view || item.html !== was.html) {
    setKernelHtml(d.el, item.html);
    d.view = null;
  }
  d.item = item;
}

/**
 * The keyed drawing of part `rows` into `inner`: returns `draw(rows)`, which adds, moves,
 * redraws and removes only the rows that changed (an unchanged row is the same object).
 */
export function rowsView(inner) {
  const drawn = new Map();
  return function draw(rows) {
    const list = Array.isArray(rows) ? rows : [];
    const want = new Set(list.map((item) => item.id));
    for (const [id, d] of drawn) {
      if (!want.has(id)) {
        d.el.remove();
        drawn.delete(id);
      }
    }
    let prev = null;
    for (const item of list) {
      let d = drawn.get(item.id);
      if (!d) {
        d = { el: document.createElement("div"), item: null, view: null };
        drawn.set(item.id, d);
      }
      if (d.item !== item) update(d, item);
      const next = prev ? prev.nextSibling : inner.firstChild;
      if (next !== d.el) inner.insertBefore(d.el, next);
      prev = d.el;
    }
    return drawn;
  };
}
