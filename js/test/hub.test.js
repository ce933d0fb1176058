import assert from "node:assert/strict";
import { test } from "node:test";
import hub from "../src/hub.js";
import { LIVE_OPS, liveOp } from "../src/shared/live_row.js";
import { reduce } from "../src/shared/ops.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const button = (label, extra = {}) => ({ label, tip: "", off: false, shown: true, ...extra });
const live = (tail, seq = 1) => ({
  v: 1,
  seq,
  head: '<div class="nb-hitl-head"><b>Bob</b></div>',
  blocks: [],
  tail,
  extras: "",
  done: false,
  html: "",
});

const controls = (extra = {}) => ({
  now: "Bob is speaking…",
  stop: button("Stop speaker"),
  send: button("Send", { off: true }),
  input: { value: "", placeholder: "Your turn comes…", cleared: 0 },
  start: button("Start", { shown: false }),
  next: button("Next round", { shown: false }),
  continue: button("Continue", { shown: false }),
  earlier: button("Show earlier messages", { shown: false }),
  picker: {
    label: "Memory of",
    options: [
      ["Alice", 0],
      ["Bob", 1],
    ],
    value: 0,
  },
  keys: [{ key: "Escape", action: "stop", anywhere: true, enabled: ".nb-hitl-hub-stop" }],
  live: true,
  ...extra,
});

const pause = (extra = {}) => ({
  shown: false,
  question: "",
  controls: {
    retry: button("Retry"),
    skip: button("Skip"),
    stop: button("End discussion"),
    placeholder: "Instruction",
    cleared: 0,
  },
  ...extra,
});

const state = (extra = {}) => ({
  css: "",
  speakers: '<div><span class="nb-hitl-chip nb-hitl-speaker-1 nb-hitl-speaking">Bob</span></div>',
  rows: [
    { id: "a", cls: "nb-hitl-row nb-hitl-speaker-0", html: '<div class="nb-hitl-msg">Tabs.</div>' },
    {
      id: "b",
      cls: "nb-hitl-msg nb-hitl-live nb-hitl-speaker-1 nb-hitl-live-row",
      live: live("point1 "),
    },
  ],
  pause: pause(),
  note: "",
  controls: controls(),
  inspector: null,
  ...extra,
});

function show(s = state(), seq = 1) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq, state: s } });
  const { el, cleanup } = render(hub, model);
  return { model, el, cleanup };
}

test("it draws the speakers, the rows by key, the buttons and the status line", () => {
  const { el, model } = show();
  assert.deepEqual(model.sent, [{ t: "sync", seq: 1 }]);
  assert.equal(el.querySelector(".nb-hitl-now").textContent, "Bob is speaking…");
  assert.equal(el.querySelector(".nb-hitl-now").getAttribute("role"), "status");
  assert.equal(el.querySelector(".nb-hitl-transcript").getAttribute("role"), "log");
  const rows = el.querySelectorAll(".nb-hitl-rows > *");
  assert.deepEqual(
    [...rows].map((r) => r.dataset.key),
    ["a", "b"],
  );
  assert.match(rows[1].querySelector(".nb-hitl-tail").textContent, /point1/);
  assert.equal(el.querySelector(".nb-hitl-hub-stop").textContent, "Stop speaker");
  assert.equal(el.querySelector(".nb-hitl-hub-stop").disabled, false);
  assert.equal(el.querySelector(".nb-hitl-hub-send").disabled, true);
  assert.equal(el.querySelector(".nb-hitl-hub-start").hidden, true);
  assert.equal(el.querySelector(".nb-hitl-hub-pause").hidden, true);
  const options = [...el.querySelectorAll(".nb-hitl-hub-picker option")].map((o) => o.textContent);
  assert.deepEqual(options, ["Alice", "Bob"]);
});

test("a live op grows the streaming row's text node; the other rows are left alone", () => {
  const { el, model } = show();
  const first = el.querySelector('[data-key="a"]');
  const tail = el.querySelector('[data-key="b"] .nb-hitl-tail');
  const delta = { t: "delta", seq: 2, ops: [{ op: "append", text: "point2 " }] };
  model.custom({ t: "ops", seq: 2, ops: [{ op: "live", key: "rows", id: "b", msg: delta }] });
  assert.equal(el.querySelector('[data-key="a"]'), first, "the finished row is the same node");
  assert.equal(el.querySelector('[data-key="b"] .nb-hitl-tail'), tail, "the tail grew in place");
  assert.equal(tail.textContent, "point1 point2 ");
  assert.equal(model.get("snapshot").seq, 2, "the snapshot is stored for a later view");
});

