import assert from "node:assert/strict";
import { test } from "node:test";
import rowsSegment from "../src/chat/rows_segment.js";
import { apply, copyState, newState, SegmentView } from "../src/chat/segment.js";
import { FakeModel, page, render } from "./helpers.js";

const ops = (seq, ...list) => ({ t: "ops", seq, ops: list });
const row = (id, html = `<p>${id}</p>`, cls = "nb-hitl-row") => ({ op: "insert", id, cls, html });
const ids = (el) => [...el.children].map((n) => n.dataset.nbHitlKey);

test("keyed ops insert, move, replace, restyle and remove rows in order", () => {
  const state = newState();
  assert.equal(apply(state, ops(1, row("a"), row("b"), row("c"))), "ok");
  assert.equal(apply(state, ops(2, { ...row("c"), before: "a" })), "ok");
  assert.deepEqual(
    state.rows.map((r) => r.id),
    ["c", "a", "b"],
  );
  apply(
    state,
    ops(3, { op: "replace", id: "a", html: "<p>A</p>" }, { op: "classes", id: "b", cls: "x" }),
  );
  assert.deepEqual(state.rows[1], { id: "a", cls: "nb-hitl-row", html: "<p>A</p>" });
  assert.equal(state.rows[2].cls, "x");
  apply(state, ops(4, { op: "remove", id: "c" }, { op: "remove", id: "?" }));
  assert.deepEqual(
    state.rows.map((r) => r.id),
    ["a", "b"],
  );
  assert.equal(apply(state, ops(4, row("z"))), "stale");
  assert.equal(apply(state, ops(6, row("z"))), "gap");
  assert.equal(apply(state, { t: "snapshot", state: { seq: 3, rows: [] } }), "stale");
  assert.equal(apply(state, { t: "snapshot", state: { seq: 9, rows: [{ id: 1 }] } }), "reset");
  assert.deepEqual(state, { v: 1, seq: 9, rows: [{ id: "1", cls: "", html: "" }] });
});

test("the view touches only the rows an op names", () => {
  page();
  const el = document.createElement("div");
  const view = new SegmentView(el);
  view.apply(ops(1, row("a"), row("b")));
  const b = el.children[1];
  view.apply(ops(2, row("c"), { op: "classes", id: "b", cls: "nb-hitl-row nb-hitl-interrupted" }));
  assert.deepEqual(ids(el), ["a", "b", "c"]);
  assert.equal(el.children[1], b, "restyled in place");
  assert.ok(b.classList.contains("nb-hitl-interrupted") && b.classList.contains("widget-html"));
  view.apply(ops(3, { ...row("c"), before: "a" }, { op: "remove", id: "b" }));
  assert.deepEqual(ids(el), ["c", "a"]);
  view.reset({ seq: 7, rows: [{ id: "q", cls: "", html: "<p>q</p>" }] });
  assert.deepEqual(ids(el), ["q"]);
});

test("ids and classes from the wire are never markup", () => {
  page();
  const el = document.createElement("div");
  const view = new SegmentView(el);
  view.apply(ops(1, row('"><img src=x onerror=alert(1)>', "<p>&lt;b&gt;x&lt;/b&gt;</p>", "a b")));
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("b"), null, "kernel-escaped HTML stays escaped");
  assert.equal(el.children[0].dataset.nbHitlKey, '"><img src=x onerror=alert(1)>');
});

test("a view asks for ops it missed and stores every new state in its model", () => {
  page();
  const model = new FakeModel({ rows: { v: 1, seq: 1, rows: [{ id: "a", cls: "", html: "a" }] } });
  const { el, cleanup } = render(rowsSegment, model);
  assert.deepEqual(model.sent, [{ t: "sync", seq: 1 }]);
  assert.ok(el.classList.contains("nb-hitl-segment"));
  model.custom(ops(2, row("b")));
  assert.deepEqual(
    model.get("rows"),
    copyState({
      seq: 2,
      rows: [
        { id: "a", html: "a" },
        { id: "b", cls: "nb-hitl-row", html: "<p>b</p>" },
      ],
    }),
  );
  model.custom(ops(4, row("d")));
  assert.deepEqual(model.sent.at(-1), { t: "sync", seq: 2 });
  model.change("rows", { v: 1, seq: 5, rows: [{ id: "z", cls: "", html: "z" }] });
  assert.deepEqual(ids(el), ["z"], "a reloaded page's trait is drawn");
  cleanup();
});
