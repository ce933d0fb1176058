"""RowDeltas: the kernel's side of a streaming row's delta protocol (``js/src/shared/live_row.js``).

It keeps the state the front end holds (``snapshot()``) and, given the message's text so far,
says what to send to bring the front end up to date: the text appended since the last update
(drawn as plain text), and each finished paragraph once as server-rendered HTML (markdown via
``nb_hitl._render``, with raw HTML disabled), after which the front end drops it from the
plain tail. Nothing is sent twice while the message streams; the final row is sent once, whole.

A paragraph is finished at a blank line outside a code fence; a very long run of text with
no blank line is cut at its last line break or space after ``SEGMENT_MAX`` characters. A
continued answer (``agent.resume()``) is cut at its seam, where the "resumed here" mark goes.

A panel carries a row's messages in its batches as one keyed op, ``live_op``: ``{op: "live",
key, id, cls?, msg?}`` (the row ``id`` of part ``key`` takes the classes ``cls``, Stop's
interrupted style, and the row message ``msg``). The chat's transcript and the hub's feed both
send it, and the page reduces and draws it by one code path; ``apply_live`` is its reducer on
the kernel's copy of the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

SEGMENT_MAX = 5_000
"""A tail this long is frozen at its last line break or space even without a blank line."""
PROTOCOL = 1
"""The version of the row state and messages (``v`` of a snapshot)."""
LIVE = "live"
"""The name of the streaming rows' keyed op."""


def live_op(
    row_id: str,
    msg: Mapping[str, Any] | None = None,
    cls: str | None = None,
    key: str = "rows",
) -> dict[str, Any]:
    """The keyed op that sends the streaming row ``row_id`` of part ``key`` its row message
    ``msg`` and / or classes ``cls``."""
    op: dict[str, Any] = {"op": LIVE, "key": key, "id": row_id}
    if cls is not None:
        op["cls"] = cls
    if msg is not None:
        op["msg"] = dict(msg)
    return op


def _row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A well-formed copy of a streaming row's state (``copyRow`` in ``shared/live_row.js``)."""
    return {
        "v": PROTOCOL,
        "seq": int(row.get("seq") or 0),
        "head": row.get("head") or "",
        "blocks": list(row.get("blocks") or []),
        "tail": row.get("tail") or "",
        "extras": row.get("extras") or "",
        "done": bool(row.get("done")),
        "html": row.get("html") or "",
    }


def apply_row_msg(row: Mapping[str, Any], msg: Mapping[str, Any]) -> dict[str, Any] | None:
    """The streaming row ``row`` after the row message ``msg`` (``js/src/shared/live_row.js``'s
    ``apply``), or None when it does not apply (stale or a gap)."""
    new = _row(row)
    if msg.get("t") == "snapshot":
        snap = _row(msg.get("row") or {})
        if snap["seq"] < new["seq"] or (snap["seq"] == new["seq"] and new["done"]):
            return None
        return snap
    if msg.get("t") != "delta" or new["done"]:
        return None
    seq = int(msg.get("seq") or 0)
    if seq != new["seq"] + 1:
        return None
    for op in msg.get("ops") or []:
        kind = op.get("op")
        if kind == "append":
            new["tail"] += op.get("text") or ""
        elif kind == "freeze":
            new["blocks"].append(op.get("html") or "")
            new["tail"] = op.get("tail") or ""
        elif kind == "tail":
            new["tail"] = op.get("text") or ""
        elif kind == "extras":
            new["extras"] = op.get("html") or ""
        elif kind == "head":
            new["head"] = op.get("html") or ""
        elif kind == "finish":
            keep = int(op.get("keep") or 0)
            new["html"] = (op.get("before") or "") + "".join(new["blocks"][:keep])
            new["html"] += op.get("after") or ""
            new.update(done=True, blocks=[], tail="", extras="")
    new["seq"] = seq
    return new


def apply_live(state: dict[str, Any], op: Mapping[str, Any]) -> None:
    """The ``live`` op (``js/src/shared/live_row.js``'s ``liveOp``) applied to ``state``: the
    streaming row ``id`` of part ``key`` takes the classes ``cls`` and the row message ``msg``
    (a finished row becomes ``{id, cls, html}``); nothing when there is no such row."""
    key = op.get("key")
    key = key if isinstance(key, str) else "rows"
    rows = list(state.get(key) or [])
    at = next((i for i, r in enumerate(rows) if r.get("id") == op.get("id")), -1)
    if at < 0:
        return
    old = rows[at]
    item = dict(old)
    if isinstance(op.get("cls"), str):
        item["cls"] = op["cls"]
    msg = op.get("msg")
    if isinstance(msg, Mapping) and isinstance(old.get("live"), Mapping):
        row = apply_row_msg(old["live"], msg)
        if row is not None:
            if row["done"]:
                item = {"id": old["id"], "cls": item.get("cls") or "", "html": row["html"]}
            else:
                item["live"] = row
    rows[at] = item
    state[key] = rows


def _fence_open_after(text: str, fence_open: bool) -> bool:
    return (fence_open + text.count("```")) % 2 == 1


