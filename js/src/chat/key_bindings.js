// The front end of `KeyBindings` (nb_hitl/widgets/_keys.py): keyboard shortcuts inside one
// widget, its row buttons and Copy buttons, Stop drawn at once, and its liveness banner.
// Bundled into nb_hitl/widgets/static/keys.js; a chat draws the same keys inside its own view
// (js/src/chat.js: `bindKeys` with the chat's part `keys` as the settings).
import {
  areaFocused,
  bindingFor,
  copyText,
  formValues,
  goInactive,
  INACTIVE,
  labelRegions,
  markStopping,
  origin,
  toggleChoice,
} from "./keys.js";

/**
 * Listen for the keys, clicks and liveness of the widget around `el`. `io.setting(name)`
 * reads a setting (`scope`, `bindings`, `stop_button`...: the `KeyBindings` traits);
 * `io.send(msg)` sends `{action, text, form?}` to the kernel; `io.onMessage(fn)` gets the
 * kernel's custom messages (a Copy's `{copy, text}`); `io.model` is the widget's model (the
 * kernel's liveness). Returns the function that stops listening.
 */
export function bindKeys(el, io) {
  const { model } = io;
  const setting = (name) => io.setting(name);
  const root = () => el.closest(`.${setting("scope")}`);
  const listeners = [];
  const listen = (type, fn) => {
    window.addEventListener(type, fn, true);
    listeners.push([type, fn]);
  };
  // The transcript's role (a log) once the widgets around this one are in the page.
  let regions = null;
  if (!labelRegions(root())) {
    regions = new MutationObserver(() => {
      if (labelRegions(root())) regions.disconnect();
    });
    regions.observe(document.body, { childList: true, subtree: true });
    setTimeout(() => regions.disconnect(), 10000);
  }
  const stopping = () => markStopping(root(), setting("stopping_rows"), setting("stop_button"));

  // Stop drawn in the click's frame: the kernel's answer takes a round trip, under load longer
  // than a person waits. The kernel's next change to the row's classes ends the guess.
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("stop_button");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    if (scope.contains(origin(ev)) && origin(ev).closest(selector)) stopping();
  });

  // A long text is not in the page: the kernel sends it on request ({copy: id, text}).
  const asked = new Map();
  const offMessage = io.onMessage((msg) => {
    if (msg && typeof msg.copy === "string" && asked.has(msg.copy)) {
      asked.get(msg.copy)(typeof msg.text === "string" ? msg.text : null);
      asked.delete(msg.copy);
    }
  });
  const fetchText = (id) =>
    new Promise((resolve) => {
      asked.set(id, resolve);
      io.send({ action: "copy", text: id });
      setTimeout(() => {
        if (asked.has(id)) {
          asked.delete(id);
          resolve(null);
        }
      }, 10000);
    });
  async function copyFetched(id) {
    const text = fetchText(id);
    // A ClipboardItem given a promise keeps the click's permission while the text arrives.
    if (window.isSecureContext && window.ClipboardItem && navigator.clipboard?.write) {
      try {
        const blob = text.then((t) => {
          if (t === null) throw new Error("the kernel did not answer");
          return new Blob([t], { type: "text/plain" });
        });
        await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
        return true;
      } catch {
        // the fallback below
      }
    }
    const got = await text;
    return got === null ? false : copyText(got);
  }
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("copy_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const fetched = button.dataset.copyId !== undefined && button.dataset.copy === undefined;
    const copying = fetched
      ? copyFetched(button.dataset.copyId)
      : copyText(button.dataset.copy || "");
    copying.then((done) => {
      button.classList.toggle("nb-hitl-copied", done);
      button.title = done ? "Copied" : "Copy failed: select the text and press Ctrl+C";
      setTimeout(() => {
        button.classList.remove("nb-hitl-copied");
        button.title = "Copy this message";
      }, 1500);
    });
  });

  // Row buttons (Edit, Regenerate, the branch switcher's arrows) carry an action and its
  // argument: a click (or Enter / Space on the focused button) sends them to the kernel.
  listen("click", (ev) => {
    const scope = root();
    const selector = setting("action_buttons");
    if (!scope || !selector || !(origin(ev) instanceof Element)) return;
    const button = origin(ev).closest(selector);
    if (!button || !scope.contains(button) || button.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    const msg = { action: button.dataset.nbHitlAction || "", text: button.dataset.nbHitlArg || "" };
    const card = button.closest("[data-nb-hitl-card]");
    if (card) msg.form = formValues(card); // a card's button: its controls' values come along
    io.send(msg);
  });

  // A question's choices toggle in the page; their picks go with "Send answers".
  listen("click", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Element)) return;
    const choice = origin(ev).closest("[data-nb-hitl-choice]");
    if (!choice || !scope.contains(choice) || choice.disabled) return;
    if (scope.classList.contains(INACTIVE)) return;
    toggleChoice(choice);
  });

  // "Focus inside the panel" also covers a click on text that takes no focus (the transcript):
  // the browser then focuses the notebook around it. The panel counts as focused from a press
  // inside it until a press elsewhere, while its cell is the notebook's active one.
  const panel = () => el.closest(`.${setting("focus_scope") || setting("scope")}`) || root();
  let pointed = false;
  listen("pointerdown", (ev) => {
    const area = panel();
    pointed = !!area && origin(ev) instanceof Node && area.contains(origin(ev));
  });

  listen("keydown", (ev) => {
    const scope = root();
    if (!scope || !(origin(ev) instanceof Node)) return;
    if (scope.classList.contains(INACTIVE) || ev.isComposing) return;
    const inside = scope.contains(origin(ev));
    if (!inside && !areaFocused(panel(), origin(ev), pointed, el.closest(".jp-Cell"))) return;
    const found = bindingFor(ev, setting("bindings"), scope, inside);
    if (!found) return;
    const { binding: b, field } = found;
    const near = b.near ? origin(ev).closest(b.near) || scope : scope;
    ev.preventDefault();
    ev.stopPropagation();
    ev.stopImmediatePropagation();
    if (b.click) {
      const button = near.querySelector(b.click);
      if (button && !button.disabled) button.click();
    }
    if (b.action && b.action === setting("stop_action")) stopping();
    if (b.action) {
      const sel = "textarea, input";
      const box = field.matches(sel) ? field : field.querySelector(sel);
      const text = box ? box.value : "";
      io.send({ action: b.action, text });
      if (b.clear && box && text.trim()) {
        box.value = "";
        box.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
  });

  let inactive = false;
  function offline() {
    if (inactive) return;
    const scope = el.closest(`.${setting("inactive_scope")}`) || root();
    if (!scope) return;
    inactive = true;
    goInactive(scope, setting("inactive_text"));
  }
  if (setting("inactive_scope")) model.on?.("comm_live_update", offline);

  // A shutdown (or a new kernel) does not touch the comms: watch the kernel itself.
  const wm = model.widget_manager;
  const kernelOf = () => {
    try {
      return wm?.kernel;
    } catch {
      return undefined;
    }
  };
  const firstId = kernelOf()?.id;
  const timer =
    firstId && setting("inactive_scope")
      ? setInterval(() => {
          const k = kernelOf();
          if (!k || k.isDisposed || k.id !== firstId || k.status === "dead") offline();
        }, 1000)
      : null;

  return () => {
    for (const [type, fn] of listeners) window.removeEventListener(type, fn, true);
    regions?.disconnect();
    if (timer) clearInterval(timer);
    model.off?.("comm_live_update", offline);
    offMessage?.();
  };
}

/** The anywidget `render` of `KeyBindings` shown on its own: an invisible element. */
function render({ model, el }) {
  el.classList.add("nb-hitl-keys");
  el.style.display = "none";
  const onMessage = (fn) => {
    model.on("msg:custom", fn);
    return () => model.off?.("msg:custom", fn);
  };
  const setting = (name) => model.get(name);
  return bindKeys(el, { model, setting, send: (msg) => model.send(msg), onMessage });
}

export default { render };
