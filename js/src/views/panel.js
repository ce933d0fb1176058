// The agent panel's view (nb_hitl/widgets/_panel.py): the rows under the columns, each a part
// of the state drawn by its own view: `permissions` (the permissions list's state),
// `session` (the session bar's), both panels drawn here with no model of their own, and
// `limits` (a remote agent's note, HTML the kernel rendered and escaped). A part that is
// missing (no session file, an agent without a permission policy) is not drawn.
import "../panel.css";
import { h, setKernelHtml } from "../shared/dom.js";
import { permissionsView } from "./permissions.js";
import { sessionView } from "./session.js";

const PARTS = [
  ["permissions", "nb-hitl-permissions", permissionsView],
  ["session", "nb-hitl-session-bar", sessionView],
];

/** Build the rows into `root`; returns `draw(state, changed)`. */
export function panelRowsView(root, act) {
  const views = {};
  const els = {};
  for (const [key, cls] of PARTS) {
    els[key] = h("div", { class: `nbh-part ${cls}`, hidden: true });
    root.append(els[key]);
  }
  const limits = h("div", { class: "nbh-part nbh-limits" });
  root.append(limits);
  let drawnLimits = null;
  return (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    for (const [key, , view] of PARTS) {
      if (!all.has(key)) continue;
      const part = s[key];
      els[key].hidden = !part;
      if (!part) continue;
      if (!views[key]) views[key] = view(els[key], (name, args = {}) => act(key, { name, args }));
      views[key](part);
    }
    if (s.limits !== drawnLimits) {
      setKernelHtml(limits, s.limits || "");
      drawnLimits = s.limits;
    }
  };
}