test("Stop: the stopping guess at once, then the interrupted style and Paused first", () => {
  const { el, model } = show();
  el.querySelector(".nb-hitl-hub-stop").click();
  assert.ok(el.querySelector('[data-key="b"]').classList.contains("nb-hitl-stopping"));
  assert.deepEqual(model.actions(), [["stop", {}]]);
  const cls = "nb-hitl-msg nb-hitl-live nb-hitl-speaker-1 nb-hitl-live-row nb-hitl-interrupted";
  model.custom({ t: "ops", seq: 2, ops: [{ op: "live", key: "rows", id: "b", cls }] });
  assert.ok(el.querySelector('[data-key="b"]').classList.contains("nb-hitl-interrupted"));
  const paused = controls({ now: "Paused: choose Retry, Skip or End discussion below." });
  model.custom({ t: "ops", seq: 3, ops: [{ op: "set", key: "controls", value: paused }] });
  assert.match(el.querySelector(".nb-hitl-now").textContent, /^Paused/);
  const question = "<b>Paused: Bob was interrupted.</b>";
  const shown = pause({ shown: true, question });
  shown.controls.retry = button("Retry Bob");
  model.custom({ t: "ops", seq: 4, ops: [{ op: "set", key: "pause", value: shown }] });
  const prompt = el.querySelector(".nb-hitl-hub-pause");
  assert.equal(prompt.hidden, false);
  assert.equal(prompt.querySelector(".nb-hitl-pause-retry").textContent, "Retry Bob");
  prompt.querySelector("textarea").value = "One line.";
  prompt.querySelector(".nb-hitl-pause-retry").click();
  assert.deepEqual(model.actions().at(-1), ["pause", { choice: "retry", text: "One line." }]);
});

test("Escape anywhere in the panel stops; Start sends what is typed and empties the box", () => {
  const { el, model } = show(state({ controls: controls({ start: button("Start") }) }));
  const box = el.querySelector(".nb-hitl-hub-input");
  box.focus();
  box.dispatchEvent(new window.KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  assert.deepEqual(model.actions(), [["stop", {}]]);
  box.value = "Tabs or spaces?";
  el.querySelector(".nb-hitl-hub-start").click();
  assert.deepEqual(model.actions().at(-1), ["start", { text: "Tabs or spaces?" }]);
  assert.equal(box.value, "");
});

test("hostile names and text stay text: labels, options, the status line and the tail", () => {
  const s = state({
    rows: [{ id: "x", cls: "nb-hitl-msg nb-hitl-live", live: live(HOSTILE) }],
    controls: controls({
      now: `${HOSTILE} is speaking…`,
      picker: { label: "Memory of", options: [[HOSTILE, 0]], value: 0 },
    }),
    pause: pause({ shown: true }),
  });
  s.pause.controls.retry = button(`Retry ${HOSTILE}`);
  const { el } = show(s);
  assert.equal(el.querySelectorAll("img, script").length, 0);
  assert.equal(el.querySelector(".nb-hitl-now").textContent, `${HOSTILE} is speaking…`);
  assert.equal(el.querySelector(".nb-hitl-hub-picker option").textContent, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-pause-retry").textContent, `Retry ${HOSTILE}`);
  assert.equal(el.querySelector(".nb-hitl-tail").textContent, HOSTILE);
  assert.equal(window.pwned, undefined);
});

test("a gap asks for a snapshot; the snapshot redraws the rows by key", () => {
  const { el, model } = show();
  model.custom({ t: "ops", seq: 5, ops: [{ op: "remove", key: "rows", id: "a" }] });
  assert.deepEqual(model.sent.at(-1), { t: "sync", seq: 1 });
  assert.equal(el.querySelectorAll(".nb-hitl-rows > *").length, 2, "nothing applied");
  const done = { ...live("", 3), done: true, html: '<div class="nb-hitl-msg">Bob: final</div>' };
  const rows = [{ id: "b", cls: "nb-hitl-row nb-hitl-speaker-1", live: done }];
  model.custom({ t: "snapshot", snapshot: { v: 1, seq: 5, state: state({ rows }) } });
  const drawn = el.querySelectorAll(".nb-hitl-rows > *");
  assert.equal(drawn.length, 1);
  assert.match(drawn[0].textContent, /Bob: final/);
});

test("the row reducer: a live op's message and classes change one row, unknown ids nothing", () => {
  const s0 = { v: 1, seq: 0, state: state() };
  const delta = { t: "delta", seq: 2, ops: [{ op: "freeze", html: "<p>a</p>", tail: "b" }] };
  const out = reduce(
    s0,
    { t: "ops", seq: 1, ops: [{ op: "live", key: "rows", id: "b", msg: delta }] },
    LIVE_OPS,
  );
  assert.equal(out.verdict, "ok");
  assert.deepEqual(out.snapshot.state.rows[1].live.blocks, ["<p>a</p>"]);
  assert.equal(out.snapshot.state.rows[1].live.tail, "b");
  assert.equal(out.snapshot.state.rows[0], s0.state.rows[0], "the other row is untouched");
  const same = liveOp(s0.state, { op: "live", key: "rows", id: "zz", cls: "x" });
  assert.equal(same, s0.state);
});

test("a card's button sends its action with the card's form; the view cleans up", () => {
  const card =
    '<div class="nb-hitl-approval" data-nb-hitl-card="c1"><input name="reason" value="no">' +
    '<button data-nb-hitl-action="card" data-nb-hitl-arg="c1 deny">Deny</button></div>';
  const { el, model, cleanup } = show(
    state({ rows: [{ id: "c1", cls: "nb-hitl-row", html: card }] }),
  );
  el.querySelector("[data-nb-hitl-action]").click();
  assert.deepEqual(model.actions().at(-1), ["card", { text: "c1 deny", form: { reason: "no" } }]);
  cleanup();
  assert.equal(el.querySelector(".nbh-hub"), null);
});
