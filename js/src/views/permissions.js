// The permissions list's view (nb_hitl/widgets/_permissions_view.py): drawn by permissions.js
// on its own, or inside the agent panel (panel.js) as its part `permissions`.
//
// State: `controls` ({shown, mode, modes: [value, label]} for the picker), `mode_html` (what the
// mode means), `rules` and `tasks` ([{id, html}]: each rule with its source and Revoke, each running
// background task with Stop), `note` (an error) and `css`. The HTML parts are the kernel's,
// rendered and escaped; ids go back only as action arguments.
import "../panel.css";
import { button, select } from "../shared/controls.js";
import { h, replaceChildren, setKernelHtml } from "../shared/dom.js";
import { kernelStyle } from "./style.js";

/** Build the list into `root`; returns `draw(state)`. `act(name, args)` sends an action. */
export function permissionsView(root, act) {
  const style = kernelStyle(root);
  const picker = select("Permissions", (value) => act("mode", { value }));
  picker.select.classList.add("nb-hitl-permission-mode-picker");
  const modeText = h("span", { class: "nbh-permission-mode-text" });
  const rules = h("div", { class: "nb-hitl-rules", role: "list", "aria-label": "Rules" });
  const tasks = h("div", {
    class: "nb-hitl-tasks",
    role: "list",
    "aria-label": "Background tasks",
  });
  const note = h("div", { class: "nb-hitl-approval-error nbh-note", role: "alert" });
  const box = h(
    "div",
    { class: "nbh-permissions", role: "group", "aria-label": "Permissions" },
    h("div", { class: "nbh-row nbh-permission-mode-row" }, picker.row, modeText),
    rules,
    tasks,
    note,
  );
  root.append(box);
  const drawn = {};
  const row = (cls, item, label, name, extra) =>
    h(
      "div",
      { class: ["nbh-row", cls], role: "listitem", dataset: { id: item.id } },
      setKernelHtml(h("span", { class: `${cls}-text` }), item.html),
      button(label, () => act(name, { id: item.id }), extra),
    );
  return (state) => {
    const s = state || {};
    const c = s.controls || {};
    style(s.css);
    box.hidden = !c.shown;
    picker.set(c.modes || [], c.mode);
    if (drawn.mode !== s.mode_html) setKernelHtml(modeText, s.mode_html || "");
    drawn.mode = s.mode_html;
    const ruleKey = JSON.stringify(s.rules || []);
    if (drawn.rules !== ruleKey) {
      const items = (s.rules || []).map((r) =>
        row("nb-hitl-rule", r, "Revoke", "revoke", {
          className: "nb-hitl-revoke",
          title: "Remove this rule",
        }),
      );
      replaceChildren(
        rules,
        items.length
          ? items
          : h("i", { class: "nbh-rules-empty" }, "No permission rules: the mode decides."),
      );
      drawn.rules = ruleKey;
    }
    const taskKey = JSON.stringify(s.tasks || []);
    if (drawn.tasks !== taskKey) {
      replaceChildren(
        tasks,
        (s.tasks || []).map((t) =>
          row("nb-hitl-task", t, "Stop", "stop", {
            className: "nb-hitl-stop-task nbh-warning",
            title: "Stop this background task",
          }),
        ),
      );
      drawn.tasks = taskKey;
    }
    if (drawn.note !== s.note) setKernelHtml(note, s.note || "");
    drawn.note = s.note;
  };
}
