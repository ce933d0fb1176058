// SessionBar's front end shown on its own (nb_hitl/widgets/_session.py): one model, one view.
import "./shared/theme.css";
import { panelView } from "./shared/panel.js";
import { sessionView } from "./views/session.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-session-panel",
    setup(ctx) {
      ctx.draw = sessionView(ctx.root, ctx.act);
    },
    draw(ctx, state) {
      ctx.draw(state);
    },
  }),
};
