import assert from "node:assert/strict";
import { test } from "node:test";
import keyBindings from "../src/chat/key_bindings.js";
import { bindingFor, matches, STOPPING } from "../src/chat/keys.js";
import { FakeModel, HOSTILE, page } from "./helpers.js";

const BINDINGS = [
  { key: "Enter", mod: true, within: ".nb-hitl-input", action: "send", clear: true },
  { key: "Escape", action: "stop", anywhere: true, enabled: "button.stop" },
  { key: "Escape", shift: true, click: "button.step" },
];

/** A chat-like scope inside a panel: an input, Stop, After step, a row with buttons. */
function panel(traits = {}) {
  const window = page();
  document.body.innerHTML = `
    <div class="nb-hitl-panel">
      <p class="outside">the inspector's text</p>
      <div class="nb-hitl-chat">
        <div class="nb-hitl-input"><textarea></textarea></div>
        <button class="stop">Stop</button><button class="step">After step</button>
        <div class="nb-hitl-live nb-hitl-row">streaming</div>
        <button class="nb-hitl-action" data-nb-hitl-action="edit" data-nb-hitl-arg="m1">Edit</button>
        <button class="nb-hitl-copy" data-copy-id="m2">Copy</button>
        <div class="nb-hitl-status">idle</div>
        <div class="host"></div>
      </div>
    </div>`;
  const model = new FakeModel({
    scope: "nb-hitl-chat",
    focus_scope: "nb-hitl-panel",
    inactive_scope: "nb-hitl-panel",
    inactive_text: "kernel restarted: this panel is inactive",
    bindings: BINDINGS,
    stopping_rows: ".nb-hitl-live",
    stop_button: "button.stop",
    stop_action: "stop",
    copy_buttons: ".nb-hitl-copy",
    action_buttons: ".nb-hitl-action",
    ...traits,
  });
  const el = document.querySelector(".host");
  const cleanup = keyBindings.render({ model, el });
  const $ = (s) => document.querySelector(s);
  const key = (target, init) => {
    const ev = new window.KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init });
    target.dispatchEvent(ev);
    return ev;
  };
  return { window, model, el, cleanup, $, key };
}

test("matches tells Ctrl/Cmd and Shift apart", () => {
  const b = { key: "Escape" };
  const ev = (init) => ({
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    ...init,
  });
  assert.ok(matches(ev({ key: "Escape" }), b));
  assert.ok(!matches(ev({ key: "Escape", shiftKey: true }), b));
  assert.ok(matches(ev({ key: "Escape", shiftKey: true }), { key: "Escape", shift: true }));
  assert.ok(matches(ev({ key: "Enter", metaKey: true }), { key: "Enter", mod: true }));
  assert.ok(!matches(ev({ key: "Enter" }), { key: "Enter", mod: true }));
  assert.ok(!matches(ev({ key: "Escape", altKey: true }), b));
});

test("Ctrl+Enter in the box sends its text and clears it; the key stays ours", () => {
  const { model, $, key, cleanup } = panel();
  const box = $("textarea");
  box.value = "hello <b>there</b>";
  const ev = key(box, { key: "Enter", ctrlKey: true });
  assert.ok(ev.defaultPrevented);
  assert.deepEqual(model.sent, [{ action: "send", text: "hello <b>there</b>" }]);
  assert.equal(box.value, "");
  key(box, { key: "Enter" });
  assert.equal(model.sent.length, 1, "plain Enter is the box's own");
  cleanup();
});

test("Escape stops and draws the stopping style at once; the kernel's classes end it", async () => {
  const { model, $, key, cleanup } = panel();
  const row = $(".nb-hitl-live");
  key($("textarea"), { key: "Escape" });
  assert.deepEqual(model.sent, [{ action: "stop", text: "" }]);
  assert.ok(row.classList.contains(STOPPING));
  row.className = "nb-hitl-row nb-hitl-interrupted"; // the kernel's answer
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(!row.classList.contains(STOPPING));
  cleanup();
});

test("Escape in the notebook counts after a press on the panel's text, while Stop is enabled", () => {
  const { model, $, key, window, cleanup } = panel();
  const notebook = document.body; // a click on text takes no focus: the notebook has it
  key(notebook, { key: "Escape" });
  assert.deepEqual(model.sent, [], "no press in the panel yet");
  $(".outside").dispatchEvent(new window.MouseEvent("pointerdown", { bubbles: true }));
  const ev = key(notebook, { key: "Escape" });
  assert.ok(ev.defaultPrevented);
  assert.deepEqual(model.sent, [{ action: "stop", text: "" }]);
  $("button.stop").disabled = true;
  const idle = key(notebook, { key: "Escape" });
  assert.ok(!idle.defaultPrevented, "an idle panel leaves Escape to JupyterLab");
  assert.equal(model.sent.length, 1);
  cleanup();
});

