// The front end of a rows segment (`RowsSegment`, nb_hitl/widgets/_segment.py): finished
// message rows kept by key (chat/segment.js). Bundled into nb_hitl/widgets/static/.

import { sendSync } from "../shared/actions.js";
import { copyState, SegmentView } from "./segment.js";

function render({ model, el }) {
  el.classList.add("nb-hitl-segment", "widget-container", "widget-box", "widget-vbox");
  const view = new SegmentView(el);
  view.reset(model.get("rows"));
  const onMsg = (msg) => {
    const verdict = view.apply(msg);
    if (verdict === "gap") sendSync(model, view.state.seq);
    // The current rows are the widget's state (a second view, a saved notebook); the kernel
    // holds the same value without sending it.
    else if (verdict === "ok" || verdict === "reset") model.set("rows", copyState(view.state));
  };
  const onRows = () => view.reset(model.get("rows"));
  model.on("msg:custom", onMsg);
  model.on("change:rows", onRows);
  sendSync(model, view.state.seq); // ops sent before this view existed: ask (answered if behind)
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:rows", onRows);
  };
}

export default { render };
