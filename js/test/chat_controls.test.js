import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BUTTONS, controlsView, embeddedControls } from "../src/chat/controls.js";
import chatControls from "../src/chat_controls.js";
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

// What ChatControls (nb_hitl/widgets/_controls.py) starts a chat with.
const state = (extra = {}) => ({
  send: button("Send", { icon: "paper-plane", style: "primary", tooltip: "Send (Ctrl+Enter)" }),
  stop: button("Stop", { icon: "stop", style: "danger", disabled: true, tooltip: "Stop (Esc)" }),
  step: button("After step", { icon: "step-forward", disabled: true }),
  continue: button("Continue", { icon: "play", disabled: true }),
  retry: button("Retry", { icon: "repeat", hidden: true }),
  clear: button("Clear", { icon: "eraser" }),
  export: button("Export", { icon: "download" }),
  input: { placeholder: "Message Friday…", disabled: false },
  input_value: { text: "", n: 0 },
  mode: {
    value: "interrupt",
    options: [
      ["steer", "Steer", "steers: taken in at the next step"],
      ["interrupt", "Interrupt & redirect", "interrupts and redirects the reply"],
      ["queue", "Queue", "queued: answered after this reply"],
    ],
    label: "While running:",
    disabled: false,
  },
  export_format: {
    value: "markdown",
    options: [
      ["markdown", "Markdown", ""],
      ["html", "HTML", ""],
    ],
    label: "",
    disabled: false,
  },
  status:
    '<span class="nb-hitl-status nb-hitl-status-idle" role="status" aria-live="polite" ' +
    'data-state="idle">&#9679; idle</span>',
  note: "",
  ...extra,
});

function show(s = state(), seq = 1) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq, state: s } });
  const { el, cleanup } = render(chatControls, model);
  return { model, el, cleanup };
}

const ops = (model, seq, list) => model.custom({ t: "ops", seq, ops: list });
const set = (key, value) => ({ op: "set", key, value });

test("it draws every control from the snapshot, with the classes tests and CSS read", () => {
  const { el, model } = show();
  assert.deepEqual(model.sent, [{ t: "sync", seq: 1 }]);
  for (const cls of Object.values(BUTTONS)) assert.ok(el.querySelector(`button.${cls}`), cls);
  const send = el.querySelector("button.nb-hitl-send");
  assert.ok(send.classList.contains("jupyter-button") && send.classList.contains("mod-primary"));
  assert.equal(send.textContent, "Send");
  assert.ok(send.querySelector("i.fa.fa-paper-plane"));
  assert.equal(send.title, "Send (Ctrl+Enter)");
  assert.ok(el.querySelector("button.nb-hitl-stop").classList.contains("mod-danger"));
  assert.equal(el.querySelector("button.nb-hitl-stop").disabled, true);
  assert.equal(el.querySelector("button.nb-hitl-retry").hidden, true);
  const box = el.querySelector(".nb-hitl-input textarea");
  assert.equal(box.placeholder, "Message Friday…");
  assert.equal(box.getAttribute("aria-label"), "Message");
  const status = el.querySelector(".nb-hitl-status-line .nb-hitl-status");
  assert.equal(status.getAttribute("role"), "status");
  assert.equal(status.dataset.state, "idle");
  const modes = [...el.querySelectorAll(".nb-hitl-send-mode button")];
  assert.deepEqual(
    modes.map((b) => [b.textContent, b.getAttribute("aria-pressed")]),
    [
      ["Steer", "false"],
      ["Interrupt & redirect", "true"],
      ["Queue", "false"],
    ],
  );
  assert.equal(
    el.querySelector(".nb-hitl-send-mode [role=group]").getAttribute("aria-label"),
    "While running",
  );
  assert.equal(el.querySelector(".nb-hitl-export-format select").value, "markdown");
  // The same order as the ipywidgets boxes they replace.
  const order = [...el.querySelector(".nb-hitl-chat-controls").children].map((c) =>
    [...c.classList].find((n) => n.startsWith("nb-hitl-")),
  );
  assert.deepEqual(order, [
    "nb-hitl-status-line",
    "nb-hitl-chat-tools",
    "nb-hitl-chat-note",
    "nb-hitl-send-mode",
    "nb-hitl-chat-bar",
  ]);
});

