import assert from "node:assert/strict";
import { test } from "node:test";
import { EXTRA_OPS, transcriptView } from "../src/chat/transcript.js";
import { liveOp } from "../src/shared/live_row.js";
import { reduce } from "../src/shared/ops.js";
import transcript from "../src/transcript.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const batch = (seq, ...ops) => ({ t: "ops", seq, ops });
const row = (id, html = `<p>${id}</p>`, cls = "nb-hitl-row") => ({ id, cls, html });
const insert = (item, before = null) => ({ op: "insert", key: "rows", item, before });
const live = (id, msg, cls) => ({ op: "live", key: "rows", id, msg, cls });
const delta = (seq, ...ops) => ({ t: "delta", seq, ops });
const liveItem = (id, tail = "") => ({
  id,
  cls: "nb-hitl-msg nb-hitl-live",
  live: {
    v: 1,
    seq: 0,
    head: "<span>Friday</span>",
    blocks: [],
    tail,
    extras: "",
    done: false,
    html: "",
  },
});
const ids = (root) =>
  [...root.querySelector(".nb-hitl-rows").children].map((n) => n.dataset.nbHitlKey);

function drawn() {
  page();
  const root = document.createElement("div");
  const acts = [];
  const draw = transcriptView(root, (name, args) => acts.push([name, args]), null);
  let snap = { v: 1, seq: 0, state: { rows: [], earlier: "" } };
  draw(snap.state, new Set(["rows", "earlier"]));
  const send = (msg) => {
    const out = reduce(snap, msg, EXTRA_OPS);
    if (out.verdict === "ok" || out.verdict === "reset") {
      snap = out.snapshot;
      draw(snap.state, out.changed);
    }
    return out.verdict;
  };
  return {
    root,
    acts,
    send,
    get state() {
      return snap.state;
    },
  };
}

test("keyed ops insert, move, replace and remove rows; untouched rows keep their nodes", () => {
  const t = drawn();
  assert.equal(t.send(batch(1, insert(row("a")), insert(row("b")), insert(row("c")))), "ok");
  const b = t.root.querySelector('[data-nb-hitl-key="b"]');
  t.send(batch(2, insert(row("c"), "a")));
  assert.deepEqual(ids(t.root), ["c", "a", "b"]);
  t.send(batch(3, { op: "replace", key: "rows", item: row("a", "<p>A</p>", "nb-hitl-row x") }));
  const a = t.root.querySelector('[data-nb-hitl-key="a"]');
  assert.equal(a.querySelector(".widget-html-content").innerHTML, "<p>A</p>");
  assert.ok(a.classList.contains("x") && a.classList.contains("widget-html"));
  assert.equal(t.root.querySelector('[data-nb-hitl-key="b"]'), b, "b was not drawn anew");
  t.send(batch(4, { op: "remove", key: "rows", id: "c" }));
  assert.deepEqual(ids(t.root), ["a", "b"]);
  assert.equal(t.send(batch(4, insert(row("z")))), "stale");
  assert.equal(t.send(batch(6, insert(row("z")))), "gap");
});

test("a streaming row grows a text node; the interrupted style is one class; it finishes", () => {
  const t = drawn();
  t.send(batch(1, insert(liveItem("m"))));
  const node = t.root.querySelector('[data-nb-hitl-key="m"]');
  t.send(batch(2, live("m", delta(1, { op: "append", text: "Hel" }))));
  const text = node.querySelector(".nb-hitl-tail").firstChild;
  t.send(batch(3, live("m", delta(2, { op: "append", text: "lo" }))));
  assert.equal(node.querySelector(".nb-hitl-tail").firstChild, text, "the same text node");
  assert.equal(text.data, "Hello");
  t.send(batch(4, live("m", delta(3, { op: "freeze", html: "<p>Hello</p>", tail: "x" }))));
  assert.equal(node.querySelectorAll(".nb-hitl-block").length, 1);
  t.send(batch(5, live("m", undefined, "nb-hitl-msg nb-hitl-live nb-hitl-interrupted")));
  assert.equal(t.root.querySelector('[data-nb-hitl-key="m"]'), node, "restyled in place");
  assert.ok(node.classList.contains("nb-hitl-interrupted"));
  assert.equal(t.state.rows[0].live.tail, "x");
  t.send(batch(6, { op: "replace", key: "rows", item: row("m", "<div>final</div>") }));
  const done = t.root.querySelector('[data-nb-hitl-key="m"]');
  assert.ok(!done.classList.contains("nb-hitl-live") && done.textContent === "final");
});

