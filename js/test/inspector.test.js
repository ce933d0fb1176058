import assert from "node:assert/strict";
import { test } from "node:test";
import inspector from "../src/inspector.js";
import { layout, moveThreshold, stepsChart } from "../src/shared/chart.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const controls = (extra = {}) => ({
  threshold: 500,
  threshold_max: 1000,
  threshold_box_max: 1e9,
  keep: 3,
  keep_max: 30,
  keep_box_max: 1e7,
  off: { undo: "Nothing to undo." },
  show_all: false,
  ...extra,
});

const state = (extra = {}) => ({
  css: "",
  header: "<b>30 messages · 943 tokens</b>",
  approx: "",
  bar: '<svg class="nb-hitl-bar"></svg>',
  plan: '<div class="nb-hitl-plan" data-compress="24">Over the threshold</div>',
  table: '<table class="nb-hitl-table"><tr data-id="a"><td>1</td></tr></table>',
  note: "",
  chart: {
    steps: [
      ["replayed", 40, "call 1"],
      ["turn", 120, "call 2"],
      ["now", 150, "now: 150 tokens"],
    ],
    threshold: 500,
  },
  controls: controls(),
  explorer: null,
  ...extra,
});

function show(s = state(), seq = 1) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq, state: s } });
  const { el } = render(inspector, model);
  return { model, el };
}

test("it draws the kernel's parts, the controls and the chart from the snapshot", () => {
  const { el, model } = show();
  assert.deepEqual(model.sent, [{ t: "sync", seq: 1 }], "asks once whether it is behind");
  assert.match(el.querySelector(".nbh-inspector-header").innerHTML, /943 tokens/);
  assert.equal(el.querySelectorAll(".nb-hitl-table tr").length, 1);
  const [threshold, box] = el.querySelectorAll(".nbh-pair input");
  assert.equal(threshold.value, "500");
  assert.equal(box.value, "500");
  const undo = el.querySelector(".nbh-undo");
  assert.equal(undo.disabled, true);
  assert.equal(undo.title, "Nothing to undo.");
  assert.equal(el.querySelector(".nbh-compress").disabled, false);
  assert.equal(el.querySelectorAll(".nb-hitl-chart circle").length, 3);
  assert.ok(el.querySelector(".nb-hitl-chart-threshold"));
  assert.equal(el.querySelector(".nbh-note").getAttribute("role"), "status");
  assert.equal(el.querySelector(".nbh-inspector-table").getAttribute("role"), "region");
});

test("clicks, keys and the number box send the inspector's actions", () => {
  const { el, model } = show();
  el.querySelector(".nbh-compress").click();
  el.querySelector(".nbh-undo").click(); // off: nothing sent
  const ref = el.querySelector(".nbh-pin-ref");
  ref.value = "2";
  ref.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  el.querySelector(".nbh-unpin").click();
  el.querySelector(".nbh-show-all").click();
  const box = el.querySelectorAll(".nbh-pair input")[1];
  box.value = "5000";
  box.dispatchEvent(new Event("change"));
  assert.deepEqual(model.actions(), [
    ["compress", {}],
    ["pin", { ref: "2" }],
    ["unpin", { ref: "2" }],
    ["show_all", { value: true }],
    ["threshold", { value: 5000 }],
  ]);
  const range = el.querySelectorAll(".nbh-pair input")[0];
  assert.ok(Number(range.max) >= 5000, "typing past the slider's end widens it");
});

test("an op batch redraws only what changed; a gap asks for a snapshot", () => {
  const { el, model } = show();
  const table = el.querySelector(".nb-hitl-table");
  model.custom({
    t: "ops",
    seq: 2,
    ops: [{ op: "set", key: "controls", value: controls({ off: {}, show_all: true }) }],
  });
  assert.equal(el.querySelector(".nbh-undo").disabled, false);
  assert.equal(el.querySelector(".nbh-show-all").getAttribute("aria-pressed"), "true");
  assert.equal(el.querySelector(".nb-hitl-table"), table, "the table was not redrawn");
  model.sent.length = 0;
  model.custom({ t: "ops", seq: 5, ops: [{ op: "set", key: "note", value: "late" }] });
  assert.deepEqual(model.sent, [{ t: "sync", seq: 2 }]);
  assert.equal(el.querySelector(".nbh-note").innerHTML, "");
  model.custom({
    t: "snapshot",
    snapshot: { v: 1, seq: 5, state: state({ note: "<b>caught up</b>" }) },
  });
  assert.equal(el.querySelector(".nbh-note").textContent, "caught up");
});

