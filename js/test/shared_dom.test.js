import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeHtml, h, replaceChildren, svg } from "../src/shared/dom.js";
import { HOSTILE, page } from "./helpers.js";

test("h puts strings in as text, never as markup", () => {
  const window = page();
  const el = h(
    "div",
    { class: ["a", null, "b"], title: HOSTILE, "aria-label": "x" },
    HOSTILE,
    h("b", {}, "bold"),
  );
  document.body.append(el);
  assert.equal(el.className, "a b");
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("script"), null);
  assert.equal(el.firstChild.textContent, HOSTILE);
  assert.equal(el.getAttribute("title"), HOSTILE);
  assert.equal(window.pwned, undefined);
});

test("h wires listeners and skips null attributes; svg makes SVG elements", () => {
  page();
  let clicks = 0;
  const button = h("button", { onclick: () => clicks++, disabled: false, hidden: null }, "Go");
  button.click();
  assert.equal(clicks, 1);
  assert.equal(button.hasAttribute("disabled"), false);
  const line = svg("line", { x1: 0, y1: 1 });
  assert.equal(line.namespaceURI, "http://www.w3.org/2000/svg");
  assert.equal(line.getAttribute("y1"), "1");
  const box = h("div", {}, "old");
  replaceChildren(box, "new", HOSTILE);
  assert.equal(box.textContent, `new${HOSTILE}`);
});

test("escapeHtml escapes the five characters", () => {
  assert.equal(
    escapeHtml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
  assert.equal(escapeHtml(null), "");
});
