// The sequenced-ops protocol every panel speaks (the Python side: nb_hitl/widgets/_model.py).
//
// The kernel holds a panel's whole view state and sends it two ways:
// - the `snapshot` trait, `{v, seq, state}`: what a new view starts from (a second display, a
//   reloaded page, a saved notebook);
// - custom messages: `{t: "ops", seq, ops: [...]}` (a batch of deltas, applied only when `seq`
//   is one past the state's; an older batch is dropped, a gap asks for a snapshot) and
//   `{t: "snapshot", snapshot}` (the answer to the view's `{t: "sync", seq}`).
//
// `reduce` is the pure reducer; `applyOp` the ops every panel shares. A panel may add its own
// ops by passing `extraOps` (a map from op name to `(state, op) => state`).
//
// A panel drawn inside another (`embed(child, key)` in Python) has its state as the host's
// part `key`; each batch of the child reaches the host's page as one op of the host's batch,
// `{op: "child", key, ops: [...]}`: the child's own ops, applied to that part with the child's
// extra ops (`withChildren(ownOps, {key: childOps})`; a child nested in a child the same way).

/** The state a panel starts from before the kernel said anything. */
export const emptySnapshot = () => ({ v: 1, seq: 0, state: {} });

/** Where `withChildren` keeps the extra ops of the panels drawn inside (never an op name). */
export const CHILD_OPS = Symbol("nb_hitl child ops");

/**
 * `ownOps` (a panel's extra ops) together with the extra ops of the panels it embeds, by
 * their part: `withChildren(LIVE_OPS, { chat: withChildren({}, { transcript: LIVE_OPS }) })`.
 */
export function withChildren(ownOps, children) {
  return { ...ownOps, [CHILD_OPS]: { ...(ownOps?.[CHILD_OPS] || {}), ...children } };
}

/** The keys of `next` whose values are not those of `prev` (all of them the first time). */
export function changedKeys(prev, next) {
  const keys = new Set();
  for (const key of new Set([...Object.keys(prev || {}), ...Object.keys(next || {})]))
    if (!prev || prev[key] !== next?.[key]) keys.add(key);
  return keys;
}

const indexOf = (items, id) => items.findIndex((item) => item && item.id === id);

/**
 * One op applied to `state` (never mutated): a new state object, sharing untouched parts.
 *
 * Ops: `{op: "set", key, value}`, `{op: "merge", key, value}` (shallow, into an object),
 * `{op: "append", key, items}`, `{op: "insert", key, item, before}` (a list of `{id, ...}`:
 * before the item `before`, at the end when it is null or unknown; an item with that id
 * moves), `{op: "replace", key, item}` (the item with `item.id`; appended when missing),
 * `{op: "remove", key, id}`, `{op: "child", key, ops}` (the ops of the panel drawn as part
 * `key`, applied to that part). Unknown ops leave the state alone.
 */
export function applyOp(state, op, extraOps = {}) {
  if (!op || typeof op !== "object") return state;
  if (op.op === "child") return childOp(state, op, extraOps);
  const custom = Object.hasOwn(extraOps, op.op) ? extraOps[op.op] : null;
  if (custom) return custom(state, op);
  const key = op.key;
  if (typeof key !== "string") return state;
  const list = Array.isArray(state[key]) ? state[key] : [];
  switch (op.op) {
    case "set":
      return { ...state, [key]: op.value };
    case "merge":
      return { ...state, [key]: { ...(state[key] || {}), ...(op.value || {}) } };
    case "append":
      return { ...state, [key]: list.concat(op.items || []) };
    case "insert": {
      const items = list.filter((item) => !item || item.id !== op.item?.id);
      const at = op.before == null ? -1 : indexOf(items, op.before);
      items.splice(at < 0 ? items.length : at, 0, op.item);
      return { ...state, [key]: items };
    }
    case "replace": {
      const at = indexOf(list, op.item?.id);
      const items = list.slice();
      if (at < 0) items.push(op.item);
      else items[at] = op.item;
      return { ...state, [key]: items };
    }
    case "remove": {
      const at = indexOf(list, op.id);
      if (at < 0) return state;
      return { ...state, [key]: list.filter((_, i) => i !== at) };
    }
    default:
      return state;
  }
}

/** The `child` op: the embedded panel's ops applied to its part (an object) of `state`. */
function childOp(state, op, extraOps) {
  const key = op.key;
  if (typeof key !== "string" || !Array.isArray(op.ops)) return state;
  const own = extraOps[CHILD_OPS]?.[key] || {};
  const old = state[key];
  let part = old && typeof old === "object" && !Array.isArray(old) ? old : {};
  for (const inner of op.ops) part = applyOp(part, inner, own);
  return part === old ? state : { ...state, [key]: part };
}

/** A well-formed copy of a snapshot from the wire (anything else: the empty one). */
export function readSnapshot(raw) {
  if (!raw || typeof raw !== "object") return emptySnapshot();
  const seq = Number.isInteger(raw.seq) && raw.seq >= 0 ? raw.seq : 0;
  const state = raw.state && typeof raw.state === "object" ? raw.state : {};
  return { v: raw.v || 1, seq, state };
}

/**
 * The pure reducer: `{verdict, snapshot, changed}` for one message from the kernel.
 *
 * `verdict`: "ok" (ops applied), "reset" (a newer snapshot replaced the state), "stale"
 * (already included, or not a panel message: nothing changes), "gap" (a batch is missing: the
 * caller asks for a snapshot). `changed`: the top-level keys whose value changed.
 */
export function reduce(snapshot, msg, extraOps = {}) {
  const same = { verdict: "stale", snapshot, changed: new Set() };
  if (!msg || typeof msg !== "object") return same;
  if (msg.t === "snapshot") {
    const next = readSnapshot(msg.snapshot);
    if (next.seq < snapshot.seq) return same;
    const changed = new Set([...Object.keys(snapshot.state), ...Object.keys(next.state)]);
    return { verdict: "reset", snapshot: next, changed };
  }
  if (msg.t !== "ops" || !Number.isInteger(msg.seq) || msg.seq <= snapshot.seq) return same;
  if (msg.seq !== snapshot.seq + 1) return { ...same, verdict: "gap" };
  let state = snapshot.state;
  for (const op of Array.isArray(msg.ops) ? msg.ops : []) state = applyOp(state, op, extraOps);
  const changed = new Set();
  for (const key of new Set([...Object.keys(snapshot.state), ...Object.keys(state)])) {
    if (state[key] !== snapshot.state[key]) changed.add(key);
  }
  return { verdict: "ok", snapshot: { ...snapshot, seq: msg.seq, state }, changed };
}
