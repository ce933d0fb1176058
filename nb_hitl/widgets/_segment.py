"""RowsSegment: a run of finished message rows drawn by the front end in one widget.

One ``ipywidgets.HTML`` per finished row opens a comm per row (and, under JupyterLab's
``commsOverSubshells=perComm``, a kernel thread per comm): a 200-message history meant
hundreds of comm opens on page load. A segment is one anywidget holding a run of consecutive
rows keyed by message id, each the same kernel-rendered, escaped HTML an ``HTML`` row held,
with its classes. The transcript (``Transcript.render``) groups consecutive message rows into
segments; interactive rows (approval cards, questions, notes, collapsed long messages,
streaming rows) stay widgets between segments, so the order memory holds is kept.

A change is a batch of keyed ops (insert / replace / remove / classes) sent as one custom
message with a sequence number (``js/src/chat/segment.js`` has the protocol): only what changed
travels. The ``rows`` trait is the whole state a new view starts from (a reloaded page, a
saved notebook); the kernel keeps it current without sending it (ipywidgets'
``_lock_property``), and the front end stores the same value in its model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import anywidget
import ipywidgets as w
import traitlets

from ._live import shared_layout
from ._model import static_file

if TYPE_CHECKING:
    from nb_hitl.message import Msg

PROTOCOL = 1
"""The version of the segment state (``v``)."""

Callback = Callable[[Callable[[Any], None]], Callable[[Any], None]]


class SegmentRow:
    """One finished message row of a segment: what the page draws for it.

    Args:
        key: the row's key (the message id).
        html: the row's whole HTML (escaped: it goes to ``innerHTML``).
        cls: the row's classes, space-separated.
        msg: the message it was drawn from (a new message object means a redraw).
    """

    __slots__ = ("cls", "html", "key", "msg")

    def __init__(self, key: str, html: str, cls: str, msg: Msg | None = None) -> None:
        self.key = key
        self.html = html
        self.cls = cls
        self.msg = msg

    @property
    def value(self) -> str:
        """The row's HTML (as an ``HTML`` row's ``value``)."""
        return self.html

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        return tuple(self.cls.split())

    def drawn_html(self) -> str:
        """What the front end shows, as HTML (tests, exports)."""
        return self.html

    def __repr__(self) -> str:
        return f"SegmentRow({self.key!r}, {self.cls!r})"


class RowsSegment(anywidget.AnyWidget):
    """Consecutive finished message rows, drawn by the front end (see module doc).

    Args:
        rows: the rows it starts with (in its opening message: no op is sent for them).
        callback: wraps the front end's requests (the chat's loop bridge: they may arrive on
            another thread).
    """

    _esm = static_file("rows_segment.js")
    _css = static_file("rows_segment.css")
    rows = traitlets.Dict().tag(sync=True)
    """The state a new view starts from: ``{v, seq, rows: [{id, cls, html}, ...]}``."""

    def __init__(self, rows: Iterable[SegmentRow] = (), callback: Callback = lambda f: f) -> None:
        self.seq = 0
        self._rows: list[SegmentRow] = list(rows)
        self._drawn = _copies(self._rows)
        """What the page holds (a card changes its row in place: diff against copies)."""
        super().__init__(rows=self.state(), layout=shared_layout())
        self.sent = 0
        """Op batches and snapshots sent (for benchmarks and tests)."""
        on_sync = callback(self._on_front_end_msg)
        self.on_msg(lambda _w, content, _b: on_sync(content))

    @property
    def row_keys(self) -> list[str]:
        """The keys of the rows, in order."""
        return [r.key for r in self._rows]

    @property
    def handles(self) -> list[SegmentRow]:
        """The rows, in order."""
        return list(self._rows)

    def state(self) -> dict[str, Any]:
        """The whole state, as the front end holds it after the last op batch."""
        rows = [{"id": r.key, "cls": r.cls, "html": r.html} for r in self._drawn]
        return {"v": PROTOCOL, "seq": self.seq, "rows": rows}

    def set_rows(self, rows: Sequence[SegmentRow]) -> list[dict[str, Any]]:
        """Make the segment hold ``rows`` (in order); sends the ops that get there (one
        message, nothing when nothing changed) and returns them."""
        ops = diff(self._drawn, rows)
        self._rows = list(rows)
        self._drawn = _copies(self._rows)
        if ops:
            self.seq += 1
            state = self.state()
            with self._lock_property(rows=state):  # ipywidgets: set, but do not send
                self.rows = state
            self._send_msg({"t": "ops", "seq": self.seq, "ops": ops})
        return ops

    def drawn_html(self) -> str:
        """Every row's HTML, in order (what the page shows)."""
        return "\n".join(r.html for r in self._drawn)

    def _send_msg(self, content: dict[str, Any]) -> None:
        self.sent += 1
        if self.comm is not None:
            self.send(content)

    def _on_front_end_msg(self, content: Any) -> None:
        if isinstance(content, dict) and content.get("t") == "sync":
            if content.get("seq") != self.seq:
                self._send_msg({"t": "snapshot", "state": self.state()})


