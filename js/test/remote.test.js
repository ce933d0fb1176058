import assert from "node:assert/strict";
import { test } from "node:test";
import inspector from "../src/inspector.js";
import remote from "../src/remote.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const controls = (extra = {}) => ({
  server: "http://127.0.0.1:8123/",
  thread: "thread-0123456789ab",
  can: "history, stop",
  state: '{\n  "step": 2\n}',
  link: "connected",
  link_text: "connected",
  error: "",
  ...extra,
});

function show(widget, state, seq = 1) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq, state } });
  const { el, cleanup } = render(widget, model);
  return { model, el, cleanup };
}

const text = (el, sel) => el.querySelector(sel).textContent;

test("it draws the server, the thread, what the server can do and the state", () => {
  const { el, model } = show(remote, { css: "", controls: controls() });
  assert.equal(text(el, ".nbh-remote-server"), "http://127.0.0.1:8123/");
  assert.equal(text(el, ".nbh-remote-thread"), "thread-0123456789ab");
  assert.equal(text(el, ".nbh-remote-can"), "history, stop");
  assert.equal(text(el, ".nbh-remote-state-text"), '{\n  "step": 2\n}');
  assert.equal(el.querySelector(".nbh-remote-link").dataset.link, "connected");
  assert.equal(el.querySelector(".nbh-remote-link").getAttribute("role"), "status");
  assert.equal(el.querySelector(".nbh-remote-error").hidden, true);
  assert.ok(el.querySelector("details.nbh-remote").open);
  assert.deepEqual(model.actions(), [], "the view only shows: it sends no action");
});

test("hostile text from the server stays text in every field", () => {
  const { el } = show(remote, {
    css: "",
    controls: controls({
      server: HOSTILE,
      thread: HOSTILE,
      can: HOSTILE,
      state: HOSTILE,
      link: "error",
      link_text: "the last run failed",
      error: HOSTILE,
    }),
  });
  assert.equal(el.querySelectorAll("img, script").length, 0);
  assert.equal(window.pwned, undefined);
  for (const sel of [".nbh-remote-server", ".nbh-remote-thread", ".nbh-remote-can"])
    assert.equal(text(el, sel), HOSTILE);
  assert.equal(text(el, ".nbh-remote-state-text"), HOSTILE);
  assert.equal(text(el, ".nbh-remote-error"), `: ${HOSTILE}`);
});

test("connecting, then not reachable with the reason, then the last run failed", () => {
  const { el, model } = show(remote, {
    css: "",
    controls: controls({ link: "connecting", link_text: "connecting…", can: "" }),
  });
  const link = el.querySelector(".nbh-remote-link");
  assert.equal(link.dataset.link, "connecting");
  assert.equal(text(el, ".nbh-remote-link-text"), "connecting…");
  const down = "http://127.0.0.1:9/ could not be reached (connection refused).";
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      {
        op: "set",
        key: "controls",
        value: controls({ link: "disconnected", link_text: "not reachable", error: down }),
      },
    ],
  });
  assert.equal(link.dataset.link, "disconnected");
  assert.equal(text(el, ".nbh-remote-link"), `link: not reachable: ${down}`);
  assert.equal(el.querySelector(".nbh-remote-error").hidden, false);
  model.custom({
    t: "ops",
    seq: 3,
    ops: [
      {
        op: "set",
        key: "controls",
        value: controls({ link: "error", link_text: "the last run failed", error: "RUN_ERROR" }),
      },
    ],
  });
  assert.equal(link.dataset.link, "error");
  model.custom({ t: "ops", seq: 4, ops: [{ op: "set", key: "controls", value: controls() }] });
  assert.equal(link.dataset.link, "connected");
  assert.equal(el.querySelector(".nbh-remote-error").hidden, true);
  assert.equal(text(el, ".nbh-remote-error"), "");
});

test("an unknown link is drawn as connecting; an empty state draws nothing", () => {
  const { el } = show(remote, { css: "", controls: controls({ link: "<b>x</b>" }) });
  assert.equal(el.querySelector(".nbh-remote-link").dataset.link, "connecting");
  const empty = show(remote, { css: "", controls: {} });
  assert.equal(empty.el.querySelector("details.nbh-remote").hidden, true);
});

test("inside the inspector: drawn at its foot, kept current by child ops on the part", () => {
  const { el, model } = show(inspector, {
    css: "",
    note: "",
    explorer: null,
    remote: { css: "", controls: controls({ link: "connecting", link_text: "connecting…" }) },
  });
  const part = el.querySelector(".nbh-inspector-remote");
  assert.ok(part.classList.contains("nb-hitl-remote-state"));
  assert.equal(part, el.querySelector(".nbh-inspector").lastElementChild);
  assert.equal(text(part, ".nbh-remote-link-text"), "connecting…");
  model.custom({
    t: "ops",
    seq: 2,
    ops: [
      {
        op: "child",
        key: "remote",
        ops: [{ op: "set", key: "controls", value: controls({ thread: HOSTILE }) }],
      },
    ],
  });
  assert.equal(text(part, ".nbh-remote-thread"), HOSTILE);
  assert.equal(text(part, ".nbh-remote-link-text"), "connected");
  assert.equal(el.querySelectorAll("img, script").length, 0);
});

test("an inspector over a local agent has no remote part", () => {
  const { el } = show(inspector, { css: "", note: "", explorer: null });
  assert.equal(el.querySelector(".nbh-inspector-remote").childElementCount, 0);
});
