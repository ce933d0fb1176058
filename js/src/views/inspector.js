// The memory inspector's view (nb_hitl/widgets/_inspector.py): drawn by inspector.js on its
// own, or inside another panel that embeds the inspector (PanelModel.embed).
//
// State: `header`, `approx`, `bar`, `plan`, `table`, `note` (HTML the kernel rendered and
// escaped), `chart` ({steps: [kind, tokens, tip], threshold}), `controls` (the what-if values,
// ranges and the controls that are off, with why), `explorer` (an explorer drawn inside, or
// null), `remote` (a remote agent's state view drawn inside, or missing) and `css` (the
// kernel's stylesheet when shown on its own).
import "../inspector.css";
import "../explorer.css";
import { moveThreshold, stepsChart } from "../shared/chart.js";
import { button, numberPair, setOff, uid } from "../shared/controls.js";
import { h, replaceChildren, setKernelHtml } from "../shared/dom.js";
import { explorerView } from "./explorer.js";
import { remoteView } from "./remote.js";
import { kernelStyle } from "./style.js";

/**
 * Build the inspector into `root`; returns `draw(state, changed)` (`changed`: the state keys
 * that changed, all of them the first time). `act(name, args)` sends an action.
 */
export function inspectorView(root, act) {
  const ctx = { root, act };
  ctx.style = kernelStyle(root);
  const part = (cls, attrs = {}) => h("div", { class: cls, ...attrs });
  const els = {
    header: part("nbh-inspector-header"),
    approx: part("nbh-inspector-approx"),
    bar: part("nbh-inspector-bar"),
    plan: part("nbh-inspector-plan"),
    note: part("nbh-note", { role: "status", "aria-live": "polite" }),
    chart: part("nbh-inspector-chart"),
    table: part("nb-hitl-table-box nbh-inspector-table", {
      role: "region",
      "aria-label": "Memory",
      tabindex: 0,
    }),
    explorer: part("nbh-inspector-explorer"),
    remote: part("nbh-inspector-remote"),
  };
  const threshold = numberPair("threshold", (value) => act("threshold", { value }));
  const keep = numberPair("keep_recent", (value) => act("keep", { value }));
  const buttons = {
    compress: button("Compress now", () => act("compress"), { className: "nbh-compress" }),
    undo: button("Undo", () => act("undo"), { className: "nbh-undo" }),
    reset: button("Reset what-if", () => act("reset"), { className: "nbh-reset" }),
    explore: button("Explore settings", () => act("explore"), {
      className: "nbh-explore",
      title: "Replay this conversation under any threshold and keep_recent, and sweep",
    }),
  };
  const pinId = uid("nbh-pin");
  const pinRef = h("input", {
    type: "text",
    id: pinId,
    class: "nbh-pin-ref",
    placeholder: "row # or message id",
    "aria-label": "Row number or message id to pin",
  });
  const pin = button("Pin", () => act("pin", { ref: pinRef.value }), {
    className: "nbh-pin",
    title: "Pin (Enter)",
  });
  const unpin = button("Unpin", () => act("unpin", { ref: pinRef.value }), {
    className: "nbh-unpin",
  });
  pinRef.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      pin.click();
    }
  });
  const showAll = button(
    "Show all rows",
    () => act("show_all", { value: showAll.getAttribute("aria-pressed") !== "true" }),
    {
      className: "nbh-show-all",
    },
  );
  showAll.setAttribute("aria-pressed", "false");
  const controls = h(
    "div",
    { class: "nbh-controls", role: "group", "aria-label": "What-if compression settings" },
    h("div", { class: "nbh-row" }, threshold.row),
    h("div", { class: "nbh-row" }, keep.row),
    h("div", { class: "nbh-row nbh-buttons" }, Object.values(buttons)),
    h("div", { class: "nbh-row nbh-buttons" }, pinRef, pin, unpin, showAll),
  );
  root.append(
    els.header,
    els.approx,
    els.bar,
    els.plan,
    controls,
    els.explorer,
    els.note,
    els.chart,
    els.table,
    els.remote,
  );
  Object.assign(ctx, { els, threshold, keep, buttons, pinRef, pin, unpin, showAll, drawn: {} });
  return (state, changed) => draw(ctx, state || {}, changed || new Set(Object.keys(state || {})));
}

function draw(ctx, state, changed) {
  const { els, drawn } = ctx;
  if (changed.has("css")) ctx.style(state.css);
  for (const key of ["header", "approx", "bar", "plan", "note", "table"]) {
    if (changed.has(key) && drawn[key] !== state[key]) {
      setKernelHtml(els[key], state[key] || "");
      drawn[key] = state[key];
    }
  }
  if (changed.has("chart")) {
    const chart = state.chart || { steps: [], threshold: 0 };
    const was = ctx.chart;
    // A `merge` op of the threshold alone keeps the points (the same array): the line moves.
    const moved =
      was?.steps === chart.steps &&
      moveThreshold(els.chart, chart.steps, was.threshold, chart.threshold);
    if (!moved)
      replaceChildren(
        els.chart,
        chart.steps.length ? stepsChart(chart.steps, chart.threshold) : [],
      );
    ctx.chart = chart;
  }
  if (changed.has("controls") && state.controls) {
    const c = state.controls;
    const off = c.off || {};
    ctx.threshold.set({
      value: c.threshold,
      max: c.threshold_max,
      boxMax: c.threshold_box_max,
      off: off.threshold,
    });
    ctx.keep.set({ value: c.keep, max: c.keep_max, boxMax: c.keep_box_max, off: off.keep });
    for (const [name, el] of Object.entries(ctx.buttons)) setOff(el, off[name]);
    setOff(ctx.pinRef, off.pin);
    setOff(ctx.pin, off.pin);
    setOff(ctx.unpin, off.unpin);
    setOff(ctx.showAll, off.show_all);
    ctx.showAll.setAttribute("aria-pressed", String(Boolean(c.show_all)));
    ctx.showAll.textContent = c.show_all ? "Show recent rows" : "Show all rows";
  }
  if (changed.has("explorer")) {
    if (state.explorer && !ctx.explorer) {
      els.explorer.classList.add("nb-hitl-explorer"); // drawn: the explorer's own rules apply
      const act = (name, args = {}) => ctx.act("explorer", { name, args });
      ctx.explorer = explorerView(els.explorer, act);
    }
    if (ctx.explorer) ctx.explorer(state.explorer);
  }
  if (changed.has("remote") && state.remote) {
    if (!ctx.remote) {
      els.remote.classList.add("nb-hitl-remote-state");
      ctx.remote = remoteView(els.remote);
    }
    ctx.remote(state.remote);
  }
}
