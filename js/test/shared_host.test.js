import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { followPageTheme, pageIsDark } from "../src/shared/host.js";
import { ICONS, icon, iconCss, iconSvg } from "../src/shared/icons.js";
import { panelView } from "../src/shared/panel.js";
import { FakeModel, page } from "./helpers.js";

const snapshot = { v: 1, seq: 0, state: { text: "hi" } };
const view = panelView({
  className: "nbh-panel",
  draw(ctx, state) {
    ctx.root.textContent = state.text;
  },
});

/** A view drawn inside a shadow root, as marimo's `mo.ui.anywidget` draws it. */
function inShadow(window) {
  globalThis.ShadowRoot = window.ShadowRoot;
  const host = document.createElement("marimo-anywidget");
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  const el = document.createElement("div");
  shadow.append(el);
  const cleanup = view({ model: new FakeModel({ snapshot }), el });
  return { el, root: el.querySelector(".nbh-panel"), cleanup };
}

test("a panel in a shadow root carries the page's theme and follows it", async () => {
  const window = page();
  const { root, cleanup } = inShadow(window);
  assert.equal(root.dataset.nbhTheme, "light");
  document.documentElement.classList.add("dark"); // marimo switched to dark
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(root.dataset.nbhTheme, "dark");
  document.documentElement.classList.remove("dark");
  document.body.classList.add("dark");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(root.dataset.nbhTheme, "dark");
  cleanup();
  document.body.classList.remove("dark");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(root.dataset.nbhTheme, "dark", "no longer followed once the view is gone");
});

test("a panel in the page's own DOM leaves the theme to the page's rules", () => {
  page();
  const el = document.createElement("div");
  document.body.append(el);
  view({ model: new FakeModel({ snapshot }), el });
  assert.equal(el.querySelector(".nbh-panel").dataset.nbhTheme, undefined);
});

test("a view not yet attached looks again on the next frame", async () => {
  const window = page();
  globalThis.ShadowRoot = window.ShadowRoot;
  const el = document.createElement("div");
  const root = document.createElement("div");
  followPageTheme(el, root);
  assert.equal(root.dataset.nbhTheme, undefined);
  const host = document.createElement("div");
  document.body.append(host);
  host.attachShadow({ mode: "open" }).append(el);
  await new Promise((resolve) => window.requestAnimationFrame(resolve));
  await new Promise((resolve) => window.requestAnimationFrame(resolve));
  assert.equal(root.dataset.nbhTheme, "light");
});

test("JupyterLab's and VS Code's dark marks count as dark", () => {
  page();
  assert.equal(pageIsDark(document), false);
  document.body.dataset.jpThemeLight = "false";
  assert.equal(pageIsDark(document), true);
  delete document.body.dataset.jpThemeLight;
  document.body.classList.add("vscode-dark");
  assert.equal(pageIsDark(document), true);
});

// Inside a panel, and under a panel's root in a shadow root (marimo: no Font Awesome there).
const SCOPE = ":is(.nbh-panel, [data-nbh-theme])";

test("icons.css is what icons.js makes, with a rule for every icon", () => {
  const css = readFileSync(new URL("../src/shared/icons.css", import.meta.url), "utf8");
  assert.equal(css, iconCss(), "run `npm run icons`");
  for (const name of Object.keys(ICONS)) {
    assert.ok(css.includes(`${SCOPE} i.fa.fa-${name} {`), name);
    assert.ok(iconSvg(name).startsWith("<svg xmlns='http://www.w3.org/2000/svg'"), name);
  }
  assert.ok(css.includes(`${SCOPE} i.fa::before {\n  content: none;`), "no Font Awesome glyph");
  assert.equal(iconSvg("no-such-icon"), undefined);
  assert.equal(iconSvg("constructor"), undefined, "only the map's own names");
});

test("icon() makes a hidden-from-readers mark with a cleaned name", () => {
  page();
  const i = icon('check" onclick="x');
  assert.equal(i.className, "fa fa-checkonclickx");
  assert.equal(i.getAttribute("aria-hidden"), "true");
  assert.equal(i.attributes.length, 2);
  assert.equal(icon("paper-plane").className, "fa fa-paper-plane");
});
