"""RowDeltas: the kernel's side of a streaming row's delta protocol (see ``js/src/chat/rows.js``).

It keeps the state the front end holds (``snapshot()``) and, given the message's text so far,
says what to send to bring the front end up to date: the text appended since the last update
(drawn as plain text), and each finished paragraph once as server-rendered HTML (markdown via
``nb_hitl._render``, with raw HTML disabled), after which the front end drops it from the
plain tail. Nothing is sent twice while the message streams; the final row is sent once, whole.

A paragraph is finished at a blank line outside a code fence; a very long run of text with
no blank line is cut at its last line break or space after ``SEGMENT_MAX`` characters. A
continued answer (``agent.resume()``) is cut at its seam, where the "resumed here" mark goes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SEGMENT_MAX = 5_000
"""A tail this long is frozen at its last line break or space even without a blank line."""
PROTOCOL = 1
"""The version of the row state and messages (``v`` of a snapshot)."""


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


__all__ = ["PROTOCOL", "SEGMENT_MAX", "RowDeltas", "cut"]
