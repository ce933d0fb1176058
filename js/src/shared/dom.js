// Building DOM without HTML strings: every model, tool or user string goes in as text.

/** `s` with `& < > " '` escaped, for the rare place that must build HTML text. */
export function escapeHtml(s) {
  return String(s ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (name === "class")
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (name === "text") el.textContent = String(value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on") && typeof value === "function")
      el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child == null || child === false) continue;
    el.append(child instanceof el.ownerDocument.defaultView.Node ? child : String(child));
  }
  return el;
}

/**
 * An element: `h("button", {class: "x", onclick: fn, "aria-label": "Undo"}, "Undo")`.
 * Strings among the children become text nodes (never parsed as HTML); `text` sets
 * `textContent`; `on<event>` functions become listeners; null/false attributes are left out.
 */
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element (same arguments as `h`). */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replace `el`'s children with `children` (strings as text). */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

/** Put HTML the kernel rendered and escaped (`nb_hitl._render`) into `el`: the only innerHTML. */
export function setKernelHtml(el, html) {
  el.innerHTML = String(html ?? "");
  return el;
}

/** A number as people read it: `12,345`. */
export function formatCount(n) {
  return Number(n || 0).toLocaleString("en-US");
}