def _copies(rows: Sequence[SegmentRow]) -> list[SegmentRow]:
    return [SegmentRow(r.key, r.html, r.cls, r.msg) for r in rows]


def diff(old: Sequence[SegmentRow], new: Sequence[SegmentRow]) -> list[dict[str, Any]]:
    """The ops that turn the rows ``old`` into ``new`` (applied in order by the front end)."""
    keep = {r.key for r in new}
    ops: list[dict[str, Any]] = [{"op": "remove", "id": r.key} for r in old if r.key not in keep]
    drawn = {r.key: r for r in old if r.key in keep}
    cur = [r.key for r in old if r.key in keep]
    for i, row in enumerate(new):
        if i < len(cur) and cur[i] == row.key:
            was = drawn[row.key]
            if was.html != row.html:
                ops.append({"op": "replace", "id": row.key, "cls": row.cls, "html": row.html})
            elif was.cls != row.cls:
                ops.append({"op": "classes", "id": row.key, "cls": row.cls})
            continue
        before = cur[i] if i < len(cur) else None
        if row.key in drawn:
            cur.remove(row.key)
        cur.insert(i, row.key)
        ops.append({"op": "insert", "id": row.key, "cls": row.cls, "html": row.html,
                    "before": before})  # fmt: skip
    return ops


class Segments:
    """The segments of one transcript: runs of message rows, reused from render to render.

    Args:
        callback: wraps the segments' front-end requests (the chat's loop bridge).
    """

    def __init__(self, callback: Callback = lambda f: f) -> None:
        self.callback = callback
        self.drawn: list[RowsSegment] = []

    def layout(
        self, items: Sequence[w.Widget | SegmentRow]
    ) -> tuple[tuple[w.Widget, ...], list[RowsSegment]]:
        """The children for ``items`` (consecutive rows grouped into segments) and the
        segments no longer used (to close once the children are updated)."""
        runs: list[w.Widget | list[SegmentRow]] = []
        for item in items:
            if isinstance(item, SegmentRow):
                if runs and isinstance(runs[-1], list):
                    runs[-1].append(item)
                else:
                    runs.append([item])
            else:
                runs.append(item)
        used: list[RowsSegment] = []
        children: list[w.Widget] = []
        for run in runs:
            if not isinstance(run, list):
                children.append(run)
                continue
            segment = self._pick(run, used)
            if segment is None:
                segment = RowsSegment(run, self.callback)
            else:
                segment.set_rows(run)
            used.append(segment)
            children.append(segment)
        retired = [s for s in self.drawn if s not in used]
        self.drawn = used
        return tuple(children), retired

    def _pick(self, run: list[SegmentRow], used: list[RowsSegment]) -> RowsSegment | None:
        """The drawn segment that holds the run's first row, else any of its rows."""
        free = [s for s in self.drawn if s not in used]
        keys = [r.key for r in run]
        for segment in free:
            if segment.row_keys and segment.row_keys[0] == keys[0]:
                return segment
        wanted = set(keys)
        for segment in free:
            if wanted & set(segment.row_keys):
                return segment
        return None


__all__ = ["PROTOCOL", "RowsSegment", "SegmentRow", "Segments", "diff"]
