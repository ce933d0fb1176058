// Test helpers: a happy-dom page and a fake anywidget model that records what the view sends.
import { Window } from "happy-dom";

/** Install a fresh happy-dom window as the globals a view uses; returns it. */
export function page() {
  const window = new Window({ url: "http://localhost/" });
  globalThis.window = window;
  globalThis.document = window.document;
  globalThis.Node = window.Node;
  globalThis.HTMLElement = window.HTMLElement;
  globalThis.KeyboardEvent = window.KeyboardEvent;
  globalThis.MouseEvent = window.MouseEvent;
  globalThis.Event = window.Event;
  globalThis.Element = window.Element;
  globalThis.MutationObserver = window.MutationObserver;
  globalThis.navigator = window.navigator;
  return window;
}

/** anywidget's model as a view sees it: traits, events, `send` (recorded in `sent`). */
export class FakeModel {
  constructor(traits = {}) {
    this.traits = { ...traits };
    this.handlers = new Map();
    this.sent = [];
  }
  get(name) {
    return this.traits[name];
  }
  set(name, value) {
    this.traits[name] = value;
  }
  save_changes() {}
  on(event, fn) {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event).add(fn);
  }
  off(event, fn) {
    this.handlers.get(event)?.delete(fn);
  }
  send(content) {
    this.sent.push(content);
  }
  /** The kernel sends a custom message. */
  custom(content) {
    for (const fn of this.handlers.get("msg:custom") || []) fn(content, []);
  }
  /** The kernel changes a trait. */
  change(name, value) {
    this.traits[name] = value;
    for (const fn of this.handlers.get(`change:${name}`) || []) fn();
  }
  /** The actions the view sent, as `[name, args]`. */
  actions() {
    return this.sent.filter((m) => m.t === "action").map((m) => [m.name, m.args]);
  }
}

/** Render `widget` (an anywidget module's default export) into a new element. */
export function render(widget, model) {
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = widget.render({ model, el });
  return { el, cleanup };
}

/** A hostile string: markup, an event handler, a script, quotes. */
export const HOSTILE = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>"'&`;
