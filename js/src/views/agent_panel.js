// The agent panel's view (nb_hitl/widgets/_panel.py, `AgentPanel`): one model draws it all.
//
// State: `css` (the kernel's stylesheet, once for every part), `chat` (the chat's state:
// chat/view.js), `chat_generation` (a new number when the kernel swapped the chat, after a
// session's Load: the chat is built afresh), `inspector` (the memory inspector's state:
// views/inspector.js; missing with `inspector=False`), `permissions` and `session` (the rows
// under the columns: views/panel.js; missing when left out) and `limits` (a remote agent's
// note, HTML the kernel rendered and escaped). Each part drawn here is the state of a panel
// with no model of its own (Python's `embed`): its ops arrive as `child` ops of the panel's
// batches, its actions leave as the panel's action named after the part, `{name, args}`.
//
// Layout: the chat and the inspector are the columns `nb-hitl-column-main` and
// `nb-hitl-column-side` of a wrapping row (`nb-hitl-columns`): side by side when both
// minimum widths fit, the inspector below the chat when they do not.
import { CHAT_OPS, chatView } from "../chat/view.js";
import { h } from "../shared/dom.js";
import { followPageTheme } from "../shared/host.js";
import { changedKeys, withChildren } from "../shared/ops.js";
import { inspectorView } from "./inspector.js";
import { panelRowsView } from "./panel.js";
import { kernelStyle } from "./style.js";

/** The panel's own ops: those of the parts drawn inside it (the chat's transcript's). */
export const AGENT_PANEL_OPS = withChildren({}, { chat: CHAT_OPS });

/**
 * Build the panel into `root`; returns `{draw(state, changed), teardown()}`. `act(name,
 * args)` sends an action of the panel; `model` is the model that carries it (the chat's Copy
 * answers, the kernel's liveness, widget rows); `el` the element the page gave the view.
 */
export function agentPanelView({ root, act, model, el = root }) {
  const style = kernelStyle(root);
  const part =
    (key) =>
    (name, args = {}) =>
      act(key, { name, args });

  const chatBox = h("div", { class: "nb-hitl-chat nb-hitl-column-main" });
  const sideBox = h("div", { class: "nb-hitl-inspector nb-hitl-column-side", hidden: true });
  const inspectorRoot = h("div", { class: "nbh-panel nbh-inspector" });
  sideBox.append(inspectorRoot);
  const columns = h("div", { class: "nb-hitl-columns" }, chatBox, sideBox);
  const rowsRoot = h("div", { class: "nbh-panel nbh-panel-rows" });
  const rows = h("div", { class: "nb-hitl-panel-parts" }, rowsRoot);
  root.append(columns, rows);
  // In a shadow root (marimo) the page's theme reaches the parts drawn as panels too.
  const unfollow = [followPageTheme(el, inspectorRoot), followPageTheme(el, rowsRoot)];

  let chat = null;
  let chatGeneration = null;
  const buildChat = (state) => {
    chat?.teardown();
    chatBox.replaceChildren();
    const chatRoot = h("div", { class: "nbh-chat" });
    chatBox.append(chatRoot);
    chat = chatView({ root: chatRoot, act: part("chat"), model, scope: chatRoot, initial: state });
  };
  let inspector = null;
  const drawRows = panelRowsView(rowsRoot, act);

  let prev = {};
  const draw = (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("css")) style(s.css);
    if (s.chat_generation !== chatGeneration || !chat) {
      buildChat(s.chat || {});
      chatGeneration = s.chat_generation;
      chat.draw(s.chat || {});
    } else if (all.has("chat")) {
      chat.draw(s.chat || {}, changedKeys(prev.chat, s.chat));
    }
    sideBox.hidden = !s.inspector;
    columns.classList.toggle("nbh-chat-only", !s.inspector);
    if (all.has("inspector")) {
      if (s.inspector) {
        if (!inspector) inspector = inspectorView(inspectorRoot, part("inspector"));
        inspector(s.inspector, changedKeys(prev.inspector, s.inspector));
      }
    }
    if (all.has("permissions") || all.has("session") || all.has("limits")) {
      const under = new Set(["permissions", "session", "limits"].filter((k) => all.has(k)));
      drawRows(s, under);
    }
    prev = s;
  };
  const teardown = () => {
    chat?.teardown();
    for (const off of unfollow) off();
  };
  return { draw, teardown };
}
