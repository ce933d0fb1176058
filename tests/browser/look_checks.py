"""What a newcomer sees, checked from computed styles in the browser: every visible text node
readable (4.5:1 contrast against its composited background), nothing clipped, no word wrapped
inside itself, no horizontal scrollbar. Widgets inside open shadow roots (marimo draws each
anywidget in one) are found and composited across the shadow boundary.

``PROBLEMS`` is one JavaScript function run by ``page.evaluate(PROBLEMS, selector)``; it returns
a list of readable problem strings (empty when the widgets under ``selector`` look right).
"""

from __future__ import annotations

from typing import Any

PROBLEMS = r"""(selector) => {
  const problems = [];
  const say = (kind, el, detail) => {
    const cls = (el.getAttribute && (el.getAttribute('class') || '')) || '';
    const tag = el.tagName ? el.tagName.toLowerCase() : '#text';
    problems.push(`${kind}: ${tag}.${cls.split(/\s+/).slice(0, 3).join('.')} ${detail}`);
  };

  // -- colours: any CSS colour to [r, g, b, a] (0-255, alpha 0-1) through a canvas ------------
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const cache = new Map();
  const rgba = (css) => {
    if (!css || css === 'none' || css.startsWith('url(')) return null;
    if (cache.has(css)) return cache.get(css);
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    const out = [d[0], d[1], d[2], d[3] / 255];
    cache.set(css, out);
    return out;
  };
  const over = (top, below) => {  // top (with alpha) over an opaque colour
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a)).concat([1]);
  };
  const mix = (a, b, t) => [0, 1, 2].map((i) => a[i] * (1 - t) + b[i] * t).concat([1]);
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // The parent element, across a shadow root's boundary (marimo draws widgets in one).
  const parentOf = (e) => e.parentElement
    || (e.parentNode instanceof ShadowRoot ? e.parentNode.host : null);
  const chainOf = (el) => {
    const chain = [];
    for (let e = el; e && e.nodeType === 1; e = parentOf(e)) chain.unshift(e);
    return chain;
  };
  const bgOf = (el) => {
    const s = getComputedStyle(el);
    if (el instanceof SVGElement && !(el instanceof SVGSVGElement)) return [0, 0, 0, 0];
    return rgba(s.backgroundColor) || [0, 0, 0, 0];
  };
  // The colour of a pixel of `el`'s box: every ancestor's background composited from the page
  // down, each ancestor's opacity applied; with `ink`, that colour drawn on top.
  const pixel = (chain, k, below, ink, extra) => {
    if (k === chain.length) {
      let c = below;
      for (const layer of extra) c = over(layer, c);
      return ink ? over(ink, c) : c;
    }
    const el = chain[k];
    const inner = pixel(chain, k + 1, over(bgOf(el), below), ink, extra);
    const o = parseFloat(getComputedStyle(el).opacity);
    return o >= 1 ? inner : mix(below, inner, o);
  };
  // Filled SVG shapes painted under a point of an SVG text (a star on a heat-map cell).
  const shapesUnder = (textEl, x, y) => {
    const svg = textEl.ownerSVGElement;
    const home = textEl.getRootNode();
    const stack = (home.elementsFromPoint ? home : document).elementsFromPoint(x, y);
    const at = stack.indexOf(textEl);
    const layers = [];
    for (const e of stack.slice(at + 1)) {
      if (e === svg || !svg.contains(e)) break;
      if (!(e instanceof SVGGeometryElement)) continue;
      const s = getComputedStyle(e);
      let fill = s.fill;
      if (fill.startsWith('url(')) {  // a pattern: its first shape's fill
        const id = fill.match(/#([^"')]+)/);
        const first = id && svg.querySelector(`#${CSS.escape(id[1])} [fill]`);
        fill = first ? getComputedStyle(first).fill : 'none';
      }
      const c = rgba(fill);
      if (c) layers.unshift([c[0], c[1], c[2], c[3] * parseFloat(s.fillOpacity)]);
    }
    return layers;
  };
  const disabled = (el) => !!el.closest(':disabled, .mod-disabled, [aria-disabled="true"]');

  // Matches in the page and in every open shadow root under it.
  const deep = (scope, found) => {
    found.push(...scope.querySelectorAll(selector));
    for (const e of scope.querySelectorAll('*')) if (e.shadowRoot) deep(e.shadowRoot, found);
    return found;
  };
  const roots = deep(document, []);
  if (!roots.length) return [`nothing matches ${selector}`];
  const WORD = /[\p{L}\p{N}]{2,}/gu;
  const checked = new Set();
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || !node.data.trim() || el.closest('style, script, title, option')) continue;
      range.selectNodeContents(node);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
      if (!rects.length) continue;  // not displayed
      const s = getComputedStyle(el);
      if (s.visibility !== 'visible') continue;
      const text = node.data.trim().slice(0, 40);
      // Big enough to read: SVG text shrinks with its chart.
      if (el instanceof SVGElement) {
        const box = el.closest('text');
        const user = box && box.getBBox().height;
        const shown = rects[0].height;
        const size = user ? parseFloat(s.fontSize) * shown / user : 99;
        if (size < 10) say('text too small', el, `"${text}" drawn at ${size.toFixed(1)} px`);
      }
      // Contrast.
      if (!disabled(el)) {
        const svgText = el instanceof SVGElement;
        const ink = rgba(svgText ? s.fill : s.color);
        if (ink && ink[3] > 0) {
          const chain = chainOf(el);
          const r = rects[0];
          const extra = svgText ? shapesUnder(el.closest('text') || el, r.x + r.width / 2,
                                              r.y + r.height / 2) : [];
          const white = [255, 255, 255, 1];
          const fg = pixel(chain, 0, white, ink, extra);
          const bg = pixel(chain, 0, white, null, extra);
          const cr = ratio(fg, bg);
          if (cr < 4.5) {
            const show = (c) => `rgb(${c.slice(0, 3).map(Math.round).join(',')})`;
            say('low contrast', el, `"${text}" ${cr.toFixed(2)}:1 (${show(fg)} on ${show(bg)})`);
          }
        }
      }
      // Words wrapped inside themselves ("woul d"), unless the word is wider than its box.
      if (rects.length > 1) {
        for (const m of node.data.matchAll(WORD)) {
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const parts = [...range.getClientRects()].filter((r) => r.width > 0);
          const lines = new Set(parts.map((r) => Math.round(r.top)));
          if (lines.size < 2) continue;
          const wide = parts.reduce((sum, r) => sum + r.width, 0);
          let block = el;
          while (block.parentElement && getComputedStyle(block).display.startsWith('inline')) {
            block = block.parentElement;
          }
          // The whole token (e.g. "search_logs") is wider than its box: it has to break.
          const start = node.data.lastIndexOf(' ', m.index) + 1;
          const end = node.data.indexOf(' ', m.index);
          range.setStart(node, start);
          range.setEnd(node, end < 0 ? node.data.length : end);
          const token = [...range.getClientRects()].reduce((sum, r) => sum + r.width, 0);
          if (Math.max(wide, token) > block.clientWidth - 2) continue;
          say('word wrapped inside', el, `"${m[0]}" over ${lines.size} lines in "${text}"`);
        }
      }
    }
    // Chart lines and marks: 3:1 against the page (WCAG 1.4.11, graphical objects).
    for (const el of root.querySelectorAll('svg line, svg polyline, svg circle, svg path')) {
      if (el.closest('pattern, defs') || !el.getClientRects().length) continue;
      const s = getComputedStyle(el);
      const white = [255, 255, 255, 1];
      const chain = chainOf(el.ownerSVGElement);
      const bg = pixel(chain, 0, white, null, []);
      const open = ['line', 'polyline'].includes(el.tagName);  // no fill painted
      for (const css of open ? [s.stroke] : [s.stroke, s.fill]) {
        const ink = rgba(css);
        if (!ink || ink[3] === 0) continue;
        const cr = ratio(over(ink, bg), bg);
        // A mark drawn in the page's own colour (a halo behind a label) is no mark.
        if (cr < 3 && cr > 1.05) say('faint graphic', el, `${cr.toFixed(2)}:1 (${css})`);
      }
    }
    // Form controls: their value's and placeholder's contrast.
    for (const el of root.querySelectorAll('input, textarea, select')) {
      if (!el.offsetParent || disabled(el) || ['checkbox', 'range'].includes(el.type)) continue;
      const chain = chainOf(el);
      const white = [255, 255, 255, 1];
      const bg = pixel(chain, 0, white, null, []);
      const inks = [['value', getComputedStyle(el).color]];
      if (el.placeholder && !el.value) {
        inks.push(['placeholder', getComputedStyle(el, '::placeholder').color]);
      }
      for (const [what, css] of inks) {
        const ink = rgba(css);
        if (!ink) continue;
        const cr = ratio(pixel(chain, 0, white, ink, []), bg);
        if (cr < 4.5) say('low contrast', el, `${what} ${cr.toFixed(2)}:1`);
      }
    }
    // Clipped: an element that hides or scrolls its overflow and has more than it shows.
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (checked.has(el) || el instanceof SVGElement) continue;
      checked.add(el);
      if (!el.getClientRects().length || el.clientWidth === 0) continue;
      const s = getComputedStyle(el);
      const label = (el.innerText || el.value || '').trim().slice(0, 40);
      if (s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
        const kind = ['auto', 'scroll'].includes(s.overflowX) ? 'horizontal scrollbar' : 'clipped';
        say(kind, el, `"${label}" (${el.scrollWidth} > ${el.clientWidth} px)`);
      }
      if (['hidden', 'clip'].includes(s.overflowY) && el.scrollHeight > el.clientHeight + 2
          && !el.closest('.noUi-target') && el.clientHeight > 0) {
        say('clipped', el, `"${label}" (height ${el.scrollHeight} > ${el.clientHeight} px)`);
      }
      if (el.tagName === 'SELECT' || (el.tagName === 'INPUT' && el.type !== 'checkbox')) {
        const text = el.tagName === 'SELECT'
          ? (el.selectedOptions[0] ? el.selectedOptions[0].text : '') : el.value;
        ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
          - (el.tagName === 'SELECT' ? 0 : 0) - (el.type === 'number' ? 16 : 0);
        const need = ctx.measureText(text).width;
        if (text && need > room + 1) {
          const sizes = `${Math.ceil(need)} > ${Math.floor(room)} px`;
          say('clipped', el, `value "${text.slice(0, 40)}" (${sizes})`);
        }
      }
    }
    // Sticking out of the notebook's output area (cut off by the notebook's own box).
    const area = root.closest('.jp-OutputArea-output') || parentOf(root);
    const edge = area.getBoundingClientRect().right;
    for (const el of root.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > edge + 1 && !el.closest('.noUi-target')) {
        say('sticks out', el, `by ${Math.ceil(r.right - edge)} px`);
        break;
      }
    }
  }
  // A horizontal scrollbar on the page or the notebook around the widgets.
  const scrollers = new Set([document.scrollingElement]);
  for (const root of roots) {
    for (let e = parentOf(root); e; e = parentOf(e)) scrollers.add(e);
  }
  for (const el of scrollers) {
    const s = getComputedStyle(el);
    const scrolls = el === document.scrollingElement || ['auto', 'scroll'].includes(s.overflowX);
    if (scrolls && el.scrollWidth > el.clientWidth + 1) {
      say('horizontal scrollbar', el, `(${el.scrollWidth} > ${el.clientWidth} px)`);
    }
  }
  return [...new Set(problems)];
}"""
"""JavaScript: ``(selector) => string[]``, the look problems of the widgets under ``selector``."""


def look_problems(page: Any, selector: str) -> list[str]:
    """The look problems (contrast, clipping, mid-word wraps, scrollbars) under ``selector``."""
    return list(page.evaluate(PROBLEMS, selector))


__all__ = ["PROBLEMS", "look_problems"]