test("Shift+Escape clicks After step; bindingFor finds nothing outside for a scoped key", () => {
  const { $, key, cleanup } = panel();
  let clicked = 0;
  $("button.step").addEventListener("click", () => {
    clicked += 1;
  });
  key($("textarea"), { key: "Escape", shiftKey: true });
  assert.equal(clicked, 1);
  const scope = $(".nb-hitl-chat");
  const ev = { key: "Escape", shiftKey: true, target: $(".outside") };
  assert.equal(bindingFor(ev, BINDINGS, scope, false), null);
  cleanup();
});

test("row buttons send their action; Copy of a long message asks the kernel for its text", () => {
  const { model, $, cleanup } = panel();
  $(".nb-hitl-action").click();
  assert.deepEqual(model.sent, [{ action: "edit", text: "m1" }]);
  $(".nb-hitl-copy").click();
  assert.deepEqual(model.sent.at(-1), { action: "copy", text: "m2" });
  model.custom({ copy: "m2", text: "the whole text" });
  cleanup();
});

test("a dropped comm turns the panel off and says so, as text", () => {
  const { model, $, cleanup } = panel({ inactive_text: HOSTILE });
  for (const fn of model.handlers.get("comm_live_update")) fn();
  assert.ok($(".nb-hitl-panel").classList.contains("nb-hitl-inactive"));
  assert.ok($("button.stop").disabled && $("textarea").disabled);
  assert.equal($(".nb-hitl-inactive-note").textContent, HOSTILE);
  assert.equal(document.querySelector("img"), null);
  assert.match($(".nb-hitl-status").textContent, /inactive/);
  const before = model.sent.length;
  $(".nb-hitl-action").click();
  assert.equal(model.sent.length, before, "an inactive panel sends nothing");
  cleanup();
});

test("cleanup removes every listener", () => {
  const { model, $, key, cleanup } = panel();
  cleanup();
  key($("textarea"), { key: "Escape" });
  $(".nb-hitl-action").click();
  assert.deepEqual(model.sent, []);
});

test("a card's button sends its form: the card's named boxes, select and ticked boxes", () => {
  const { model, cleanup } = panel({ action_buttons: "[data-nb-hitl-action]" });
  const host = document.querySelector(".nb-hitl-chat");
  const row = document.createElement("div");
  row.innerHTML = `<div class="nb-hitl-card" data-nb-hitl-card="approval-1">
      <textarea name="arguments"></textarea><input name="reason" value="">
      <select name="scope"><option value="reply">r</option><option value="session">s</option></select>
      <input type="checkbox" name="pick" value="a"><input type="checkbox" name="pick" value="b">
      <input type="radio" name="one" value="x"><input type="radio" name="one" value="y">
      <button data-nb-hitl-action="card" data-nb-hitl-arg="approval-1 approve_edited">Go</button>
    </div>`;
  host.append(row);
  row.querySelector("textarea").value = `{"env": "${HOSTILE}"}`;
  row.querySelector("input[name=reason]").value = "not today";
  row.querySelector("select").value = "reply";
  row.querySelectorAll("input[type=checkbox]")[1].checked = true;
  row.querySelectorAll("input[type=radio]")[0].checked = true;
  row.querySelector("button").click();
  assert.deepEqual(model.sent, [
    {
      action: "card",
      text: "approval-1 approve_edited",
      form: {
        arguments: `{"env": "${HOSTILE}"}`,
        reason: "not today",
        scope: "reply",
        pick: ["b"],
        one: "x",
      },
    },
  ]);
  cleanup();
});

test("a question's choices toggle in the page, one answer unpicks the other, picks are sent", () => {
  const { model, cleanup } = panel({ action_buttons: "[data-nb-hitl-action]" });
  const row = document.createElement("div");
  row.innerHTML = `<div data-nb-hitl-card="question-1">
      <button class="nb-hitl-choice" data-nb-hitl-choice="q0" data-nb-hitl-single="" value="0"
        aria-pressed="false">A</button>
      <button class="nb-hitl-choice" data-nb-hitl-choice="q0" data-nb-hitl-single="" value="1"
        aria-pressed="false">B</button>
      <button data-nb-hitl-action="card" data-nb-hitl-arg="question-1 submit">Send</button>
    </div>`;
  document.querySelector(".nb-hitl-chat").append(row);
  const [a, b] = row.querySelectorAll(".nb-hitl-choice");
  a.click();
  assert.ok(a.classList.contains("mod-active") && a.getAttribute("aria-pressed") === "true");
  b.click();
  assert.ok(!a.classList.contains("mod-active") && b.classList.contains("mod-active"));
  assert.deepEqual(model.sent, [], "picking sends nothing");
  row.querySelector("[data-nb-hitl-action]").click();
  assert.deepEqual(model.sent, [
    { action: "card", text: "question-1 submit", form: { q0: ["1"] } },
  ]);
  cleanup();
});

test("the transcript becomes a log region, also when it is drawn after the keys", async () => {
  const { cleanup } = panel();
  const transcript = document.createElement("div");
  transcript.className = "nb-hitl-transcript";
  document.querySelector(".nb-hitl-chat").append(transcript);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(transcript.getAttribute("role"), "log");
  assert.equal(transcript.getAttribute("aria-label"), "Transcript");
  cleanup();
});
