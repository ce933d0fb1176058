// CompressionExplorer's front end (nb_hitl/widgets/_explorer.py): one model, one view.
import "./shared/theme.css";
import "./explorer.css";
import { panelView } from "./shared/panel.js";
import { explorerView } from "./views/explorer.js";
import { kernelStyle } from "./views/style.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-explorer",
    setup(ctx) {
      ctx.style = kernelStyle(ctx.root);
      ctx.draw = explorerView(ctx.root, ctx.act);
    },
    draw(ctx, state) {
      ctx.style(state.css);
      ctx.draw(state);
    },
  }),
};
