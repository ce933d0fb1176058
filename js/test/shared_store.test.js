import assert from "node:assert/strict";
import { test } from "node:test";
import { storeFor } from "../src/shared/store.js";
import { FakeModel } from "./helpers.js";

const snapshot = (seq, state) => ({ v: 1, seq, state });

test("a store asks once for what it missed, then follows the batches", () => {
  const model = new FakeModel({ snapshot: snapshot(2, { a: 1 }) });
  const store = storeFor(model);
  assert.equal(storeFor(model), store, "one store per model, shared by its views");
  assert.deepEqual(model.sent, [{ t: "sync", seq: 2 }]);
  const seen = [];
  store.subscribe((state, changed, verdict) => seen.push([verdict, [...changed], state.a]));
  model.custom({ t: "ops", seq: 3, ops: [{ op: "set", key: "a", value: 2 }] });
  assert.deepEqual(seen, [["ok", ["a"], 2]]);
  assert.deepEqual(model.get("snapshot"), snapshot(3, { a: 2 }), "a later view starts here");
});

test("a gap asks for a snapshot once and waits for it", () => {
  const model = new FakeModel({ snapshot: snapshot(0, {}) });
  const store = storeFor(model);
  model.sent.length = 0;
  model.custom({ t: "ops", seq: 2, ops: [{ op: "set", key: "a", value: 2 }] });
  model.custom({ t: "ops", seq: 3, ops: [{ op: "set", key: "a", value: 3 }] });
  assert.deepEqual(model.sent, [{ t: "sync", seq: 0 }]);
  assert.equal(store.state.a, undefined);
  model.custom({ t: "snapshot", snapshot: snapshot(3, { a: 3 }) });
  assert.equal(store.state.a, 3);
  model.custom({ t: "ops", seq: 4, ops: [{ op: "set", key: "a", value: 4 }] });
  assert.equal(store.state.a, 4);
});

test("a newer snapshot trait from the kernel (a reloaded page) replaces the state", () => {
  const model = new FakeModel({ snapshot: snapshot(1, { a: 1 }) });
  const store = storeFor(model);
  model.change("snapshot", snapshot(5, { a: 5 }));
  assert.equal(store.state.a, 5);
  model.change("snapshot", snapshot(2, { a: 2 }));
  assert.equal(store.state.a, 5, "an older one is ignored");
});

test("a panel's view puts the model's classes on its element (hosts without ipywidgets)", async () => {
  const { page, render } = await import("./helpers.js");
  const { panelView } = await import("../src/shared/panel.js");
  page();
  const model = new FakeModel({ snapshot: snapshot(0, {}), _dom_classes: ["nb-hitl-column-side"] });
  const { el } = render({ render: panelView({ className: "x", draw() {} }) }, model);
  assert.ok(el.classList.contains("nb-hitl-column-side"));
  model.change("_dom_classes", ["nb-hitl-inspector"]);
  assert.ok(el.classList.contains("nb-hitl-inspector"));
});
