import assert from "node:assert/strict";
import { test } from "node:test";
import { applyOp, emptySnapshot, readSnapshot, reduce, withChildren } from "../src/shared/ops.js";

const snap = (seq, state) => ({ v: 1, seq, state });

test("set, merge and list ops return a new state and leave the old one alone", () => {
  const s0 = { a: 1, rows: [{ id: "x" }, { id: "y" }], meta: { k: 1 } };
  const s1 = applyOp(s0, { op: "set", key: "a", value: 2 });
  assert.equal(s1.a, 2);
  assert.equal(s0.a, 1);
  assert.equal(s1.rows, s0.rows, "untouched parts are shared");
  assert.deepEqual(applyOp(s0, { op: "merge", key: "meta", value: { j: 2 } }).meta, { k: 1, j: 2 });
  const ids = (s) => s.rows.map((r) => r.id);
  assert.deepEqual(ids(applyOp(s0, { op: "append", key: "rows", items: [{ id: "z" }] })), [
    "x",
    "y",
    "z",
  ]);
  assert.deepEqual(
    ids(applyOp(s0, { op: "insert", key: "rows", item: { id: "z" }, before: "y" })),
    ["x", "z", "y"],
  );
  assert.deepEqual(
    ids(applyOp(s0, { op: "insert", key: "rows", item: { id: "y" }, before: "x" })),
    ["y", "x"],
  );
  assert.deepEqual(
    ids(applyOp(s0, { op: "insert", key: "rows", item: { id: "z" }, before: "?" })),
    ["x", "y", "z"],
  );
  assert.deepEqual(applyOp(s0, { op: "replace", key: "rows", item: { id: "y", v: 1 } }).rows[1], {
    id: "y",
    v: 1,
  });
  assert.deepEqual(ids(applyOp(s0, { op: "remove", key: "rows", id: "x" })), ["y"]);
  assert.equal(applyOp(s0, { op: "remove", key: "rows", id: "?" }), s0);
  assert.equal(applyOp(s0, { op: "nonsense", key: "a" }), s0);
  assert.equal(applyOp(s0, null), s0);
});

test("a panel's own ops run before the shared ones", () => {
  const extra = { bump: (s, op) => ({ ...s, n: (s.n || 0) + op.by }) };
  assert.equal(applyOp({ n: 1 }, { op: "bump", by: 2 }, extra).n, 3);
});

test("batches apply in order; old ones are stale; a gap is reported, not applied", () => {
  let s = snap(0, {});
  let out = reduce(s, { t: "ops", seq: 1, ops: [{ op: "set", key: "a", value: 1 }] });
  assert.equal(out.verdict, "ok");
  assert.deepEqual([...out.changed], ["a"]);
  s = out.snapshot;
  assert.equal(s.seq, 1);
  assert.equal(reduce(s, { t: "ops", seq: 1, ops: [] }).verdict, "stale");
  out = reduce(s, { t: "ops", seq: 3, ops: [{ op: "set", key: "a", value: 9 }] });
  assert.equal(out.verdict, "gap");
  assert.equal(out.snapshot.state.a, 1);
  assert.equal(reduce(s, { t: "other" }).verdict, "stale");
  assert.equal(reduce(s, "junk").verdict, "stale");
});

test("a snapshot resets to a newer state and reports every key as changed", () => {
  const s = snap(4, { a: 1 });
  const out = reduce(s, { t: "snapshot", snapshot: snap(7, { b: 2 }) });
  assert.equal(out.verdict, "reset");
  assert.deepEqual(out.snapshot, snap(7, { b: 2 }));
  assert.deepEqual([...out.changed].sort(), ["a", "b"]);
  assert.equal(reduce(s, { t: "snapshot", snapshot: snap(3, {}) }).verdict, "stale");
});

