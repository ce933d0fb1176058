import assert from "node:assert/strict";
import { test } from "node:test";
import { transcriptView } from "../src/chat/transcript.js";
import {
  apply,
  copyRow,
  LIVE_OPS,
  liveOp,
  newRow,
  RowView,
  syncClasses,
} from "../src/shared/live_row.js";
import { reduce } from "../src/shared/ops.js";
import { rowsView } from "../src/shared/rows.js";
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

test("the live op: classes alone, a message, a gap applied nowhere, the final row finished", () => {
  const item = { id: "m", cls: "a", live: newRow() };
  const state = { rows: [{ id: "x", cls: "", html: "<p>x</p>" }, item] };
  assert.equal(liveOp(state, { op: "live", id: "?", cls: "b" }), state, "no such row");
  const styled = liveOp(state, { op: "live", id: "m", cls: "a nb-hitl-interrupted" });
  assert.equal(styled.rows[1].cls, "a nb-hitl-interrupted");
  assert.equal(styled.rows[1].live, item.live, "classes alone keep the row's state");
  assert.equal(styled.rows[0], state.rows[0], "the other rows are shared");
  const grown = liveOp(state, { op: "live", id: "m", msg: delta(1, { op: "append", text: "hi" }) });
  assert.equal(grown.rows[1].live.tail, "hi");
  assert.equal(item.live.tail, "", "the old state is not changed");
  const gap = liveOp(grown, { op: "live", id: "m", msg: delta(3, { op: "append", text: "!" }) });
  assert.equal(gap.rows[1].live.tail, "hi");
  const finish = { op: "finish", before: "<div>", keep: 0, after: "</div>" };
  const done = liveOp(grown, { op: "live", key: "rows", id: "m", msg: delta(2, finish) });
  assert.deepEqual(done.rows[1], { id: "m", cls: "a", html: "<div></div>" });
});

test("the chat's transcript and the hub's rows draw a streamed row by the same view", () => {
  page();
  const start = { id: "m", cls: "nb-hitl-msg nb-hitl-live", live: newRow() };
  const ops = [
    { op: "live", key: "rows", id: "m", msg: delta(1, { op: "append", text: HOSTILE }) },
    {
      op: "live",
      key: "rows",
      id: "m",
      msg: delta(2, { op: "freeze", html: "<p>a</p>", tail: "b" }),
    },
    { op: "live", key: "rows", id: "m", cls: "nb-hitl-msg nb-hitl-live nb-hitl-interrupted" },
    { op: "live", key: "rows", id: "m", msg: delta(3, { op: "append", text: "c" }) },
  ];
  const chatRoot = document.createElement("div");
  const drawChat = transcriptView(chatRoot, () => {}, null);
  const hubRoot = document.createElement("div");
  const drawHub = rowsView(hubRoot);
  let snap = { v: 1, seq: 0, state: { rows: [start], earlier: "" } };
  drawChat(snap.state, new Set(["rows"]));
  drawHub(snap.state.rows);
  const chatRow = chatRoot.querySelector('[data-nb-hitl-key="m"]');
  const hubRow = hubRoot.querySelector('[data-key="m"]');
  const chatText = () => chatRow.querySelector(".nb-hitl-tail").firstChild;
  const hubText = () => hubRow.querySelector(".nb-hitl-tail").firstChild;
  let texts = [chatText(), hubText()];
  ops.forEach((op, i) => {
    const out = reduce(snap, { t: "ops", seq: i + 1, ops: [op] }, LIVE_OPS);
    assert.equal(out.verdict, "ok");
    snap = out.snapshot;
    drawChat(snap.state, out.changed);
    drawHub(snap.state.rows);
    assert.equal(chatRow.innerHTML, hubRow.innerHTML, `the same row after op ${i + 1}`);
    if (op.msg?.ops[0].op === "append") {
      assert.deepEqual([chatText(), hubText()], texts, "appended text grows the text node");
    }
    texts = [chatText(), hubText()];
  });
  assert.equal(chatRoot.querySelector('[data-nb-hitl-key="m"]'), chatRow, "drawn in place");
  assert.equal(hubRoot.querySelector('[data-key="m"]'), hubRow, "drawn in place");
  assert.equal(hubText().data, "bc");
  assert.ok(chatRow.classList.contains("nb-hitl-interrupted"));
  assert.ok(hubRow.classList.contains("nb-hitl-interrupted"));
  assert.equal(chatRoot.querySelector("img, script"), null);
  assert.equal(hubRoot.querySelector("img, script"), null);
});
