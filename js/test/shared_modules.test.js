import assert from "node:assert/strict";
import { test } from "node:test";
import { announceModules, modulesBase } from "../src/shared/modules.js";
import { FakeModel, page } from "./helpers.js";

/** A page like JupyterLab's: its config in `<script id="jupyter-config-data">`. */
function jupyterPage(config, url = "http://127.0.0.1:8888/lab/tree/a.ipynb") {
  const window = page();
  window.happyDOM.setURL(url);
  if (config !== undefined) {
    const script = document.createElement("script");
    script.id = "jupyter-config-data";
    script.type = "application/json";
    script.textContent = typeof config === "string" ? config : JSON.stringify(config);
    document.head.append(script);
  }
  return document;
}

test("a panel that came inline tells the kernel the server's module URL", () => {
  const doc = jupyterPage({ baseUrl: "/", token: "secret", nbHitlModules: "/nb_hitl/static/" });
  const model = new FakeModel({ _esm: "export default {}" });
  assert.equal(announceModules(model, doc), true);
  assert.deepEqual(model.sent, [{ t: "modules", base: "http://127.0.0.1:8888/nb_hitl/static/" }]);
  assert.ok(!JSON.stringify(model.sent).includes("secret"), "nothing else of the config");
});

test("under a base URL (JupyterHub) the path keeps it", () => {
  const doc = jupyterPage(
    { nbHitlModules: "/user/ada/nb_hitl/static/" },
    "https://hub.example/user/ada/lab",
  );
  assert.equal(modulesBase(doc), "https://hub.example/user/ada/nb_hitl/static/");
});

test("a panel whose module came by URL, or a page without the extension, sends nothing", () => {
  const served = jupyterPage({ nbHitlModules: "/nb_hitl/static/" });
  const byUrl = new FakeModel({ _esm: "http://127.0.0.1:8888/nb_hitl/static/chat.js?v=1" });
  assert.equal(announceModules(byUrl, served), false);
  assert.deepEqual(byUrl.sent, []);
  for (const config of [undefined, { baseUrl: "/" }, "{not json", { nbHitlModules: "/x/" }]) {
    const doc = jupyterPage(config); // marimo, VS Code: no config; an old server: no key
    const model = new FakeModel({ _esm: "export default {}" });
    assert.equal(announceModules(model, doc), false, JSON.stringify(config));
    assert.deepEqual(model.sent, []);
  }
});

test("a config naming another scheme is ignored", () => {
  const doc = jupyterPage({ nbHitlModules: "javascript:alert(1)//nb_hitl/static/" });
  assert.equal(modulesBase(doc), null);
});
