import assert from "node:assert/strict";
import { test } from "node:test";
import { apply, copyRow, newRow, RowView, syncClasses } from "../src/chat/rows.js";
import { HOSTILE, page } from "./helpers.js";

const delta = (seq, ...ops) => ({ t: "delta", seq, ops });

test("deltas apply in order; an old one is stale and a missing one is a gap", () => {
  const row = newRow();
  assert.equal(apply(row, delta(1, { op: "append", text: "Hel" })), "ok");
  assert.equal(apply(row, delta(2, { op: "append", text: "lo" })), "ok");
  assert.equal(row.tail, "Hello");
  assert.equal(apply(row, delta(2, { op: "append", text: "!" })), "stale");
  assert.equal(apply(row, delta(4, { op: "append", text: "!" })), "gap");
  assert.equal(row.tail, "Hello");
  assert.equal(apply(row, delta(3, { op: "freeze", html: "<p>Hello</p>", tail: "x" })), "ok");
  assert.deepEqual([row.blocks, row.tail], [["<p>Hello</p>"], "x"]);
  assert.equal(apply(row, null), "stale");
  assert.equal(apply(row, { t: "other" }), "stale");
});

test("finish makes the whole row; later deltas and equal snapshots are stale", () => {
  const row = newRow();
  apply(
    row,
    delta(1, { op: "freeze", html: "<p>a</p>", tail: "" }, { op: "head", html: "<b>h</b>" }),
  );
  apply(row, delta(2, { op: "finish", before: "<div>", keep: 1, after: "</div>" }));
  assert.equal(row.done, true);
  assert.equal(row.html, "<div><p>a</p></div>");
  assert.deepEqual([row.blocks, row.tail, row.extras], [[], "", ""]);
  assert.equal(apply(row, delta(3, { op: "append", text: "late" })), "stale");
  assert.equal(apply(row, { t: "snapshot", row: { ...copyRow(row) } }), "stale");
});

test("a snapshot replaces an older state and is ignored when older", () => {
  const row = newRow();
  apply(row, delta(1, { op: "append", text: "abc" }));
  assert.equal(
    apply(row, { t: "snapshot", row: { seq: 5, tail: "later", blocks: ["<p>b</p>"] } }),
    "reset",
  );
  assert.deepEqual([row.seq, row.tail, row.blocks], [5, "later", ["<p>b</p>"]]);
  assert.equal(apply(row, { t: "snapshot", row: { seq: 2, tail: "old" } }), "stale");
  assert.equal(row.tail, "later");
});

test("the streamed tail is text: hostile markup is never parsed", () => {
  page();
  const el = document.createElement("div");
  const view = new RowView(el);
  view.apply(delta(1, { op: "append", text: HOSTILE }));
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("script"), null);
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, HOSTILE);
  view.apply(delta(2, { op: "tail", text: `${HOSTILE}!` }));
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, `${HOSTILE}!`);
  assert.equal(el.querySelector("img"), null);
});

test("the view changes only what a delta touches", () => {
  page();
  const el = document.createElement("div");
  const view = new RowView(el);
  view.apply(delta(1, { op: "freeze", html: "<p>one</p>", tail: "t" }));
  const first = el.querySelector(".nb-hitl-block");
  view.apply(delta(2, { op: "append", text: "ail" }, { op: "extras", html: "<i>x</i>" }));
  assert.equal(el.querySelector(".nb-hitl-block"), first, "the finished block is the same node");
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, "tail");
  assert.equal(el.querySelector(".nb-hitl-live-extras").innerHTML, "<i>x</i>");
  view.apply(delta(3, { op: "finish", before: "<div class='final'>", keep: 1, after: "</div>" }));
  assert.equal(el.querySelector(".nb-hitl-tail"), null);
  assert.equal(el.querySelector(".final").textContent, "one");
});

test("syncClasses keeps the kernel's list and leaves other classes alone", () => {
  page();
  const el = document.createElement("div");
  el.classList.add("mine");
  let applied = syncClasses(el, ["a", "b"], new Set());
  applied = syncClasses(el, ["b", "c"], applied);
  assert.deepEqual([...el.classList].sort(), ["b", "c", "mine"]);
  assert.deepEqual([...applied].sort(), ["b", "c"]);
});
