// The compression explorer's view: drawn on its own (explorer.js) or inside the inspector.
// The curve, totals and heat map are SVG/HTML the kernel rendered and escaped; the controls
// are built here and send the explorer's actions through `act`.
import { button, numberPair, select, setOff } from "../shared/controls.js";
import { h, setKernelHtml } from "../shared/dom.js";

/** Build the explorer into `root`; returns `draw(state)` to bring it up to date. */
export function explorerView(root, act) {
  const header = h("div", { class: "nbh-explorer-header" });
  const threshold = numberPair("threshold", (value) => act("threshold", { value }));
  const keep = numberPair("keep_recent", (value) => act("keep", { value }));
  const budgetId = `nbh-budget-${Math.random().toString(36).slice(2)}`;
  const budget = h("input", { type: "number", id: budgetId, min: 1, step: 1, class: "nbh-number" });
  budget.addEventListener("change", () => {
    const value = Number(budget.value);
    if (budget.value !== "" && Number.isFinite(value)) act("budget", { value });
  });
  const budgetRow = h(
    "div",
    { class: "nbh-pair" },
    h("label", { for: budgetId, class: "nbh-pair-label" }, "budget"),
    budget,
  );
  const policy = select("summary", (label) => act("policy", { label }));
  const metric = select("colour by", (key) => act("metric", { key }));
  const curve = h("div", { class: "nbh-explorer-curve" });
  const totals = h("div", { class: "nbh-explorer-totals" });
  const sweep = button("Run sweep", () => act("sweep"), { className: "nbh-sweep" });
  const cheapest = button("Use cheapest", () => act("cheapest"), { className: "nbh-cheapest" });
  const apply = button("Apply to agent", () => act("apply"), {
    className: "nbh-apply",
    title: "Set the agent's compression_config to these settings",
    primary: true,
  });
  const heat = h("div", { class: "nbh-explorer-sweep" });
  const note = h("div", { class: "nbh-note", role: "status", "aria-live": "polite" });
  root.append(
    header,
    h("div", { class: "nbh-row" }, threshold.row, keep.row),
    h("div", { class: "nbh-row" }, budgetRow, policy.row),
    curve,
    totals,
    h("div", { class: "nbh-row nbh-buttons" }, sweep, metric.row, cheapest, apply),
    heat,
    note,
  );
  const drawn = {};
  const html = (el, key, value) => {
    if (drawn[key] !== value) setKernelHtml(el, value || "");
    drawn[key] = value;
  };
  return (state) => {
    if (!state) return;
    html(header, "header", state.header);
    html(curve, "curve", state.curve);
    html(totals, "totals", state.totals);
    html(heat, "sweep", state.sweep);
    html(note, "note", state.note);
    const c = state.controls;
    if (!c) return;
    const off = c.off || {};
    threshold.set({
      value: c.threshold,
      min: 1,
      max: c.threshold_max,
      boxMax: c.threshold_box_max,
      continuous: c.continuous,
      off: off.threshold,
    });
    keep.set({
      value: c.keep,
      max: c.keep_max,
      boxMax: c.keep_box_max,
      continuous: c.continuous,
      off: off.keep,
    });
    if (budget.ownerDocument.activeElement !== budget) budget.value = String(c.budget);
    policy.set(
      (c.policies || []).map((p) => [p, p]),
      c.policy,
      off.policy,
    );
    metric.set(c.metrics || [], c.metric, off.metric);
    setOff(sweep, off.sweep);
    setOff(cheapest, off.cheapest);
    setOff(apply, off.apply);
  };
}
