import assert from "node:assert/strict";
import { test } from "node:test";
import panel from "../src/agent_panel.js";
import permissions from "../src/permissions.js";
import session from "../src/session.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const esc = (s) =>
  s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");

const sessionState = (controls = {}, extra = {}) => ({
  css: "",
  note: "",
  controls: {
    path: "nb_hitl_session_Friday.json",
    autosave: false,
    undo: false,
    confirm: false,
    undo_tip: "Bring back the conversation from before the last Load",
    ...controls,
  },
  ...extra,
});

const permissionsState = (extra = {}) => ({
  css: "",
  note: "",
  mode_html: '<span class="nb-hitl-permission-mode" data-mode="ask">every call asks</span>',
  rules: [
    {
      id: "r1",
      html: '<span class="nb-hitl-badge">allow</span> allow `search_notes` <span class="nb-hitl-rule-source">(this agent)</span>',
    },
  ],
  tasks: [{ id: "t1", html: "&#9881; background <code>crawl</code> running for 3 s" }],
  controls: {
    shown: true,
    mode: "ask",
    modes: [
      ["ask", "ask"],
      ["allow_reads", "allow reads"],
      ["deny_all", "deny all"],
    ],
  },
  ...extra,
});

function show(widget, state, seq = 1) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq, state } });
  const { el, cleanup } = render(widget, model);
  return { model, el, cleanup };
}

test("the session bar draws its path and sends each button's action with the typed path", () => {
  const { el, model } = show(session, sessionState());
  const path = el.querySelector(".nbh-session-path");
  assert.equal(path.value, "nb_hitl_session_Friday.json");
  assert.equal(el.querySelector(".nbh-session-undo").disabled, true);
  assert.equal(el.querySelector(".nbh-session-replace").hidden, true);
  path.value = "other.json"; // typed, not committed yet: Save uses it
  el.querySelector(".nbh-session-save").click();
  el.querySelector(".nbh-session-load").click();
  el.querySelector(".nbh-session-undo").click(); // off: nothing sent
  const box = el.querySelector(".nbh-session-autosave");
  box.checked = true;
  box.dispatchEvent(new window.Event("change"));
  assert.deepEqual(model.actions(), [
    ["save", { path: "other.json" }],
    ["load", { path: "other.json" }],
    ["autosave", { value: true }],
  ]);
});

test("a Load over a conversation asks Replace / Cancel; Undo load comes on after it", () => {
  const { el, model } = show(session, sessionState());
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      { op: "set", key: "controls", value: sessionState({ confirm: true }).controls },
      { op: "set", key: "note", value: '<span class="nb-hitl-status">Replace it?</span>' },
    ],
  });
  assert.equal(el.querySelector(".nbh-session-replace").hidden, false);
  assert.equal(el.querySelector(".nbh-session-cancel").hidden, false);
  assert.equal(el.querySelector(".nbh-session-load").disabled, true);
  assert.match(el.querySelector(".nbh-session-note").textContent, /Replace it\?/);
  el.querySelector(".nbh-session-replace").click();
  model.custom({
    t: "ops",
    seq: 3,
    ops: [{ op: "set", key: "controls", value: sessionState({ undo: true }).controls }],
  });
  const undo = el.querySelector(".nbh-session-undo");
  assert.equal(undo.disabled, false);
  assert.equal(undo.title, "Bring back the conversation from before the last Load");
  assert.equal(el.querySelector(".nbh-session-replace").hidden, true);
  undo.click();
  assert.deepEqual(
    model.actions().map(([name]) => name),
    ["replace", "undo"],
  );
});

