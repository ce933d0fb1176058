// MemoryInspector's front end (nb_hitl/widgets/_inspector.py): one model, one view.
import "./shared/theme.css";
import { panelView } from "./shared/panel.js";
import { inspectorView } from "./views/inspector.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-inspector",
    setup(ctx) {
      ctx.draw = inspectorView(ctx.root, ctx.act);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
