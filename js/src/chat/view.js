// The chat's view (nb_hitl/widgets/_chat.py, `ChatWidget`): one model draws the whole chat.
//
// State: `css` (the kernel's stylesheet when the chat is shown on its own, else ""),
// `transcript` (the rows: chat/transcript.js), `controls` (the input, buttons, picker, status
// line and toolbar: chat/controls.js) and `keys` (the keyboard settings: chat/key_bindings.js).
// Each part is the state of a panel drawn here with no model of its own (Python's `embed`):
// its ops arrive as `child` ops of the chat's batches, its actions go out as the chat's
// action named after the part, `{name, args}`. A key press is the part `keys`' action
// `press` with `{action, text, form?}`; the kernel's answer to a Copy comes as a custom
// message `{copy, text}` on the chat's model.
import { withChildren } from "../shared/ops.js";
import { kernelStyle } from "../views/style.js";
import { embeddedControls } from "./controls.js";
import { bindKeys } from "./key_bindings.js";
import { EXTRA_OPS as TRANSCRIPT_OPS, transcriptView } from "./transcript.js";

/** The chat's own ops: those of the parts drawn inside it (the transcript's `live`). */
export const CHAT_OPS = withChildren({}, { transcript: TRANSCRIPT_OPS });

/** The keys of `next` whose values are not those of `prev` (all of them the first time). */
function changedKeys(prev, next) {
  const keys = new Set();
  for (const key of new Set([...Object.keys(prev || {}), ...Object.keys(next || {})]))
    if (!prev || prev[key] !== next?.[key]) keys.add(key);
  return keys;
}

/**
 * Build the chat into `root`; returns `{draw(state, changed), teardown()}`. `act(name, args)`
 * sends an action of the chat; `model` is the model that carries it (Copy answers, the
 * kernel's liveness, widget rows); `scope` the element the keys are looked up from (inside
 * the one with the class `nb-hitl-chat`).
 */
export function chatView({ root, act, model, scope = root, initial = {} }) {
  const style = kernelStyle(root);
  const transcriptBox = document.createElement("div");
  transcriptBox.className = "nb-hitl-transcript-view";
  const transcriptRoot = document.createElement("div");
  transcriptRoot.className = "nbh-panel nbh-transcript";
  transcriptBox.append(transcriptRoot);
  const controlsBox = document.createElement("div");
  controlsBox.className = "nb-hitl-controls";
  const controlsRoot = document.createElement("div");
  controlsRoot.className = "nb-hitl-chat-controls";
  controlsBox.append(controlsRoot);
  // The keys' mark (what a KeyBindings drew on its own): listening from here on.
  const keysMark = document.createElement("div");
  keysMark.className = "nb-hitl-keys";
  keysMark.hidden = true;
  root.append(transcriptBox, controlsBox, keysMark);

  const part =
    (key) =>
    (name, args = {}) =>
      act(key, { name, args });
  const drawTranscript = transcriptView(transcriptRoot, part("transcript"), model);
  const drawControls = embeddedControls(controlsRoot, act);

  let keys = initial.keys || {};
  const press = part("keys");
  const onMessage = (fn) => {
    if (!model?.on) return () => {};
    model.on("msg:custom", fn);
    return () => model.off?.("msg:custom", fn);
  };
  const unbind = bindKeys(scope, {
    model: model || {},
    setting: (name) => keys[name],
    send: (msg) => press("press", msg),
    onMessage,
  });

  let prev = {};
  const draw = (state, changed) => {
    const s = state || {};
    const all = changed || new Set(Object.keys(s));
    if (all.has("css")) style(s.css);
    if (all.has("keys")) keys = s.keys || {};
    if (all.has("transcript"))
      drawTranscript(s.transcript || {}, changedKeys(prev.transcript, s.transcript));
    if (all.has("controls")) drawControls(s.controls);
    prev = s;
  };
  return { draw, teardown: unbind };
}