test("readSnapshot makes anything from the wire well-formed", () => {
  assert.deepEqual(readSnapshot(undefined), emptySnapshot());
  assert.deepEqual(readSnapshot({ seq: -2, state: 5 }), { v: 1, seq: 0, state: {} });
});

test("a child's batch is one `child` op: its own ops on the host's part, nested ones too", () => {
  const bump = { bump: (s, op) => ({ ...s, n: (s.n || 0) + op.by }) };
  const chatOps = withChildren({}, { transcript: bump });
  const ops = withChildren({ own: (s) => ({ ...s, own: true }) }, { chat: chatOps });
  const s0 = { title: "t", chat: { note: "x", transcript: { n: 1, rows: [] } } };
  const s1 = applyOp(
    s0,
    {
      op: "child",
      key: "chat",
      ops: [{ op: "child", key: "transcript", ops: [{ op: "bump", by: 2 }] }],
    },
    ops,
  );
  assert.equal(s1.chat.transcript.n, 3, "the nested child's own op, by its own reducer");
  assert.equal(s0.chat.transcript.n, 1, "the old state is left alone");
  assert.equal(s1.chat.transcript.rows, s0.chat.transcript.rows, "untouched parts shared");
  assert.equal(s1.chat.note, "x");
  // A child's ops are not the host's: `bump` at the top level is unknown there.
  assert.equal(applyOp(s0, { op: "bump", by: 1 }, ops), s0);
  assert.equal(applyOp(s0, { op: "own" }, ops).own, true);
  // Junk: no list of ops, no key, a part that is not an object; an op named like a property.
  assert.equal(applyOp(s0, { op: "child", key: "chat", ops: "x" }, ops), s0);
  assert.equal(applyOp(s0, { op: "child", ops: [] }, ops), s0);
  const made = applyOp(
    { chat: [1] },
    { op: "child", key: "chat", ops: [{ op: "set", key: "a", value: 1 }] },
  );
  assert.deepEqual(made.chat, { a: 1 });
  assert.equal(applyOp(s0, { op: "constructor", key: "title" }, ops), s0);
  assert.equal(applyOp(s0, { op: "child", key: "chat", ops: [null, 3] }, ops), s0);
});

test("the transcript's `live` op applies inside a child; a gap in the host's batches syncs", async () => {
  const { EXTRA_OPS } = await import("../src/chat/transcript.js");
  const extra = withChildren({}, { chat: withChildren({}, { transcript: EXTRA_OPS }) });
  const live = { v: 1, seq: 0, head: "", blocks: [], tail: "", extras: "", done: false, html: "" };
  const state = { chat: { transcript: { rows: [{ id: "m", cls: "", live }], earlier: "" } } };
  const delta = (seq, text) => ({
    op: "child",
    key: "chat",
    ops: [
      {
        op: "child",
        key: "transcript",
        ops: [
          {
            op: "live",
            key: "rows",
            id: "m",
            msg: { t: "delta", seq, ops: [{ op: "append", text }] },
          },
        ],
      },
    ],
  });
  let s = snap(3, state);
  let out = reduce(s, { t: "ops", seq: 4, ops: [delta(1, "<img src=x onerror=alert(1)>")] }, extra);
  assert.equal(out.verdict, "ok");
  assert.deepEqual([...out.changed], ["chat"]);
  const tail = (x) => x.state.chat.transcript.rows[0].live.tail;
  assert.equal(tail(out.snapshot), "<img src=x onerror=alert(1)>", "kept as text, never parsed");
  s = out.snapshot;
  out = reduce(s, { t: "ops", seq: 6, ops: [delta(3, "lost")] }, extra);
  assert.equal(out.verdict, "gap");
  out = reduce(
    s,
    { t: "snapshot", snapshot: snap(6, { chat: { transcript: { rows: [] } } }) },
    extra,
  );
  assert.equal(out.verdict, "reset");
  assert.deepEqual(out.snapshot.state.chat.transcript.rows, []);
});