test("a press sends its action with the box's text; a disabled button sends nothing", () => {
  const { el, model } = show();
  const box = el.querySelector("textarea");
  box.value = "hello there";
  el.querySelector("button.nb-hitl-send").click();
  el.querySelector("button.nb-hitl-stop").click(); // disabled: nothing
  el.querySelector("button.nb-hitl-clear").click();
  assert.deepEqual(model.actions(), [
    ["send", { text: "hello there" }],
    ["clear", { text: "hello there" }],
  ]);
  ops(model, 2, [set("stop", button("Stop", { style: "danger" }))]);
  el.querySelector("button.nb-hitl-stop").click();
  assert.deepEqual(model.actions().at(-1), ["stop", { text: "hello there" }]);
});

test("the mode picker and the export format send their value; the pick shows at once", () => {
  const { el, model } = show();
  const [steer, interrupt] = el.querySelectorAll(".nb-hitl-send-mode button");
  interrupt.click(); // already the mode: nothing to say
  steer.click();
  assert.equal(steer.getAttribute("aria-pressed"), "true");
  assert.ok(steer.classList.contains("mod-active") && !interrupt.classList.contains("mod-active"));
  const select = el.querySelector(".nb-hitl-export-format select");
  select.value = "html";
  select.dispatchEvent(new Event("change"));
  assert.deepEqual(model.actions(), [
    ["mode", { value: "steer" }],
    ["export_format", { value: "html" }],
  ]);
  ops(model, 2, [set("mode", { ...state().mode, value: "queue" })]); // the kernel's word
  const pressed = [...el.querySelectorAll(".nb-hitl-send-mode button")].map((b) =>
    b.getAttribute("aria-pressed"),
  );
  assert.deepEqual(pressed, ["false", "false", "true"]);
});

test("typing is sent after a pause; the kernel's writes replace it, other changes do not", async () => {
  page();
  const sent = [];
  const root = document.createElement("div");
  document.body.append(root);
  const draw = controlsView(root, (name, args) => sent.push([name, args]), { typePause: 0 });
  const s = state();
  draw(s, new Set(Object.keys(s)));
  const box = root.querySelector("textarea");
  box.value = "draft";
  box.dispatchEvent(new Event("input"));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(sent, [["type", { text: "draft" }]]);
  // A new placeholder (the send mode while running) leaves the typed text alone.
  draw(
    { ...s, input: { placeholder: "Message Friday… (queued)", disabled: false } },
    new Set(["input"]),
  );
  assert.equal(box.value, "draft");
  assert.equal(box.placeholder, "Message Friday… (queued)");
  // The same write seen again (a snapshot after a gap) does not clobber newer typing.
  draw({ ...s, input_value: { text: "", n: 0 } }, new Set(["input_value"]));
  assert.equal(box.value, "draft");
  // The kernel cleared the box after a send, or put a stopped message back.
  draw({ ...s, input_value: { text: "", n: 1 } }, new Set(["input_value"]));
  assert.equal(box.value, "");
  draw({ ...s, input_value: { text: "taken back", n: 2 } }, new Set(["input_value"]));
  assert.equal(box.value, "taken back");
});

