// The transcript's front end (nb_hitl/widgets/_transcript_view.py): every row of a chat drawn
// by one model, kept by key.
//
// State (a panel's, js/src/shared/ops.js): `rows`, a list of items in reading order, and
// `earlier`, the label of the "Show earlier messages" button ("" hides it). An item is one of
//
//     {id, cls, html, buttons?}   a finished row (a message, a card, a note, a switcher):
//                                 `html` rendered AND escaped by the kernel (nb_hitl._render);
//                                 `buttons`: [{label, action, args, cls, icon, title,
//                                 disabled, hidden}] drawn after it (Undo, Show all)
//     {id, cls, live}             a streaming message: `live` is a row state of shared/live_row.js
//                                 (`tail` is plain text, drawn as a text node)
//     {id, widget}                any other widget, by model id ("IPY_MODEL_..."), drawn by
//                                 the notebook's widget manager where there is one
//
// `id` is a key (a message id), never parsed as HTML; `cls` the row's classes.
//
// Besides the shared ops the kernel sends the streaming rows' keyed op `{op: "live", key:
// "rows", id, cls?, msg?}` (shared/live_row.js: one reducer and one view for every panel's
// streaming rows): the view applies a row's delta to the DOM it drew (appended text grows a
// text node), not by drawing the row anew.
import { replaceChildren, setKernelHtml } from "../shared/dom.js";
import { LIVE_OPS, RowView, syncClasses, updateLive } from "../shared/live_row.js";

/** The transcript's own ops (`extraOps` of shared/ops.js): the streaming rows'. */
export const EXTRA_OPS = LIVE_OPS;

const kind = (item) => (item.live ? "live" : item.widget ? "widget" : "html");

const ROW_CLASSES = "lm-Widget jupyter-widgets widget-inline-hbox widget-html";

function buttonNode(spec, act) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "lm-Widget jupyter-widgets jupyter-button widget-button";
  for (const c of String(spec.cls || "").split(/\s+/)) if (c) b.classList.add(c);
  if (spec.icon) {
    const i = document.createElement("i");
    i.className = `fa fa-${String(spec.icon).replace(/[^a-z0-9-]/gi, "")}`;
    i.setAttribute("aria-hidden", "true");
    b.append(i, " ");
  }
  b.append(String(spec.label ?? ""));
  if (spec.title) b.title = String(spec.title);
  b.disabled = !!spec.disabled;
  if (spec.hidden) b.style.display = "none";
  b.addEventListener("click", () => {
    if (!b.disabled && spec.action) act(String(spec.action), spec.args || {});
  });
  return b;
}

/** A finished row's element: ipywidgets' HTML widget shape (its stylesheet and look checks
 * apply), with its buttons after it when it has some. */
export function htmlNode(item, act) {
  const content = setKernelHtml(document.createElement("div"), item.html);
  content.className = "widget-html-content";
  const html = document.createElement("div");
  html.className = ROW_CLASSES;
  html.append(content);
  if (!item.buttons?.length) {
    for (const c of String(item.cls || "").split(/\s+/)) if (c) html.classList.add(c);
    html.dataset.nbHitlKey = String(item.id);
    return html;
  }
  const box = document.createElement("div");
  box.className = "nb-hitl-row-box";
  for (const c of String(item.cls || "").split(/\s+/)) if (c) box.classList.add(c);
  box.dataset.nbHitlKey = String(item.id);
  box.append(html, ...item.buttons.map((spec) => buttonNode(spec, act)));
  return box;
}

function liveNode(item) {
  const el = document.createElement("div");
  el.className = "nb-hitl-live-row";
  el.dataset.nbHitlKey = String(item.id);
  const view = new RowView(el);
  view.reset(item.live);
  const classes = syncClasses(
    el,
    String(item.cls || "")
      .split(/\s+/)
      .filter(Boolean),
    new Set(),
  );
  return { node: el, view, classes };
}

function widgetNode(item, model) {
  const el = document.createElement("div");
  el.className = "nb-hitl-widget-row";
  el.dataset.nbHitlKey = String(item.id);
  const manager = model?.widget_manager;
  const id = String(item.widget || "").replace(/^IPY_MODEL_/, "");
  if (manager && typeof manager.get_model === "function") {
    Promise.resolve(manager.get_model(id))
      .then(async (child) => {
        if (!child || typeof manager.create_view !== "function") return;
        const view = await manager.create_view(child);
        el.append(view.el);
        view.trigger?.("displayed");
      })
      .catch(() => {
        el.textContent = "(a widget this page cannot draw)";
      });
  }
  return el;
}

/**
 * Build the transcript into `root`; returns `draw(state, changed)`. `act(name, args)` sends
 * an action; `model` is the anywidget model (for widget rows).
 */
export function transcriptView(root, act, model) {
  const earlier = buttonNode(
    { label: "Show earlier messages", action: "show_earlier", cls: "nb-hitl-earlier" },
    act,
  );
  earlier.style.display = "none";
  const box = document.createElement("div");
  box.className = "nb-hitl-transcript";
  box.setAttribute("role", "log");
  box.setAttribute("aria-label", "Transcript");
  const list = document.createElement("div");
  list.className = "nb-hitl-rows";
  box.append(list);
  root.append(earlier, box);
  const drawn = new Map(); // id -> {item, node, view?, classes?}

  const make = (item) => {
    const k = kind(item);
    if (k === "live") return { item, ...liveNode(item) };
    if (k === "widget") return { item, node: widgetNode(item, model) };
    return { item, node: htmlNode(item, act) };
  };
  const update = (entry, item) => {
    if (entry.item === item) return entry;
    const was = entry.item;
    if (kind(was) !== kind(item) || (kind(item) === "widget" && was.widget !== item.widget)) {
      const next = make(item);
      entry.node.replaceWith(next.node);
      return next;
    }
    if (kind(item) === "live") {
      updateLive(entry.view, was, item);
      if (item.cls !== was.cls) {
        const cls = String(item.cls || "")
          .split(/\s+/)
          .filter(Boolean);
        entry.classes = syncClasses(entry.node, cls, entry.classes);
      }
      entry.item = item;
      return entry;
    }
    if (kind(item) === "html" && !item.buttons?.length && !was.buttons?.length) {
      if (item.html !== was.html) setKernelHtml(entry.node.firstChild, item.html);
      if (item.cls !== was.cls) {
        entry.node.className = ROW_CLASSES;
        for (const c of String(item.cls || "").split(/\s+/)) if (c) entry.node.classList.add(c);
      }
      entry.item = item;
      return entry;
    }
    const next = make(item);
    entry.node.replaceWith(next.node);
    return next;
  };

  const drawRows = (rows) => {
    const seen = new Set();
    let prev = null;
    for (const item of Array.isArray(rows) ? rows : []) {
      if (!item || item.id == null) continue;
      const id = String(item.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const old = drawn.get(id);
      const entry = old ? update(old, item) : make(item);
      drawn.set(id, entry);
      const want = prev ? prev.nextSibling : list.firstChild;
      if (want !== entry.node) list.insertBefore(entry.node, want);
      prev = entry.node;
    }
    for (const [id, entry] of drawn) {
      if (!seen.has(id)) {
        entry.node.remove();
        drawn.delete(id);
      }
    }
  };

  return (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("earlier")) {
      earlier.style.display = s.earlier ? "" : "none";
      replaceChildren(earlier, String(s.earlier || ""));
    }
    if (all.has("rows")) drawRows(s.rows);
  };
}