test("with no threshold the chart draws no threshold line and says so", () => {
  page();
  const steps = [
    ["replayed", 40, "call 1"],
    ["now", 90, "now"],
  ];
  const [legend, chart] = stepsChart(steps, 0);
  assert.equal(chart.querySelector(".nb-hitl-chart-threshold"), null);
  assert.doesNotMatch(legend.textContent, /threshold/);
  assert.match(chart.getAttribute("aria-label"), /no threshold/);
  const [withLegend, withChart] = stepsChart(steps, 60);
  assert.ok(withChart.querySelector(".nb-hitl-chart-threshold"));
  assert.match(withLegend.textContent, /threshold/);
});

test("evenly growing calls draw a straight line, not a staircase", () => {
  const steps = Array.from({ length: 101 }, (_, i) => ["turn", 100 + 64 * i, `call ${i}`]);
  const { px, py } = layout(steps, 0);
  const slope = (i) => (py(steps[i + 1][1]) - py(steps[i][1])) / (px(i + 1) - px(i));
  for (let i = 1; i < 100; i++) assert.ok(Math.abs(slope(i) - slope(0)) < 1e-9);
});

test("hostile text in the chart's hover text and the controls' reasons stays text", () => {
  const s = state({
    chart: { steps: [["turn", 10, HOSTILE]], threshold: 0 },
    controls: controls({ off: { compress: HOSTILE } }),
  });
  const { el } = show(s);
  assert.equal(el.querySelector("img"), null);
  assert.equal(el.querySelector("script"), null);
  assert.equal(el.querySelector(".nb-hitl-chart title").textContent, HOSTILE);
  assert.equal(el.querySelector(".nbh-compress").title, HOSTILE);
  assert.equal(globalThis.window.pwned, undefined);
});

test("an explorer opened inside it sends its actions through the inspector", () => {
  const explorer = {
    header: "<b>Compression explorer</b>",
    curve: "<svg></svg>",
    totals: "",
    sweep: "",
    note: "",
    controls: {
      threshold: 8000,
      threshold_max: 20000,
      threshold_box_max: 1e9,
      keep: 6,
      keep_max: 100,
      keep_box_max: 108,
      budget: 9000,
      policy: "a",
      policies: ["a", "b"],
      metric: "total_tokens",
      metrics: [["total_tokens", "total tokens"]],
      continuous: true,
      off: {},
    },
  };
  const { el, model } = show(state({ explorer }));
  const apply = [...el.querySelectorAll("button")].find((b) => b.textContent === "Apply to agent");
  apply.click();
  assert.deepEqual(model.actions(), [["explorer", { name: "apply", args: {} }]]);
});

test("the chart has a point per call and distinct compression and undo marks", () => {
  page();
  const steps = [
    ["turn", 100, "t1"],
    ["turn", 900, "t2"],
    ["compress", 300, "c"],
    ["undo", 900, "u"],
  ];
  const [legend, chart] = stepsChart(steps, 800);
  assert.equal(chart.querySelectorAll("circle").length, 2);
  assert.equal(chart.querySelectorAll(".nb-hitl-compression-mark").length, 1);
  assert.equal(chart.querySelectorAll(".nb-hitl-undo-mark").length, 1);
  assert.equal(
    chart.querySelector(".nb-hitl-chart-threshold title").textContent,
    "trigger_threshold: 800",
  );
  for (const text of chart.querySelectorAll("text"))
    assert.ok(Number(text.getAttribute("font-size")) >= 11);
  assert.match(legend.textContent, /compressed/);
  assert.equal(stepsChart([], 800)[0].tagName.toLowerCase(), "svg");
});

