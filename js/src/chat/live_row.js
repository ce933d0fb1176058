// The front end of a streaming row (`LiveMessage`, nb_hitl/widgets/_live_delta.py): a
// snapshot plus deltas (chat/rows.js). Bundled into nb_hitl/widgets/static/live_row.js.

import { sendSync } from "../shared/actions.js";
import { copyRow, RowView, syncClasses } from "./rows.js";

function render({ model, el }) {
  el.classList.add("nb-hitl-live-row");
  const view = new RowView(el);
  view.reset(model.get("snapshot"));
  let classes = syncClasses(el, model.get("_dom_classes"), new Set());
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sendSync(model, view.row.seq);
    // The final row is the widget's state from now on (a saved notebook, a second view): the
    // kernel holds the same value without sending it again.
    else if (verdict === "ok" && view.row.done) model.set("snapshot", copyRow(view.row));
  };
  const onSnapshot = () => view.reset(model.get("snapshot"));
  const onClasses = () => {
    classes = syncClasses(el, model.get("_dom_classes"), classes);
  };
  model.on("msg:custom", onMsg);
  model.on("change:snapshot", onSnapshot);
  model.on("change:_dom_classes", onClasses);
  // Deltas sent before this view existed are not in the trait: ask for the current state.
  if (!view.row.done) sendSync(model, view.row.seq);
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:snapshot", onSnapshot);
    model.off("change:_dom_classes", onClasses);
  };
}

export default { render };
