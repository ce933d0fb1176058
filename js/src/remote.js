// RemoteStateView's front end shown on its own (nb_hitl/widgets/_remote_view.py).
import "./shared/theme.css";
import { panelView } from "./shared/panel.js";
import { remoteView } from "./views/remote.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-remote-panel",
    setup(ctx) {
      ctx.draw = remoteView(ctx.root);
    },
    draw(ctx, state) {
      ctx.draw(state);
    },
  }),
};