const below = () => state({ chart: { ...state().chart, threshold: 100 } }); // under the peak

test("a merge op of the threshold moves the line in place; the points are not redrawn", () => {
  const { el, model } = show(below());
  const point = el.querySelector(".nb-hitl-chart circle");
  const steps = state().chart.steps;
  model.custom({
    t: "ops",
    seq: 2,
    ops: [{ op: "merge", key: "chart", value: { threshold: 130 } }],
  });
  const line = el.querySelector(".nb-hitl-chart-threshold");
  assert.equal(el.querySelector(".nb-hitl-chart circle"), point, "the points stayed");
  assert.equal(line.getAttribute("y1"), layout(steps, 130).py(130).toFixed(1));
  assert.equal(line.getAttribute("y2"), line.getAttribute("y1"));
  assert.match(line.querySelector("title").textContent, /trigger_threshold: 130$/);
  assert.match(el.querySelector(".nb-hitl-chart").getAttribute("aria-label"), /threshold 130$/);
  // The same as drawing the chart anew at that threshold.
  const [, fresh] = stepsChart(steps, 130);
  assert.equal(
    el.querySelector(".nb-hitl-chart").outerHTML.replace(/nb-hitl-chart-threshold[^>]*/, ""),
    fresh.outerHTML.replace(/nb-hitl-chart-threshold[^>]*/, ""),
  );
  assert.equal(line.outerHTML, fresh.querySelector(".nb-hitl-chart-threshold").outerHTML);
});

test("a merge op that changes the scale or the legend draws the chart anew", () => {
  const { el, model } = show(below());
  const point = el.querySelector(".nb-hitl-chart circle");
  const steps = state().chart.steps;
  // 100 -> 900: the line becomes the peak, so the scale changes and every point moves.
  model.custom({
    t: "ops",
    seq: 2,
    ops: [{ op: "merge", key: "chart", value: { threshold: 900 } }],
  });
  assert.notEqual(el.querySelector(".nb-hitl-chart circle"), point);
  const [, fresh] = stepsChart(steps, 900);
  assert.equal(el.querySelector(".nb-hitl-chart").outerHTML, fresh.outerHTML);
  // No threshold: no line, and the legend says so.
  model.custom({ t: "ops", seq: 3, ops: [{ op: "merge", key: "chart", value: { threshold: 0 } }] });
  assert.equal(el.querySelector(".nb-hitl-chart-threshold"), null);
  assert.doesNotMatch(el.querySelector(".nb-hitl-legend").textContent, /threshold/);
  // A threshold again: the line and its legend entry are back.
  model.custom({
    t: "ops",
    seq: 4,
    ops: [{ op: "merge", key: "chart", value: { threshold: 100 } }],
  });
  assert.ok(el.querySelector(".nb-hitl-chart-threshold"));
  assert.match(el.querySelector(".nb-hitl-legend").textContent, /threshold/);
  // New points (a set op) are drawn, whatever the threshold.
  const more = [...steps, ["now", 160, "now: 160 tokens"]];
  model.custom({
    t: "ops",
    seq: 5,
    ops: [{ op: "set", key: "chart", value: { steps: more, threshold: 100 } }],
  });
  assert.equal(el.querySelectorAll(".nb-hitl-chart circle").length, 4);
});

test("moveThreshold refuses what it cannot do in place", () => {
  page();
  const steps = state().chart.steps;
  const box = document.createElement("div");
  box.append(...stepsChart(steps, 0));
  assert.equal(moveThreshold(box, steps, 0, 100), false, "no line to move");
  box.replaceChildren(...stepsChart(steps, 100));
  assert.equal(moveThreshold(box, steps, 100, 0), false, "the line goes away");
  assert.equal(moveThreshold(box, steps, 100, 1000), false, "a new peak");
  assert.equal(moveThreshold(box, [], 100, 120), false, "no points");
  assert.equal(moveThreshold(box, steps, 100, 120), true);
  assert.equal(
    box.querySelector(".nb-hitl-chart-threshold").getAttribute("y1"),
    layout(steps, 120).py(120).toFixed(1),
  );
});