test("the permissions list draws mode, rules and tasks, and sends mode, Revoke and Stop", () => {
  const { el, model } = show(permissions, permissionsState());
  const picker = el.querySelector("select.nb-hitl-permission-mode-picker");
  assert.equal(picker.value, "ask");
  assert.equal(picker.options.length, 3);
  assert.match(el.querySelector(".nb-hitl-rule").textContent, /\(this agent\)/);
  assert.match(el.querySelector(".nb-hitl-task").textContent, /background crawl/);
  picker.value = "deny_all";
  picker.dispatchEvent(new window.Event("change"));
  el.querySelector(".nb-hitl-rule button.nb-hitl-revoke").click();
  el.querySelector(".nb-hitl-task button.nb-hitl-stop-task").click();
  assert.deepEqual(model.actions(), [
    ["mode", { value: "deny_all" }],
    ["revoke", { id: "r1" }],
    ["stop", { id: "t1" }],
  ]);
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      { op: "set", key: "rules", value: [] },
      { op: "set", key: "tasks", value: [] },
    ],
  });
  assert.equal(el.querySelectorAll(".nb-hitl-rule, .nb-hitl-task").length, 0);
  assert.match(el.querySelector(".nb-hitl-rules").textContent, /No permission rules/);
});

test("an agent with nothing to permit draws no list", () => {
  const s = permissionsState();
  const { el } = show(permissions, { ...s, controls: { ...s.controls, shown: false } });
  assert.equal(el.querySelector(".nbh-permissions").hidden, true);
});

test("hostile text stays text: in a path, an escaped rule, a note, an id", () => {
  const { el, model } = show(panel, {
    limits: `<details class="nb-hitl-remote-limits"><summary>off</summary><ul><li>${esc(HOSTILE)}</li></ul></details>`,
    session: sessionState(
      { path: HOSTILE },
      { note: `<span class="nb-hitl-approval-error">${esc(HOSTILE)}</span>` },
    ),
    permissions: permissionsState({
      rules: [{ id: HOSTILE, html: `allow ${esc(HOSTILE)}` }],
      note: esc(HOSTILE),
    }),
  });
  assert.equal(el.querySelectorAll("img, script").length, 0);
  assert.equal(window.pwned, undefined);
  assert.equal(el.querySelector(".nbh-session-path").value, HOSTILE);
  assert.ok(el.querySelector(".nb-hitl-rule").textContent.includes(HOSTILE));
  assert.ok(el.querySelector(".nb-hitl-remote-limits li").textContent.includes(HOSTILE));
  el.querySelector(".nb-hitl-revoke").click();
  assert.deepEqual(model.actions(), [["permissions", { name: "revoke", args: { id: HOSTILE } }]]);
});

test("the panel draws its parts in order and routes each part's actions to it", () => {
  const { el, model } = show(panel, {
    limits: "",
    permissions: permissionsState(),
    session: sessionState(),
  });
  const parts = [...el.querySelectorAll(".nbh-part")].filter((p) => !p.hidden);
  assert.deepEqual(
    parts.map((p) => p.classList[1]),
    ["nb-hitl-permissions", "nb-hitl-session-bar", "nbh-limits"],
  );
  el.querySelector(".nbh-session-save").click();
  assert.deepEqual(model.actions(), [
    ["session", { name: "save", args: { path: "nb_hitl_session_Friday.json" } }],
  ]);
  // A change inside the embedded bar arrives as the bar's own ops, in a `child` op.
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      {
        op: "child",
        key: "session",
        ops: [{ op: "set", key: "note", value: "<span>Saved.</span>" }],
      },
    ],
  });
  assert.equal(el.querySelector(".nbh-session-note").textContent, "Saved.");
});

test("a panel without a session bar or permissions draws neither; a snapshot catches up", () => {
  const { el, model } = show(panel, { limits: "" }, 4);
  assert.equal(el.querySelector(".nb-hitl-session-bar").hidden, true);
  assert.equal(el.querySelector(".nb-hitl-permissions").hidden, true);
  model.custom({ t: "ops", seq: 7, ops: [{ op: "set", key: "limits", value: "<i>x</i>" }] });
  assert.deepEqual(model.sent.at(-1), { t: "sync", seq: 4 }, "a gap asks for a snapshot");
  model.custom({
    t: "snapshot",
    snapshot: { v: 1, seq: 7, state: { limits: "", session: sessionState() } },
  });
  assert.equal(el.querySelector(".nb-hitl-session-bar").hidden, false);
  assert.equal(model.get("snapshot").seq, 7);
});