test("a live op for a row that is not there, or a row message that does not apply, is a no-op", () => {
  const state = { rows: [row("a"), liveItem("m")] };
  assert.equal(liveOp(state, { op: "live", id: "?", cls: "x" }), state);
  const next = liveOp(state, live("m", delta(5, { op: "append", text: "late" })));
  assert.equal(next.rows[1].live.tail, "", "a gap in the row's messages applies nothing");
  assert.equal(next.rows[0], state.rows[0], "other rows are shared");
});

test("hostile text stays text: in a tail, an id, a class, a button label", () => {
  const t = drawn();
  t.send(batch(1, insert({ ...liveItem(HOSTILE), cls: HOSTILE })));
  t.send(batch(2, live(HOSTILE, delta(1, { op: "append", text: HOSTILE }))));
  const buttons = [
    { label: HOSTILE, action: "row", args: { id: "a", verb: "undo" }, cls: HOSTILE },
  ];
  t.send(batch(3, insert({ ...row("a", "<p>&lt;b&gt;x&lt;/b&gt;</p>"), buttons })));
  assert.equal(t.root.querySelector("img"), null);
  assert.equal(t.root.querySelector("script"), null);
  assert.equal(t.root.querySelector("b"), null, "kernel-escaped HTML stays escaped");
  assert.equal(t.root.querySelector(".nb-hitl-tail").textContent, HOSTILE);
  assert.equal(t.root.querySelector('[data-nb-hitl-key="a"] button').textContent, HOSTILE);
  assert.equal(globalThis.window.pwned, undefined);
});

test("row buttons and Show earlier send actions; hidden and disabled ones do not show or act", () => {
  const t = drawn();
  const buttons = [
    {
      label: "Undo",
      action: "row",
      args: { id: "c", verb: "undo" },
      cls: "nb-hitl-undo-compression",
    },
    { label: "Gone", action: "row", args: { id: "c", verb: "x" }, hidden: true },
    { label: "Off", action: "row", args: { id: "c", verb: "y" }, disabled: true },
  ];
  t.send(batch(1, insert({ ...row("c"), cls: "nb-hitl-compression-row", buttons })));
  t.send(batch(2, { op: "set", key: "earlier", value: "Show earlier messages (3 hidden)" }));
  const [undo, gone, off] = t.root.querySelectorAll('[data-nb-hitl-key="c"] button');
  assert.ok(t.root.querySelector(".nb-hitl-compression-row > .widget-html"));
  assert.equal(gone.style.display, "none");
  undo.click();
  off.click();
  const earlier = t.root.querySelector(".nb-hitl-earlier");
  assert.equal(earlier.textContent, "Show earlier messages (3 hidden)");
  earlier.click();
  assert.deepEqual(t.acts, [
    ["row", { id: "c", verb: "undo" }],
    ["show_earlier", {}],
  ]);
  t.send(batch(3, { op: "set", key: "earlier", value: "" }));
  assert.equal(earlier.style.display, "none");
  const log = t.root.querySelector(".nb-hitl-transcript");
  assert.equal(log.getAttribute("role"), "log");
});

test("a view asks once, syncs after a gap, stores each state, and stops when cleaned up", () => {
  page();
  const snapshot = { v: 1, seq: 1, state: { rows: [liveItem("m", "so far")], earlier: "" } };
  const model = new FakeModel({ snapshot });
  const { el, cleanup } = render(transcript, model);
  assert.deepEqual(model.sent, [{ t: "sync", seq: 1 }], "a view made mid-stream asks");
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, "so far");
  model.custom(batch(3, live("m", delta(1, { op: "append", text: "!" }))));
  assert.deepEqual(model.sent.at(-1), { t: "sync", seq: 1 }, "a gap asks");
  const caught = { v: 1, seq: 3, state: { rows: [liveItem("m", "caught up")], earlier: "" } };
  model.custom({ t: "snapshot", snapshot: caught });
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, "caught up");
  model.custom(batch(4, { op: "replace", key: "rows", item: row("m", "<p>done</p>") }));
  assert.equal(model.get("snapshot").seq, 4, "the state a later view starts from");
  assert.equal(el.querySelector(".nb-hitl-rows").textContent, "done");
  cleanup();
  model.custom(batch(5, { op: "replace", key: "rows", item: row("m", "<p>gone</p>") }));
  assert.equal(el.textContent, "", "a closed view is gone and no longer listens");
});
