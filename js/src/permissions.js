// PermissionsView's front end shown on its own (nb_hitl/widgets/_permissions_view.py).
import "./shared/theme.css";
import { panelView } from "./shared/panel.js";
import { permissionsView } from "./views/permissions.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-permissions-panel",
    setup(ctx) {
      ctx.draw = permissionsView(ctx.root, ctx.act);
    },
    draw(ctx, state) {
      ctx.draw(state);
    },
  }),
};
