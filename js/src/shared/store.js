// A panel model's state on the page: the sequenced snapshot, kept once per model and shared
// by all its views (a second `display` of the same widget draws the same state).
import { sendSync } from "./actions.js";
import { readSnapshot, reduce } from "./ops.js";

const stores = new WeakMap();

/**
 * The store of `model` (made on first use): `{snapshot, state, subscribe(fn)}`.
 *
 * It listens to the model's custom messages, applies op batches in order, asks the kernel for
 * a snapshot after a gap (and once when made: ops sent before the view existed are not in the
 * trait it started from; the kernel answers only when the view is behind), and stores each new
 * snapshot in the model (`model.set`, no `save_changes`) so a later view and a saved notebook
 * start from it. `fn(state, changed, verdict)` runs after every change.
 */
export function storeFor(model, extraOps = {}) {
  let store = stores.get(model);
  if (store) return store;
  const listeners = new Set();
  let snapshot = readSnapshot(model.get("snapshot"));
  let waiting = false;
  const notify = (changed, verdict) => {
    for (const fn of listeners) fn(snapshot.state, changed, verdict);
  };
  const onMessage = (msg) => {
    const out = reduce(snapshot, msg, extraOps);
    if (out.verdict === "gap") {
      if (!waiting) sendSync(model, snapshot.seq);
      waiting = true;
      return;
    }
    if (out.verdict === "stale") return;
    waiting = false;
    snapshot = out.snapshot;
    model.set("snapshot", snapshot);
    notify(out.changed, out.verdict);
  };
  // A trait update from the kernel (a reloaded page's state, a kernel that resent it).
  const onTrait = () => {
    const next = readSnapshot(model.get("snapshot"));
    if (next === snapshot || next.seq <= snapshot.seq) return;
    onMessage({ t: "snapshot", snapshot: next });
  };
  model.on("msg:custom", onMessage);
  model.on("change:snapshot", onTrait);
  store = {
    get snapshot() {
      return snapshot;
    },
    get state() {
      return snapshot.state;
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    receive: onMessage,
  };
  stores.set(model, store);
  sendSync(model, snapshot.seq);
  return store;
}
