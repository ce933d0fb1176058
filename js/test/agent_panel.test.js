// The agent panel as one model (js/src/agent_panel.js, views/agent_panel.js): the chat and the
// inspector drawn as parts of one state, side by side in a wrapping row (the inspector below
// the chat when there is no room), the permissions list, session bar and note under them;
// parts' ops arrive as `child` ops, their actions leave as the panel's action named after
// the part; a swapped chat (a session's Load) is built afresh; hostile text stays text.
import assert from "node:assert/strict";
import { test } from "node:test";
import agentPanel from "../src/agent_panel.js";
import { reduce } from "../src/shared/ops.js";
import { AGENT_PANEL_OPS } from "../src/views/agent_panel.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const button = (label, extra = {}) => ({
  label,
  icon: "",
  style: "",
  tooltip: "",
  disabled: false,
  hidden: false,
  ...extra,
});

const chatState = (rows = [{ id: "m1", cls: "nb-hitl-row", html: "<p>hello</p>" }]) => ({
  css: "",
  transcript: { rows, earlier: "" },
  controls: {
    send: button("Send", { style: "primary" }),
    stop: button("Stop", { disabled: true }),
    step: button("After step", { disabled: true }),
    continue: button("Continue", { disabled: true }),
    retry: button("Retry", { hidden: true }),
    clear: button("Clear"),
    export: button("Export"),
    input: { placeholder: "Message Friday…", disabled: false },
    input_value: { text: "", n: 0 },
    mode: { value: "interrupt", options: [["interrupt", "Interrupt", ""]], label: "While:" },
    export_format: { value: "markdown", options: [["markdown", "Markdown"]] },
    status: '<span class="nb-hitl-status">idle</span>',
    note: "",
  },
  keys: {
    scope: "nb-hitl-chat",
    inactive_scope: "",
    inactive_text: "kernel restarted",
    bindings: [{ key: "Enter", mod: true, within: ".nb-hitl-input", action: "send" }],
    stopping_rows: ".nb-hitl-live",
    stop_button: ".nb-hitl-stop",
    stop_action: "stop",
    focus_scope: "",
    copy_buttons: ".nb-hitl-copy",
    action_buttons: "",
  },
});

const inspectorState = (header = "<b>2 messages · 40 tokens</b>") => ({
  css: "",
  header,
  approx: "",
  bar: "",
  plan: "",
  table: '<table class="nb-hitl-table"><tr data-id="a"><td>1</td></tr></table>',
  note: "",
  chart: { steps: [["now", 40, "now"]], threshold: 500 },
  controls: {
    threshold: 500,
    threshold_max: 1000,
    threshold_box_max: 1e9,
    keep: 3,
    keep_max: 30,
    keep_box_max: 1e7,
    off: {},
    show_all: false,
  },
  explorer: null,
});

const panelState = (extra = {}) => ({
  css: ".nb-hitl-row { color: red; }",
  chat_generation: 0,
  limits: "",
  chat: chatState(),
  inspector: inspectorState(),
  ...extra,
});

function shown(state = panelState(), seq = 1) {
  page();
  const model = new FakeModel({
    snapshot: { v: 1, seq, state },
    _dom_classes: ["nb-hitl-panel"],
  });
  const { el, cleanup } = render(agentPanel, model);
  return { el, model, cleanup };
}

test("one model draws the chat and the inspector as columns of one wrapping row", () => {
  const { el, cleanup } = shown();
  assert.ok(el.classList.contains("nb-hitl-panel"));
  const columns = el.querySelector(".nbh-agent-panel > .nb-hitl-columns");
  const [main, side] = columns.children;
  assert.ok(
    main.classList.contains("nb-hitl-chat") && main.classList.contains("nb-hitl-column-main"),
  );
  assert.ok(side.classList.contains("nb-hitl-inspector"));
  assert.ok(side.classList.contains("nb-hitl-column-side"));
  assert.equal(side.hidden, false);
  assert.ok(!columns.classList.contains("nbh-chat-only"));
  assert.equal(
    main.querySelector("[data-nb-hitl-key='m1'] .widget-html-content").innerHTML,
    "<p>hello</p>",
  );
  assert.match(side.querySelector(".nbh-inspector-header").innerHTML, /40 tokens/);
  // The rows under the columns; the kernel's stylesheet once, for the page.
  assert.ok(el.querySelector(".nbh-agent-panel > .nb-hitl-panel-parts"));
  assert.match(document.getElementById("nb-hitl-kernel-css").textContent, /nb-hitl-row/);
  assert.equal(document.querySelectorAll("style").length, 1);
  assert.equal(el.querySelector("style"), null);
  cleanup();
});

test("without an inspector the chat is the only column", () => {
  const state = panelState();
  delete state.inspector;
  const { el, cleanup } = shown(state);
  assert.equal(el.querySelector(".nb-hitl-column-side").hidden, true);
  assert.ok(el.querySelector(".nb-hitl-columns").classList.contains("nbh-chat-only"));
  assert.ok(el.querySelector(".nb-hitl-chat .nb-hitl-send"));
  cleanup();
});

