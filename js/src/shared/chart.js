// The inspector's chart: prompt tokens step by step (replayed calls, live calls, compressions,
// undos, the prompt now), with the threshold line only when there is a threshold.
import { formatCount, h, svg } from "./dom.js";

const W = 400;
export const KINDS = {
  replayed: ["grey", "replayed call"],
  turn: ["blue", "call in this session"],
  now: ["blue", "now"],
  compress: ["purple", "compressed"],
  undo: ["green", "undone"],
};

const colour = (name) => `var(--nb-hitl-${name})`;

function marker(kind, x, y, tip) {
  const fill = colour((KINDS[kind] || KINDS.turn)[0]);
  const title = svg("title", {}, tip);
  if (kind === "compress") {
    const d = `M${(x - 5).toFixed(1)},${(y - 4).toFixed(1)} h10 l-5,8 z`;
    return svg("path", { class: "nb-hitl-compression-mark", d, fill }, title);
  }
  if (kind === "undo") {
    const d = `M${(x - 5).toFixed(1)},${(y + 4).toFixed(1)} h10 l-5,-8 z`;
    return svg("path", { class: "nb-hitl-undo-mark", d, fill }, title);
  }
  const r = kind === "replayed" ? 2 : 3.5;
  return svg(
    "circle",
    { class: `nb-hitl-point-${kind}`, cx: x.toFixed(1), cy: y.toFixed(1), r, fill },
    title,
  );
}

function legend(items) {
  return h(
    "div",
    { class: "nb-hitl-legend" },
    items.map(([name, style, label]) =>
      h(
        "span",
        {},
        h("i", {
          class: `nb-hitl-swatch nb-hitl-swatch-${style}`,
          style: `${style === "dash" ? "border-color" : "background"}:${colour(name)}`,
        }),
        label,
      ),
    ),
  );
}

/** The points' x and y in the chart's viewBox (exported for tests). */
export function layout(steps, threshold, height = 150) {
  const left = 48;
  const topPad = 8;
  const inner = height - topPad - 6;
  const peak = Math.max(...steps.map((s) => s[1]), threshold || 0, 1);
  const top = peak * 1.1;
  const px = (i) => left + ((W - left - 6) * i) / Math.max(steps.length - 1, 1);
  const py = (v) => topPad + inner * (1 - v / top);
  return { left, topPad, inner, peak, px, py };
}

function chartLabel(steps, threshold) {
  const last = steps[steps.length - 1][1];
  return `Prompt tokens over ${steps.length} steps, now ${formatCount(last)}${
    threshold > 0 ? `, threshold ${formatCount(threshold)}` : ", no threshold"
  }`;
}

/**
 * Move the threshold line of the chart drawn in `box` from `from` to `to` in place (a what-if
 * move: same points), instead of drawing every point again. False (nothing changed) when it
 * cannot: no line before or after (the legend changes) or a new scale (the line was or
 * becomes the peak); then draw the chart anew with `stepsChart`.
 */
export function moveThreshold(box, steps, from, to, height = 150) {
  if (!(from > 0 && to > 0) || !steps.length) return false;
  const chart = box.querySelector("svg.nb-hitl-chart");
  const line = chart?.querySelector(".nb-hitl-chart-threshold");
  if (!line) return false;
  const { peak, py } = layout(steps, to, height);
  if (peak !== layout(steps, from, height).peak) return false;
  const y = py(to).toFixed(1);
  line.setAttribute("y1", y);
  line.setAttribute("y2", y);
  const title = line.querySelector("title");
  if (title) title.textContent = `trigger_threshold: ${formatCount(to)}`;
  chart.setAttribute("aria-label", chartLabel(steps, to));
  return true;
}

/** The chart as DOM: legend, SVG, caption. `steps`: `[kind, tokens, hover text]`. */
export function stepsChart(steps, threshold, height = 150) {
  if (!steps.length) return [svg("svg", { class: "nb-hitl-chart", width: "100%", height: 20 })];
  const { left, topPad, inner, peak, px, py } = layout(steps, threshold, height);
  const base = (topPad + inner).toFixed(1);
  const parts = [
    svg("line", { x1: left, y1: base, x2: W - 4, y2: base, stroke: colour("grey") }),
    svg("polyline", {
      class: "nb-hitl-chart-line",
      fill: "none",
      "stroke-width": 1.2,
      stroke: colour("blue"),
      points: steps.map(([, v], i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(" "),
    }),
  ];
  if (threshold > 0) {
    const y = py(threshold).toFixed(1);
    parts.push(
      svg(
        "line",
        {
          class: "nb-hitl-chart-threshold",
          x1: left,
          y1: y,
          x2: W - 4,
          y2: y,
          "stroke-dasharray": "4,3",
          stroke: colour("red"),
        },
        svg("title", {}, `trigger_threshold: ${formatCount(threshold)}`),
      ),
    );
  }
  steps.forEach(([kind, v, tip], i) => {
    parts.push(marker(kind, px(i), py(v), tip));
  });
  parts.push(
    svg(
      "text",
      { x: left - 4, y: (py(peak) + 4).toFixed(1), "font-size": 12, "text-anchor": "end" },
      formatCount(peak),
    ),
    svg("text", { x: left - 4, y: base, "font-size": 12, "text-anchor": "end" }, "0"),
  );
  const kinds = Object.keys(KINDS).filter((k) => steps.some((s) => s[0] === k));
  const items = kinds.map((k) => [KINDS[k][0], "dot", KINDS[k][1]]);
  if (threshold > 0) items.push(["red", "dash", "threshold"]);
  const label = chartLabel(steps, threshold);
  return [
    legend(items),
    svg(
      "svg",
      {
        class: "nb-hitl-chart",
        viewBox: `0 0 ${W} ${height}`,
        width: "100%",
        height,
        role: "img",
        "aria-label": label,
        "data-steps": steps.length,
      },
      parts,
    ),
    h("div", { class: "nb-hitl-caption" }, "prompt tokens, step by step (hover a point)"),
  ];
}
