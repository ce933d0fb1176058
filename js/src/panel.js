// AgentPanel's front end (nb_hitl/widgets/_panel.py): the permissions list, the session bar
// and a remote agent's note, one model, one view.
import "./shared/theme.css";
import { panelView } from "./shared/panel.js";
import { panelRowsView } from "./views/panel.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-agent-panel",
    setup(ctx) {
      ctx.draw = panelRowsView(ctx.root, ctx.act);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
