// A transcript's rows as one part of a panel's state, drawn by key (the kernel's side:
// nb_hitl/widgets/hub/_feed.py, `HubTranscript`).
//
// Part `rows` is a list of `{id, cls, html}` (a finished message: the chat's row HTML, a card,
// a note; kernel-rendered and escaped) or `{id, cls, live}` (a streaming message: the chat's
// streaming-row state, chat/rows.js). Besides the shared ops (`insert`, `replace`, `remove`:
// shared/ops.js) two keyed ops change one row: `{op: "live", key, id, delta}` (the streaming
// row's delta, reduced by chat/rows.js's `apply`) and `{op: "classes", key, id, cls}` (Stop's
// interrupted style, sent first).
import { apply as applyRow, copyRow } from "../chat/rows.js";
import { setKernelHtml } from "./dom.js";

function mapRow(state, op, fn) {
  const list = Array.isArray(state[op.key]) ? state[op.key] : [];
  const at = list.findIndex((item) => item && item.id === op.id);
  if (at < 0) return state;
  const items = list.slice();
  items[at] = fn(list[at]);
  return { ...state, [op.key]: items };
}

/** The row ops, as `extraOps` for the store (shared/store.js). */
export const rowOps = {
  live: (state, op) =>
    mapRow(state, op, (item) => {
      const row = copyRow(item.live);
      applyRow(row, op.delta);
      return { ...item, live: row };
    }),
  classes: (state, op) => mapRow(state, op, (item) => ({ ...item, cls: String(op.cls || "") })),
};

const part = (cls) => {
  const d = document.createElement("div");
  d.className = cls;
  return d;
};

function drawLive(d, live) {
  d.el.textContent = "";
  const head = setKernelHtml(part("nb-hitl-live-head"), live.head);
  const blocks = part("nb-hitl-live-blocks");
  for (const html of live.blocks) blocks.append(setKernelHtml(part("nb-hitl-block"), html));
  const tail = part("nb-hitl-tail");
  const text = document.createTextNode(live.tail);
  tail.append(text);
  const extras = setKernelHtml(part("nb-hitl-live-extras"), live.extras);
  d.el.append(head, blocks, tail, extras);
  d.parts = { head, blocks, text, extras };
}

/** Bring a streaming row's DOM from `was` to `live` with the fewest changes. */
function updateLive(d, was, live) {
  const p = d.parts;
  if (!p || !was || live.blocks.length < was.blocks.length) return drawLive(d, live);
  if (live.head !== was.head) setKernelHtml(p.head, live.head);
  for (const html of live.blocks.slice(was.blocks.length))
    p.blocks.append(setKernelHtml(part("nb-hitl-block"), html));
  if (live.tail.startsWith(p.text.data)) p.text.appendData(live.tail.slice(p.text.data.length));
  else p.text.data = live.tail;
  if (live.extras !== was.extras) setKernelHtml(p.extras, live.extras);
}

function update(d, item) {
  const was = d.item;
  if (d.el.className !== item.cls) d.el.className = item.cls || "";
  d.el.dataset.key = item.id;
  const live = item.live && !item.live.done ? item.live : null;
  if (live) {
    if (was?.live && !was.live.done && d.parts) updateLive(d, was.live, live);
    else drawLive(d, live);
  } else {
    const html = item.live ? item.live.html : item.html;
    if (!was || d.parts || html !== (was.live ? was.live.html : was.html)) {
      setKernelHtml(d.el, html);
      d.parts = null;
    }
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
        d = { el: document.createElement("div"), item: null, parts: null };
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