test("hostile labels, tooltips, placeholders and options stay text", () => {
  const hostile = state({
    send: button(HOSTILE, { tooltip: HOSTILE }),
    input: { placeholder: HOSTILE, disabled: false },
    mode: { ...state().mode, options: [["interrupt", HOSTILE, HOSTILE]], label: HOSTILE },
    note: '<span class="nb-hitl-note">&lt;img src=x&gt;</span>',
  });
  const { el } = show(hostile);
  assert.equal(el.querySelector("img, script"), null);
  assert.equal(el.querySelector("button.nb-hitl-send").textContent, HOSTILE);
  assert.equal(el.querySelector("button.nb-hitl-send").title, HOSTILE);
  assert.equal(el.querySelector("textarea").placeholder, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-send-mode button").textContent, HOSTILE);
  assert.equal(el.querySelector(".nb-hitl-note").textContent, "<img src=x>");
  assert.equal(globalThis.window.pwned, undefined);
});

test("every control is keyboard-reachable, labelled, with a focus ring and no motion", () => {
  const { el } = show(state({ retry: button("Retry") }));
  const reachable = [...el.querySelectorAll("button, textarea, select")];
  assert.equal(reachable.length, 7 + 3 + 1 + 1);
  for (const node of reachable) {
    assert.ok(node.tabIndex >= 0, node.outerHTML);
    const name = node.getAttribute("aria-label") || node.textContent.trim();
    assert.ok(name, `unlabelled: ${node.outerHTML}`);
  }
  for (const b of el.querySelectorAll("button")) assert.equal(b.type, "button");
  assert.equal(el.querySelector(".nb-hitl-chat-tools").getAttribute("role"), "toolbar");
  const css = readFileSync(new URL("../src/chat/controls.css", import.meta.url), "utf8");
  assert.match(css, /button:focus-visible/);
  assert.match(css, /textarea:focus-visible/);
  assert.match(css, /prefers-reduced-motion: reduce/);
});

test("ops redraw only what changed; a gap asks for a snapshot, which redraws everything", () => {
  const { el, model } = show();
  ops(model, 2, [
    set(
      "status",
      '<span class="nb-hitl-status nb-hitl-status-running" role="status">running</span>',
    ),
  ]);
  assert.match(el.querySelector(".nb-hitl-status-line").textContent, /running/);
  ops(model, 5, [set("note", "lost")]); // 3 and 4 never came
  assert.deepEqual(model.sent.at(-1), { t: "sync", seq: 2 });
  assert.equal(el.querySelector(".nb-hitl-chat-note").textContent, "");
  model.custom({
    t: "snapshot",
    snapshot: {
      v: 1,
      seq: 5,
      state: state({ note: '<span class="nb-hitl-note">back</span>', send: button("Queue") }),
    },
  });
  assert.equal(el.querySelector(".nb-hitl-note").textContent, "back");
  assert.equal(el.querySelector("button.nb-hitl-send").textContent, "Queue");
});

test("a second view of the same model draws the same state; cleanup removes its DOM", () => {
  const { el, model, cleanup } = show();
  ops(model, 2, [set("send", button("Redirect", { style: "primary" }))]);
  const other = render(chatControls, model);
  assert.equal(other.el.querySelector("button.nb-hitl-send").textContent, "Redirect");
  cleanup();
  assert.equal(el.querySelector(".nb-hitl-chat-controls"), null);
});

test("drawn inside a host panel, the controls act through the host's `controls` action", () => {
  page();
  const sent = [];
  const root = document.createElement("div");
  document.body.append(root);
  const draw = embeddedControls(root, (name, args) => sent.push([name, args]));
  const first = state();
  draw(first);
  root.querySelector("textarea").value = "hi";
  root.querySelector("button.nb-hitl-send").click();
  assert.deepEqual(sent, [["controls", { name: "send", args: { text: "hi" } }]]);
  // The controls' own ops on the part: only the sub-parts whose value changed are redrawn.
  const status = root.querySelector(".nb-hitl-status-line .widget-html-content");
  const before = status.firstChild;
  draw({ ...first, stop: button("Stopping…", { disabled: true }) });
  assert.equal(root.querySelector("button.nb-hitl-stop").textContent, "Stopping…");
  assert.equal(status.firstChild, before, "the status line was not redrawn");
});
