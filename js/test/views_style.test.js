import assert from "node:assert/strict";
import { test } from "node:test";
import { KERNEL_CSS_ID, kernelStyle } from "../src/views/style.js";
import { page } from "./helpers.js";

const CSS = ":root { --nb-hitl-fg: #111; } .nb-hitl-row { color: var(--nb-hitl-fg); }";
const frame = () => new Promise((resolve) => setTimeout(resolve, 50));
const sheets = (scope) => scope.querySelectorAll(`style#${KERNEL_CSS_ID}`);
const inPanels = () => document.querySelectorAll(`.panel style`);

/** A panel's root in the page (`el` appended to `parent`, default the body). */
function panelRoot(parent = document.body) {
  const el = document.createElement("div");
  el.className = "panel";
  const root = document.createElement("div");
  el.append(root);
  parent.append(el);
  return { el, root };
}

test("every panel shares one kernel stylesheet, at the end of the page's body", () => {
  page();
  const first = panelRoot();
  kernelStyle(first.root)(CSS);
  const second = panelRoot();
  const style = kernelStyle(second.root);
  style(CSS);
  style(CSS); // drawn again: nothing changes
  assert.equal(sheets(document).length, 1);
  assert.equal(sheets(document)[0].textContent, CSS);
  assert.equal(sheets(document)[0].parentNode, document.body);
  assert.equal(inPanels().length, 0, "none inside the panels");
});

test("removing a panel leaves the shared stylesheet in place", () => {
  page();
  const first = panelRoot();
  kernelStyle(first.root)(CSS);
  const sheet = sheets(document)[0];
  first.el.remove(); // the cell re-run: its old output cleared
  const second = panelRoot();
  kernelStyle(second.root)(CSS);
  assert.equal(sheets(document)[0], sheet, "the same element: the page's rules unchanged");
});

test("the kernel's rules come after a bundle stylesheet added to the head later", () => {
  page();
  kernelStyle(panelRoot().root)(CSS);
  const bundle = document.createElement("style"); // anywidget's, for a kind shown later
  bundle.textContent = ".nb-hitl-row { color: blue; }";
  document.head.append(bundle);
  const kernel = sheets(document)[0];
  const order = [...document.querySelectorAll("style")];
  assert.deepEqual(order, [bundle, kernel]);
});

test("a hosted panel's empty stylesheet adds nothing; a newer one replaces the text", () => {
  page();
  kernelStyle(panelRoot().root)("");
  assert.equal(sheets(document).length, 0);
  kernelStyle(panelRoot().root)(CSS);
  kernelStyle(panelRoot().root)(".nb-hitl-row { color: red; }"); // a restarted, newer kernel
  assert.equal(sheets(document).length, 1);
  assert.equal(sheets(document)[0].textContent, ".nb-hitl-row { color: red; }");
});

test("a panel in a shadow root (marimo) gets the stylesheet there", () => {
  const window = page();
  const host = document.createElement("marimo-anywidget");
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  assert.ok(shadow instanceof window.ShadowRoot);
  const { root } = panelRoot(shadow);
  kernelStyle(root)(CSS);
  assert.equal(sheets(shadow).length, 1);
  assert.equal(sheets(document).length, 0);
});

test("drawn before it is attached: the document at once, its shadow root once in one", async () => {
  page();
  const el = document.createElement("div");
  const root = document.createElement("div");
  el.append(root);
  kernelStyle(root)(CSS); // JupyterLab renders a view, then attaches it
  assert.equal(sheets(document).length, 1);
  const host = document.createElement("marimo-anywidget");
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  shadow.append(el);
  await frame();
  assert.equal(sheets(shadow).length, 1);
});