def cut(tail: str, fence_open: bool, min_len: int = 0) -> int:
    """Where the finished part of ``tail`` ends (0: nothing finished yet).

    The one paragraph-cut rule of streaming rows: at the last blank line outside a code
    fence, else (a tail of ``SEGMENT_MAX`` or more) at its last line break or space.
    ``min_len``: a tail shorter than this is not cut, and never before ``min_len // 2`` (the
    former HTML rows freeze segments of some length: ``_live.SEGMENT_MIN``).
    """
    if len(tail) < min_len:
        return 0
    start = min_len // 2
    pos = tail.rfind("\n\n", start)
    while pos > 0:
        if not _fence_open_after(tail[:pos], fence_open):
            return pos + 2
        pos = tail.rfind("\n\n", start, pos)
    if len(tail) < SEGMENT_MAX:
        return 0
    for sep in ("\n", " "):
        pos = tail.rfind(sep, SEGMENT_MAX // 2)
        if pos > 0:
            return pos + 1
    return len(tail)


class RowDeltas:
    """The state of one streaming row and the deltas that follow the message.

    Args:
        head: the row's header (HTML, escaped).
        render: markdown of a finished piece of text -> HTML (escaped).
        seams: offsets in the text where a continued answer was resumed.
        seam_mark: the HTML of the "resumed here" mark drawn at each seam.
    """

    def __init__(
        self,
        head: str,
        render: Callable[[str], str],
        seams: list[int] | None = None,
        seam_mark: str = "",
    ) -> None:
        self.render = render
        self.seams = sorted(seams or [])
        self.seam_mark = seam_mark
        self.seq = 0
        self.head = head
        self.blocks: list[str] = []
        self.tail = ""
        self.extras = ""
        self.done = False
        self.html = ""
        self.frozen_len = 0
        """Characters of the text already sent as finished blocks."""
        self._frozen: list[str] = []
        self._fence_open = False

    def snapshot(self) -> dict[str, Any]:
        """The whole state, as the front end holds it after the last message."""
        return {
            "v": PROTOCOL,
            "seq": self.seq,
            "head": self.head,
            "blocks": list(self.blocks),
            "tail": self.tail,
            "extras": self.extras,
            "done": self.done,
            "html": self.html,
        }

    def _next_cut(self, tail: str) -> int:
        seam = next(
            (s for s in self.seams if self.frozen_len < s <= self.frozen_len + len(tail)), 0
        )
        if seam:
            return seam - self.frozen_len
        return cut(tail, self._fence_open)

    def _freeze(self, piece: str) -> str:
        html = self.render(piece) if piece.strip() else ""
        if self.frozen_len + len(piece) in self.seams:
            html += self.seam_mark
        self._fence_open = _fence_open_after(piece, self._fence_open)
        self.frozen_len += len(piece)
        self._frozen.append(piece)
        self.blocks.append(html)
        return html

    def update(self, text: str, extras: str = "", head: str | None = None) -> dict[str, Any] | None:
        """The message to send for the text so far (and the live extras / header), or None
        when nothing changed. A text that does not continue what was sent restarts the row
        (a snapshot message)."""
        if self.done:
            return None
        if not text.startswith("".join(self._frozen)):
            self._restart()
            self.seq += 1
            self._absorb(text)
            self.extras = extras
            if head is not None:
                self.head = head
            return {"t": "snapshot", "row": self.snapshot()}
        ops = self._absorb(text)
        if extras != self.extras:
            self.extras = extras
            ops.append({"op": "extras", "html": extras})
        if head is not None and head != self.head:
            self.head = head
            ops.append({"op": "head", "html": head})
        if not ops:
            return None
        self.seq += 1
        return {"t": "delta", "seq": self.seq, "ops": ops}

    def _absorb(self, text: str) -> list[dict[str, Any]]:
        tail = text[self.frozen_len :]
        ops: list[dict[str, Any]] = []
        at = self._next_cut(tail)
        while at:
            piece, tail = tail[:at], tail[at:]
            html = self._freeze(piece)
            ops.append({"op": "freeze", "html": html, "tail": ""})
            self.tail = ""
            at = self._next_cut(tail)
        if tail.startswith(self.tail):
            if len(tail) > len(self.tail):
                added = tail[len(self.tail) :]
                if ops:  # a freeze just emptied the tail: it carries the rest itself
                    ops[-1]["tail"] = added
                else:
                    ops.append({"op": "append", "text": added})
        else:
            ops.append({"op": "tail", "text": tail})
        self.tail = tail
        return ops

    def _restart(self) -> None:
        self.blocks, self.tail, self._frozen = [], "", []
        self.frozen_len = 0
        self._fence_open = False

    def finish(self, before: str, text: str, after: str) -> dict[str, Any]:
        """The final row: ``before`` + the body of ``text`` + ``after`` (HTML).

        Finished blocks the front end holds are reused: when ``text`` continues what was
        frozen, only the rest of it is rendered and sent (``{op: "finish", before, keep,
        after}``: the row's HTML becomes ``before`` + its first ``keep`` blocks + ``after``);
        otherwise the whole body is. Returns the delta message to send.
        """
        keep = len(self.blocks) if text.startswith("".join(self._frozen)) else 0
        rest = text[sum(len(p) for p in self._frozen[:keep]) :] if keep else text
        after = (self.render(rest) if rest.strip() else "") + after
        self.seq += 1
        self.done = True
        self.html = before + "".join(self.blocks[:keep]) + after
        self._restart()
        self.extras = ""
        return {
            "t": "delta",
            "seq": self.seq,
            "ops": [{"op": "finish", "before": before, "keep": keep, "after": after}],
        }


__all__ = [
    "LIVE",
    "PROTOCOL",
    "SEGMENT_MAX",
    "RowDeltas",
    "apply_live",
    "apply_row_msg",
    "cut",
    "live_op",
]
