// The chat transcript's front end (nb_hitl/widgets/_transcript_view.py): one model draws
// every row (chat/transcript.js). Bundled into nb_hitl/widgets/static/transcript.js.
import "./shared/theme.css";
import "./chat/transcript.css";
import { EXTRA_OPS, transcriptView } from "./chat/transcript.js";
import { panelView } from "./shared/panel.js";

export default {
  render: panelView({
    className: "nbh-panel nbh-transcript",
    extraOps: EXTRA_OPS,
    setup(ctx) {
      ctx.draw = transcriptView(ctx.root, ctx.act, ctx.model);
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
