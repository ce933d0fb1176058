// AgentPanel's front end (nb_hitl/widgets/_panel.py): one model draws the chat, the memory
// inspector and the rows under them (views/agent_panel.js). Bundled into
// nb_hitl/widgets/static/agent_panel.js (+ .css).
import "./shared/theme.css";
import "./chat/transcript.css";
import "./chat/keys.css";
import "./chat/chat.css";
import "./shared/shadow.css";
import "./agent_panel.css";
import { panelView } from "./shared/panel.js";
import { AGENT_PANEL_OPS, agentPanelView } from "./views/agent_panel.js";

export default {
  render: panelView({
    className: "nbh-agent-panel",
    extraOps: AGENT_PANEL_OPS,
    setup(ctx) {
      const view = agentPanelView({ ...ctx, initial: ctx.store.state });
      ctx.draw = view.draw;
      ctx.teardown = view.teardown;
    },
    draw(ctx, state, changed) {
      ctx.draw(state, changed);
    },
  }),
};
