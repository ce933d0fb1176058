import assert from "node:assert/strict";
import { test } from "node:test";
import explorer from "../src/explorer.js";
import { FakeModel, HOSTILE, page, render } from "./helpers.js";

const state = (extra = {}) => ({
  css: "",
  header: "<b>Compression explorer</b> · 109 messages",
  curve: '<svg class="nb-hitl-explorer-curve" data-points="50"></svg>',
  totals: '<div class="nb-hitl-explorer-totals" data-fits="1"></div>',
  sweep: "",
  note: "",
  controls: {
    threshold: 8000,
    threshold_max: 21616,
    threshold_box_max: 1e9,
    keep: 6,
    keep_max: 100,
    keep_box_max: 108,
    budget: 9000,
    policy: "1/4 of what it folds (estimate)",
    policies: ["1/4 of what it folds (estimate)", HOSTILE],
    metric: "total_tokens",
    metrics: [
      ["total_tokens", "total tokens"],
      ["peak_prompt_tokens", "peak prompt tokens"],
    ],
    continuous: false,
    off: { cheapest: "Run the sweep first", apply: "No agent to apply to" },
  },
  ...extra,
});

function show(s = state()) {
  page();
  const model = new FakeModel({ snapshot: { v: 1, seq: 3, state: s } });
  const { el } = render(explorer, model);
  model.sent.length = 0;
  return { model, el };
}

const byText = (el, text) => [...el.querySelectorAll("button")].find((b) => b.textContent === text);

test("it draws the curve, the totals and the controls with their values", () => {
  const { el } = show();
  assert.ok(el.querySelector('[data-points="50"]'));
  const numbers = el.querySelectorAll("input[type=number]");
  assert.deepEqual(
    [...numbers].map((n) => n.value),
    ["8000", "6", "9000"],
  );
  assert.equal(numbers[1].max, "108");
  assert.equal(byText(el, "Use cheapest").disabled, true);
  assert.equal(byText(el, "Apply to agent").title, "No agent to apply to");
  const options = [...el.querySelectorAll("select")[0].options].map((o) => o.textContent);
  assert.deepEqual(options, ["1/4 of what it folds (estimate)", HOSTILE]);
  assert.equal(el.querySelector("img"), null, "an option label is text");
  for (const input of el.querySelectorAll("input, select")) {
    const labelled =
      input.getAttribute("aria-label") || el.querySelector(`label[for="${input.id}"]`);
    assert.ok(labelled, "every control has a label");
  }
});

test("its controls send the explorer's actions", () => {
  const { el, model } = show();
  const [range] = el.querySelectorAll("input[type=range]");
  range.value = "7000";
  range.dispatchEvent(new Event("input")); // not continuous (real summaries): waits
  range.dispatchEvent(new Event("change"));
  const budget = el.querySelectorAll("input[type=number]")[2];
  budget.value = "10";
  budget.dispatchEvent(new Event("change"));
  const [policy, metric] = el.querySelectorAll("select");
  policy.value = HOSTILE;
  policy.dispatchEvent(new Event("change"));
  metric.value = "peak_prompt_tokens";
  metric.dispatchEvent(new Event("change"));
  byText(el, "Run sweep").click();
  byText(el, "Use cheapest").click(); // off
  assert.deepEqual(model.actions(), [
    ["threshold", { value: 7000 }],
    ["budget", { value: 10 }],
    ["policy", { label: HOSTILE }],
    ["metric", { key: "peak_prompt_tokens" }],
    ["sweep", {}],
  ]);
});

test("a dragged slider sends at most one action per throttle step while continuous", async () => {
  const s = state();
  s.controls.continuous = true;
  const { el, model } = show(s);
  const [range] = el.querySelectorAll("input[type=range]");
  for (const v of [7000, 7100, 7200, 7300]) {
    range.value = String(v);
    range.dispatchEvent(new Event("input"));
  }
  assert.deepEqual(model.actions(), [["threshold", { value: 7000 }]]);
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.deepEqual(model.actions().at(-1), ["threshold", { value: 7300 }]);
});

test("the kernel's echo of an earlier value does not move a thumb being dragged", () => {
  const { el, model } = show();
  const [range] = el.querySelectorAll("input[type=range]");
  range.dispatchEvent(new Event("pointerdown"));
  range.value = "5000";
  range.dispatchEvent(new Event("input"));
  const echo = state();
  echo.controls.threshold = 7900;
  model.custom({ t: "ops", seq: 4, ops: [{ op: "set", key: "controls", value: echo.controls }] });
  assert.equal(range.value, "5000");
  range.dispatchEvent(new Event("change"));
  assert.deepEqual(model.actions().at(-1), ["threshold", { value: 5000 }]);
});
