// A panel's view: its store, its root element, and cleanup when the view goes.
import "./icons.css";
import { sendAction } from "./actions.js";
import { followPageTheme } from "./host.js";
import { announceModules } from "./modules.js";
import { storeFor } from "./store.js";

/**
 * The anywidget `render` of a panel drawn by `draw(ctx, state, changed)`.
 *
 * `setup(ctx)` runs once per view and builds the static frame in `ctx.root`; `draw` runs with
 * the whole state first (every key changed) and then after every change. `ctx.act(name, args)`
 * sends an action. Returns anywidget's cleanup function.
 */
export function panelView({ className, setup, draw, extraOps }) {
  return ({ model, el }) => {
    const store = storeFor(model, extraOps);
    // The model's classes (`add_class`): ipywidgets' view puts them on `el`, a host without
    // it (marimo, a panel drawn inside another) does not, so the panel does.
    const classes = () => {
      for (const name of model.get("_dom_classes") || []) el.classList.add(name);
    };
    classes();
    model.on("change:_dom_classes", classes);
    const root = document.createElement("div");
    root.className = className;
    el.append(root);
    const unfollow = followPageTheme(el, root); // marimo: a shadow root (shared/host.js)
    const ctx = { model, el, root, act: (name, args) => sendAction(model, name, args), store };
    announceModules(model);
    setup?.(ctx);
    const all = () => new Set(Object.keys(store.state));
    draw(ctx, store.state, all(), "reset");
    const off = store.subscribe((state, changed, verdict) => draw(ctx, state, changed, verdict));
    return () => {
      off();
      unfollow();
      model.off?.("change:_dom_classes", classes);
      ctx.teardown?.();
      root.remove();
    };
  };
}