test("the reducer hands each part its child ops, the chat's transcript its own ops too", () => {
  const live = { v: 1, seq: 1, head: "", blocks: [], tail: "Hel", extras: "", done: false };
  const insert = { op: "insert", key: "rows", item: { id: "a1", cls: "nb-hitl-live", live } };
  const delta = { t: "delta", seq: 2, ops: [{ op: "append", text: "lo" }] };
  const grow = { op: "live", key: "rows", id: "a1", msg: delta, cls: "nb-hitl-live" };
  const inChat = (op) => ({
    op: "child",
    key: "chat",
    ops: [{ op: "child", key: "transcript", ops: [op] }],
  });
  let snap = { v: 1, seq: 1, state: panelState() };
  snap = reduce(snap, { t: "ops", seq: 2, ops: [inChat(insert)] }, AGENT_PANEL_OPS).snapshot;
  snap = reduce(snap, { t: "ops", seq: 3, ops: [inChat(grow)] }, AGENT_PANEL_OPS).snapshot;
  const rows = snap.state.chat.transcript.rows;
  assert.deepEqual(
    rows.map((r) => r.id),
    ["m1", "a1"],
  );
  assert.ok(JSON.stringify(rows[1]).includes("lo"), "the delta grew the live row");
  const note = { op: "child", key: "inspector", ops: [{ op: "set", key: "note", value: "x" }] };
  snap = reduce(snap, { t: "ops", seq: 4, ops: [note] }, AGENT_PANEL_OPS).snapshot;
  assert.equal(snap.state.inspector.note, "x");
  assert.equal(snap.state.chat.transcript.rows.length, 2, "other parts untouched");
});

test("parts' ops redraw their part: a streaming row grows, the inspector's header changes", () => {
  const { el, model, cleanup } = shown();
  const live = { v: 1, seq: 1, head: "", blocks: [], tail: "Hel", extras: "", done: false };
  const chatOps = (ops) => ({ op: "child", key: "chat", ops });
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      chatOps([
        {
          op: "child",
          key: "transcript",
          ops: [{ op: "insert", key: "rows", item: { id: "a1", cls: "nb-hitl-live", live } }],
        },
      ]),
      chatOps([
        { op: "child", key: "controls", ops: [{ op: "set", key: "stop", value: button("Stop") }] },
      ]),
      {
        op: "child",
        key: "inspector",
        ops: [{ op: "set", key: "header", value: "<b>3 messages</b>" }],
      },
    ],
  });
  const delta = { t: "delta", seq: 2, ops: [{ op: "append", text: "lo" }] };
  model.custom({
    t: "ops",
    seq: 3,
    ops: [
      chatOps([
        {
          op: "child",
          key: "transcript",
          ops: [{ op: "live", key: "rows", id: "a1", msg: delta, cls: "nb-hitl-live x" }],
        },
      ]),
    ],
  });
  const row = el.querySelector("[data-nb-hitl-key='a1']");
  assert.match(row.textContent, /Hello/);
  assert.ok(row.classList.contains("x"));
  assert.equal(el.querySelector(".nb-hitl-stop").disabled, false);
  assert.match(el.querySelector(".nbh-inspector-header").innerHTML, /3 messages/);
  cleanup();
});

test("clicks go out as the panel's actions named after their part, nested for the chat", () => {
  const { el, model, cleanup } = shown(panelState({ limits: "" }));
  const box = el.querySelector(".nb-hitl-chat .nb-hitl-input textarea");
  box.value = "hi there";
  el.querySelector(".nb-hitl-chat .nb-hitl-send").click();
  box.focus();
  box.dispatchEvent(
    new window.KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }),
  );
  el.querySelector(".nb-hitl-inspector .nbh-compress").click();
  const actions = model.actions();
  assert.deepEqual(actions[0], [
    "chat",
    { name: "controls", args: { name: "send", args: { text: "hi there" } } },
  ]);
  assert.deepEqual(actions[1], [
    "chat",
    { name: "keys", args: { name: "press", args: { action: "send", text: "hi there" } } },
  ]);
  assert.deepEqual(actions[2], ["inspector", { name: "compress", args: {} }]);
  cleanup();
});

test("a new chat generation builds the chat afresh from its state", () => {
  const { el, model, cleanup } = shown();
  const before = el.querySelector(".nb-hitl-chat .nbh-chat");
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      {
        op: "set",
        key: "chat",
        value: chatState([{ id: "m9", cls: "nb-hitl-row", html: "<p>loaded</p>" }]),
      },
      { op: "set", key: "chat_generation", value: 1 },
    ],
  });
  const after = el.querySelector(".nb-hitl-chat .nbh-chat");
  assert.notEqual(after, before, "a new chat view");
  assert.equal(el.querySelectorAll(".nb-hitl-chat .nbh-chat").length, 1);
  assert.equal(el.querySelector("[data-nb-hitl-key='m1']"), null);
  assert.match(el.querySelector("[data-nb-hitl-key='m9']").textContent, /loaded/);
  el.querySelector(".nb-hitl-send").click();
  assert.equal(model.actions().at(-1)[0], "chat"); // the new chat's actions still go out
  cleanup();
});

test("hostile text in the chat, the inspector and the note stays text", () => {
  const esc = (s) =>
    s
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;")
      .replaceAll('"', "&quot;");
  const chat = chatState([{ id: HOSTILE, cls: "nb-hitl-row", html: `<p>${esc(HOSTILE)}</p>` }]);
  chat.controls.input.placeholder = HOSTILE;
  chat.controls.send = button(HOSTILE, { tooltip: HOSTILE });
  const state = panelState({
    chat,
    inspector: inspectorState(`<b>${esc(HOSTILE)}</b>`),
    limits: `<details class="nb-hitl-remote-limits"><summary>off</summary><ul><li>${esc(HOSTILE)}</li></ul></details>`,
  });
  const { el, cleanup } = shown(state);
  assert.equal(el.querySelectorAll("img, script").length, 0);
  assert.equal(window.pwned, undefined);
  assert.equal(el.querySelector(".nb-hitl-send").textContent, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-input textarea").placeholder, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-rows > *").dataset.nbHitlKey, HOSTILE);
  assert.ok(el.querySelector(".nbh-inspector-header").textContent.includes(HOSTILE));
  assert.ok(el.querySelector(".nb-hitl-remote-limits li").textContent.includes(HOSTILE));
  cleanup();
});
