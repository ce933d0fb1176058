// HubPanel's front end (nb_hitl/widgets/hub/_panel.py): one model, one view, for the whole
// multi-agent discussion. Bundled into nb_hitl/widgets/static/hub.js (+ hub.css).
import "./shared/theme.css";
import "./chat/transcript.css";
import "./hub.css";
import { LIVE_OPS } from "./shared/live_row.js";
import { panelView } from "./shared/panel.js";
import { hubView } from "./views/hub.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-hub",
    extraOps: LIVE_OPS,
    setup(ctx) {
      ctx.draw = hubView(ctx);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
