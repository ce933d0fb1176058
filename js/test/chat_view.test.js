// The chat as one model (js/src/chat.js, chat/view.js): the transcript, controls and keys are
// parts of one state; their ops arrive as `child` ops, their actions leave as the chat's
// action named after the part; hostile text stays text.
import assert from "node:assert/strict";
import { test } from "node:test";
import chat from "../src/chat.js";
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

function chatState(extra = {}) {
  return {
    css: ".nb-hitl-row { color: red; }",
    transcript: {
      rows: [{ id: "m1", cls: "nb-hitl-row", html: "<p>hello</p>" }],
      earlier: "",
    },
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
      bindings: [
        { key: "Enter", mod: true, within: ".nb-hitl-input", action: "send", clear: true },
        { key: "Escape", action: "stop", anywhere: true, enabled: ".nb-hitl-stop" },
      ],
      stopping_rows: ".nb-hitl-live",
      stop_button: ".nb-hitl-stop",
      stop_action: "stop",
      focus_scope: "",
      copy_buttons: ".nb-hitl-copy",
      action_buttons: "",
    },
    ...extra,
  };
}

function shown(state = chatState()) {
  page();
  const model = new FakeModel({
    snapshot: { v: 1, seq: 0, state },
    _dom_classes: ["nb-hitl-chat"],
  });
  const { el, cleanup } = render(chat, model);
  return { el, model, cleanup };
}

test("one model draws the rows, the controls and the kernel's stylesheet", () => {
  const { el, cleanup } = shown();
  assert.ok(el.classList.contains("nb-hitl-chat"));
  const row = el.querySelector(".nb-hitl-transcript [data-nb-hitl-key='m1']");
  assert.equal(row.querySelector(".widget-html-content").innerHTML, "<p>hello</p>");
  assert.equal(el.querySelector(".nb-hitl-send").textContent, "Send");
  assert.ok(el.querySelector(".nb-hitl-stop").disabled);
  assert.equal(el.querySelector(".nb-hitl-input textarea").placeholder, "Message Friday…");
  // The kernel's stylesheet: once for the page, not in the panel.
  assert.match(document.getElementById("nb-hitl-kernel-css").textContent, /nb-hitl-row/);
  assert.equal(el.querySelector("style"), null);
  // The transcript above the controls, as the VBox it replaces.
  const parts = [...el.querySelector(".nbh-chat").children].map((n) => n.className);
  assert.deepEqual(parts.slice(-3), [
    "nb-hitl-transcript-view",
    "nb-hitl-controls",
    "nb-hitl-keys",
  ]);
  cleanup();
});

test("a part's ops arrive as child ops: a streaming row grows, a button turns on", () => {
  const { el, model, cleanup } = shown();
  const live = { v: 1, seq: 1, head: "", blocks: [], tail: "Hel", extras: "", done: false };
  model.custom({
    t: "ops",
    seq: 1,
    ops: [
      {
        op: "child",
        key: "transcript",
        ops: [{ op: "insert", key: "rows", item: { id: "a1", cls: "nb-hitl-live", live } }],
      },
      { op: "child", key: "controls", ops: [{ op: "set", key: "stop", value: button("Stop") }] },
    ],
  });
  const delta = { t: "delta", seq: 2, ops: [{ op: "append", text: "lo" }] };
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      {
        op: "child",
        key: "transcript",
        ops: [{ op: "live", key: "rows", id: "a1", msg: delta, cls: "nb-hitl-live x" }],
      },
    ],
  });
  const row = el.querySelector("[data-nb-hitl-key='a1']");
  assert.match(row.textContent, /Hello/);
  assert.ok(row.classList.contains("x"));
  assert.equal(el.querySelector(".nb-hitl-stop").disabled, false);
  cleanup();
});

test("clicks and keys go out as the chat's actions named after their part", () => {
  const { el, model, cleanup } = shown();
  const box = el.querySelector(".nb-hitl-input textarea");
  box.value = "hi there";
  el.querySelector(".nb-hitl-send").click();
  box.focus();
  box.dispatchEvent(
    new window.KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }),
  );
  const actions = model.actions().filter(([name]) => name !== "sync");
  assert.deepEqual(actions[0], ["controls", { name: "send", args: { text: "hi there" } }]);
  assert.deepEqual(actions[1], [
    "keys",
    { name: "press", args: { action: "send", text: "hi there" } },
  ]);
  assert.equal(box.value, ""); // the binding's `clear`
  cleanup();
});

test("hostile names, notes and placeholders are text, never markup", () => {
  const state = chatState();
  state.controls.input.placeholder = HOSTILE;
  state.controls.send = button(HOSTILE, { tooltip: HOSTILE });
  state.transcript.rows = [{ id: HOSTILE, cls: "nb-hitl-row", html: "&lt;b&gt;x&lt;/b&gt;" }];
  const { el, cleanup } = shown(state);
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("script:not(style)"), null);
  assert.equal(el.querySelector(".nb-hitl-send").textContent, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-input textarea").placeholder, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-rows > *").dataset.nbHitlKey, HOSTILE);
  assert.equal(window.pwned, undefined);
  cleanup();
});

test("a Copy answer comes on the chat's model and a stale batch changes nothing", () => {
  const { model, cleanup } = shown();
  model.custom({ copy: "m1", text: "hello" }); // nobody asked: ignored
  model.custom({ t: "ops", seq: 0, ops: [{ op: "set", key: "css", value: "x" }] }); // stale
  assert.match(document.getElementById("nb-hitl-kernel-css").textContent, /nb-hitl-row/);
  cleanup();
});
