// The approval card's rule box ("Allow similar", issue 33): the kernel renders the card
// (nb_hitl/widgets/_approval.py) with the suggested rule escaped into the box's value; the page
// sends what the person typed with the press, as text, and Enter in the box presses the button.
import assert from "node:assert/strict";
import { test } from "node:test";
import keyBindings from "../src/chat/key_bindings.js";
import { setKernelHtml } from "../src/shared/dom.js";
import { FakeModel, HOSTILE, page } from "./helpers.js";

// nb_hitl.widgets._approval.CARD_KEYS
const CARD_KEYS = [
  {
    key: "Enter",
    within: ".nb-hitl-deny-reason",
    near: ".nb-hitl-approval",
    click: ".nb-hitl-deny-ok",
  },
  {
    key: "Enter",
    within: ".nb-hitl-rule-text",
    near: ".nb-hitl-approval",
    click: ".nb-hitl-allow-similar",
  },
];

// The rule row as the kernel renders it for write_file('"><img src=x onerror=alert(1)>/a.txt').
const CARD = `<div class="nb-hitl-card" data-nb-hitl-card="approval-w1-1">
  <div class="nb-hitl-card-buttons nb-hitl-card-rule">
    <span class="nb-hitl-approval-rule">Or allow</span>
    <input type="text" class="widget-input nb-hitl-rule-text" name="rule"
      value="write_file(&quot;&gt;&lt;img src=x onerror=alert(1)&gt;/*)" style="width: 47ch"
      spellcheck="false" autocomplete="off" aria-label="Rule to add: tool(argument: pattern)">
    <span class="nb-hitl-rule-scope"><select class="widget-dropdown" name="scope">
      <option value="reply">for this reply</option>
      <option value="session" selected>for this session</option>
      <option value="always">always</option></select></span>
    <button type="button" class="widget-button nb-hitl-allow-similar" data-nb-hitl-action="card"
      data-nb-hitl-arg="approval-w1-1 similar">Allow similar</button>
  </div></div>`;

function chat() {
  const window = page();
  document.body.innerHTML = `<div class="nb-hitl-panel"><div class="nb-hitl-chat">
      <div class="nb-hitl-approval"></div><div class="host"></div></div></div>`;
  const row = document.querySelector(".nb-hitl-approval");
  setKernelHtml(row, CARD);
  const model = new FakeModel({
    scope: "nb-hitl-chat",
    focus_scope: "nb-hitl-panel",
    bindings: CARD_KEYS,
    action_buttons: "[data-nb-hitl-action]",
  });
  const cleanup = keyBindings.render({ model, el: document.querySelector(".host") });
  const box = row.querySelector("input.nb-hitl-rule-text");
  return { window, model, row, box, cleanup };
}

test("the suggested rule stays text in the box: no element comes out of its value", () => {
  const { row, box, model, cleanup } = chat();
  assert.equal(row.querySelectorAll("img, script").length, 0);
  assert.equal(box.value, 'write_file("><img src=x onerror=alert(1)>/*)');
  row.querySelector(".nb-hitl-allow-similar").click();
  assert.deepEqual(model.sent, [
    {
      action: "card",
      text: "approval-w1-1 similar",
      form: { rule: 'write_file("><img src=x onerror=alert(1)>/*)', scope: "session" },
    },
  ]);
  cleanup();
});

test("what the person typed goes as it is, and Enter in the box presses Allow similar", () => {
  const { window, row, box, model, cleanup } = chat();
  box.value = `write_file(${HOSTILE})`;
  row.querySelector("select").value = "always";
  const ev = new window.KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true });
  box.dispatchEvent(ev);
  assert.ok(ev.defaultPrevented, "the key is the card's");
  assert.deepEqual(model.sent, [
    {
      action: "card",
      text: "approval-w1-1 similar",
      form: { rule: `write_file(${HOSTILE})`, scope: "always" },
    },
  ]);
  assert.equal(row.querySelectorAll("img, script").length, 0);
  assert.equal(globalThis.window.pwned, undefined);
  cleanup();
});

test("a disabled box's button sends nothing (a remote agent keeps its own rules)", () => {
  const { row, model, cleanup } = chat();
  row.querySelector(".nb-hitl-allow-similar").disabled = true;
  row.querySelector(".nb-hitl-allow-similar").click();
  assert.deepEqual(model.sent, []);
  cleanup();
});
