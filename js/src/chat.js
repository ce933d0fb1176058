// ChatWidget's front end (nb_hitl/widgets/_chat.py): one model draws the transcript, the
// controls and the keys (chat/view.js). Bundled into nb_hitl/widgets/static/chat.js (+ .css).
import "./shared/theme.css";
import "./chat/transcript.css";
import "./chat/keys.css";
import "./chat/chat.css";
import "./shared/shadow.css";
import { CHAT_OPS, chatView } from "./chat/view.js";
import { panelView } from "./shared/panel.js";

export default {
  render: panelView({
    className: "nbh-chat",
    extraOps: CHAT_OPS,
    setup(ctx) {
      const view = chatView({ ...ctx, initial: ctx.store.state });
      ctx.draw = view.draw;
      ctx.teardown = view.teardown;
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
