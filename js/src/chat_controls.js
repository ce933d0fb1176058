// ChatControls' front end (nb_hitl/widgets/_controls.py): the chat's input, buttons, picker,
// status line and toolbar, one model, one view (js/src/chat/controls.js).
import { controlsView } from "./chat/controls.js";
import { panelView } from "./shared/panel.js";

export default {
  render: panelView({
    className: "nb-hitl-chat-controls",
    setup(ctx) {
      ctx.draw = controlsView(ctx.root, ctx.act);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
