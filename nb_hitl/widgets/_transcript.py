"""Transcript: the chat's rows, only the most recent ones drawn.

Rows are drawn lazily (a message gets its row when it first becomes visible) and only the
last ``window`` rows are in the box (up to half a window more before the oldest go, together:
``_hidden``); "Show earlier messages" widens the window. Messages the
person just sent stay after whatever the interrupted reply still commits, so the transcript
shows the order memory holds.

Finished message rows are drawn by the front end: consecutive ones share one ``RowsSegment``
(``_segment.py``: one comm for the run, keyed ops when it changes); interactive rows (cards,
notes, collapsed long messages) and streaming rows (``LiveMessage``) are widgets between
segments. A streaming row that finished joins its neighbours' segment at the next render
(its widget is then closed): a long chat keeps a handful of comms, not one per message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import RemoteImages, msg_html, with_copy_button

from ._card import CardRow
from ._collapsed import CollapsedMessage, is_long
from ._live import html
from ._live_delta import LiveMessage
from ._look import look, set_display
from ._pacer import CommPacer
from ._seam import continued_html, folded_ids, is_continuation
from ._segment import RowsSegment, SegmentRow, Segments

if TYPE_CHECKING:
    from nb_hitl.message import Msg, ToolUseBlock

ROWS_FRONT_END = "segment"
"""How finished message rows are drawn: ``"segment"`` (``RowsSegment``: consecutive rows in
one front-end widget, keyed ops) or ``"html"`` (one ``ipywidgets.HTML`` per row, the former
way; kept for comparison in ``bench/``)."""


class Entry:
    """One transcript row: a message (drawn lazily) or an arbitrary widget."""

    __slots__ = ("key", "msg", "row", "view")

    def __init__(
        self, key: str, msg: Msg | None = None, view: w.Widget | CardRow | None = None
    ) -> None:
        self.key = key
        self.msg = msg
        self.view = view
        self.row: SegmentRow | None = None
        """The message's row in a segment (when it has no widget of its own)."""

    @property
    def drawn(self) -> w.Widget | CardRow | SegmentRow | None:
        """What draws the entry: its widget, else its row in a segment (None: not yet)."""
        return self.view if self.view is not None else self.row


class Transcript:
    """The rows of a chat: an ordered list of entries and the box that draws the recent ones.

    Args:
        window: how many recent rows are drawn at first (and how many more per "Show earlier").
        images: the ``RemoteImages`` policy of the rows.
        callback: wraps row buttons' handlers (the chat's loop bridge).
    """

    def __init__(
        self,
        window: int,
        *,
        images: RemoteImages = "link",
        callback: Callable[[Callable[[Any], None]], Callable[[Any], None]] = lambda f: f,
    ) -> None:
        self.images: RemoteImages = images
        self.callback = callback
        self.step = window
        self.window = window
        self._first: str | None = None
        """Key of the oldest row drawn (the window's start, kept while rows are added)."""
        self.entries: list[Entry] = []
        self.by_key: dict[str, Entry] = {}
        self.unconfirmed: list[str] = []
        """Keys of messages sent from the widget that memory does not hold yet."""
        self.folded: set[str] = set()
        """Rows a continued answer stands for (its partial, the interrupted message, the
        resume instruction): kept as entries, not drawn (the answer shows its seam)."""
        self.instructions: dict[str, str] = {}
        """Continued answer id -> the instruction given to ``resume()`` (quoted at the seam)."""
        self.pacer: CommPacer | None = None
        """Paces the rows' updates (the panel's loop's ``comm_pacer``); None: not paced."""
        self.row_actions: Callable[[Msg, str], str] | None = None
        """Adds a message row's buttons (Edit, Regenerate) to its HTML; None: no buttons."""
        self.earlier = w.Button(
            description="Show earlier messages",
            **look(w.Button, layout={"display": "none"}),  # shown when rows are hidden
        )
        # The scrolling box is a ``column-reverse`` flex box (see ``CSS``) around one inner box
        # holding the rows in reading order: its scroll starts at the bottom and stays there
        # as rows grow, so the newest row is always in view, without JavaScript.
        self.inner = w.VBox(**look(w.VBox))
        self.inner.add_class("nb-hitl-rows")
        self.box = w.VBox([self.inner], **look(w.VBox))
        self.box.add_class("nb-hitl-transcript")
        self.front_end = ROWS_FRONT_END
        if self.front_end not in ("segment", "html"):
            raise ValueError(
                f'ROWS_FRONT_END must be "segment" or "html" (got {self.front_end!r}).'
            )
        self.segments = Segments(callback)
        self._retired: list[w.Widget] = []

    @property
    def rows(self) -> list[Any]:
        """The rows drawn, oldest first: widgets, and ``SegmentRow`` for each finished
        message row a segment draws (its ``value`` / ``drawn_html()`` is the row's HTML)."""
        rows: list[Any] = []
        for child in self.inner.children:
            rows.extend(child.handles if isinstance(child, RowsSegment) else [child])
        return rows

    def get(self, key: str) -> Entry | None:
        """The entry with ``key``."""
        return self.by_key.get(key)

    def add(self, entry: Entry, render: bool = True) -> None:
        """Append a row (before rows sent but not yet confirmed by memory)."""
        self.by_key[entry.key] = entry
        if self.unconfirmed and entry.key not in self.unconfirmed:
            first = self.by_key.get(self.unconfirmed[0])
            pos = self.entries.index(first) if first in self.entries else len(self.entries)
            self.entries.insert(pos, entry)
        else:
            self.entries.append(entry)
        if render:
            self.render()

    def insert_after(self, entry: Entry, after: str | None) -> None:
        """Insert a row right after the row ``after`` (at the end when there is none)."""
        anchor = self.by_key.get(after or "")
        if anchor is None or anchor not in self.entries:
            self.add(entry)
            return
        self.by_key[entry.key] = entry
        self.entries.insert(self.entries.index(anchor) + 1, entry)
        self.render()

    def remove(self, key: str, render: bool = True) -> Entry | None:
        """Remove a row; returns it."""
        entry = self.by_key.pop(key, None)
        if entry is not None:
            self.entries.remove(entry)
            if key in self.unconfirmed:
                self.unconfirmed.remove(key)
            if render:
                self.render()
        return entry

    def clear(self) -> list[Entry]:
        """Remove every row; returns them (``restore`` puts them back)."""
        entries, self.entries, self.by_key = self.entries, [], {}
        self.unconfirmed.clear()
        self.window = self.step
        self.render()
        return entries

    def restore(self, entries: list[Entry]) -> None:
        """Put back rows ``clear`` removed, before any added since."""
        self.entries = [*entries, *self.entries]
        self.by_key = {e.key: e for e in self.entries}
        self.render()

    def confirm(self, key: str) -> None:
        """Memory now holds the sent message ``key``."""
        if key in self.unconfirmed:
            self.unconfirmed.remove(key)

    def redraw(self, msg: Msg) -> bool:
        """Draw the row of ``msg.id`` anew from ``msg`` (memory changed it); False if none."""
        entry = self.by_key.get(msg.id)
        if entry is None or entry.msg is None:
            return False
        if entry.view is not None:
            entry.view.close()
        entry.msg, entry.view, entry.row = msg, None, None
        self.render()
        return True

    def follow_edited_call(self, call: ToolUseBlock, messages: list[Msg]) -> bool:
        """A tool call runs with arguments a person edited: redraw the row that asked for it
        from ``messages`` (memory holds the edited call there), so it shows what really runs."""
        for msg in reversed(messages):
            for block in msg.get_content_blocks("tool_use"):
                if block.id == call.id:
                    entry = self.by_key.get(msg.id)
                    drawn = entry.msg if entry is not None else None
                    if drawn is None or drawn is msg:
                        return False
                    return self.redraw(msg)
        return False

    def card_action(self, text: str, form: dict[str, Any]) -> bool:
        """A card's button was pressed in the page (``"<card key> <verb>"``, its form's
        values): hand it to the card; False when no such card is in the transcript."""
        key, _, verb = text.partition(" ")
        entry = self.by_key.get(key)
        if entry is None or not isinstance(entry.view, CardRow):
            return False
        entry.view.act(verb, form)
        return True

    def last_user_msg(self) -> Msg | None:
        """The newest user message shown."""
        return next((e.msg for e in reversed(self.entries) if e.msg and e.msg.role == "user"), None)

    def reset(self, messages: list[Msg]) -> None:
        """Start over with ``messages`` (memory now holds another branch); not rendered yet."""
        self.entries = []
        self.by_key = {}
        self.unconfirmed = []
        self.folded = set()
        self.instructions = {}
        for msg in messages:
            self.add(Entry(msg.id, msg), render=False)

    def insert_at(self, index: int, entry: Entry) -> None:
        """Insert a row at position ``index`` of the entries (not rendered yet)."""
        self.by_key[entry.key] = entry
        self.entries.insert(index, entry)

    def fold_continued(self, msg: Msg) -> bool:
        """Draw the continued answer ``msg`` as one answer: hide the rows it continues.

        Returns:
            True when ``msg`` is a continuation (``agent.resume()``), else nothing changes.
        """
        if not is_continuation(msg):
            return False
        known = [e.msg for e in self.entries if e.msg is not None]
        ids, instruction = folded_ids(msg, known)
        if instruction:
            self.instructions[msg.id] = instruction
        before = len(self.folded)
        self.folded.update(i for i in ids if i != msg.id)
        if len(self.folded) != before:
            self.render()
        return True

    def instruction_for(self, msg: Msg) -> str:
        """The instruction given to ``resume()`` for the continued answer ``msg`` ("" if none)."""
        return self.instructions.get(msg.id, "")

    def show_earlier(self) -> None:
        """Widen the window by one step."""
        self.window += self.step
        self.render()

    def row_classes(self, msg: Msg | None) -> list[str]:
        """Classes a message row carries besides its own (a hub speaker's colour); none here."""
        return []

    def _view(self, entry: Entry) -> w.Widget | SegmentRow:
        """The entry's widget, or its row in a segment (a finished message)."""
        view = entry.view
        if isinstance(view, CardRow):  # a card: a row of the segment, drawn anew when it changes
            view.attach(self.render)
            return view
        if isinstance(view, LiveMessage) and view.finished and self.front_end == "segment":
            self._retired.append(view)  # a finished streaming row joins the segments
            entry.view = view = None
        if view is not None:
            return view
        assert entry.msg is not None
        classes = ("nb-hitl-row", *self.row_classes(entry.msg))  # in the opening message
        if is_long(entry.msg):  # e.g. a 1 MB paste: a preview and "Show all"
            entry.view = CollapsedMessage(entry.msg, self.images, self.callback)
            for c in classes:
                entry.view.add_class(c)
            return entry.view
        row = entry.row
        cls = " ".join(classes)
        if row is None or row.msg is not entry.msg:
            row = SegmentRow(entry.key, self._row_html(entry.msg), cls, entry.msg)
        elif row.cls != cls:
            row = SegmentRow(entry.key, row.html, cls, entry.msg)
        entry.row = row
        if self.front_end == "html":
            entry.view = html(row.html, classes)
            return entry.view
        return row

    def _row_html(self, msg: Msg) -> str:
        if is_continuation(msg):  # agent.resume(): one answer, with its seam
            instruction = self.instruction_for(msg)
            row = continued_html(msg, self.images, self._msg_of, instruction)
            return with_copy_button(msg, self._actions(msg, row))
        return with_copy_button(msg, self._actions(msg, msg_html(msg, self.images)))

    def _actions(self, msg: Msg, row: str) -> str:
        return self.row_actions(msg, row) if self.row_actions is not None else row

    def _msg_of(self, key: str) -> Msg | None:
        entry = self.by_key.get(key)
        return entry.msg if entry is not None else None

    def _hidden(self, shown: list[Entry]) -> int:
        """How many of the oldest rows ``shown`` are not drawn.

        The last ``window`` rows are drawn; as rows are added the oldest stay drawn until half
        a window more are, then go all at once. ipywidgets' Box keeps the views its new
        children start with and draws every row after the first change anew: taking the oldest
        row out for each new one redrew the whole window each time (a hub past 80 rows: the
        page seconds behind the kernel, Stop -> "Paused" seconds).
        """
        start = max(0, len(shown) - self.window)
        kept = next((i for i, e in enumerate(shown) if e.key == self._first), start)
        if kept < start and len(shown) - kept <= self.window + max(1, self.window // 2):
            start = kept
        self._first = shown[start].key if start < len(shown) else None
        return start

    def render(self) -> None:
        """Put the recent rows in the box (creating their rows on first sight)."""
        shown = [e for e in self.entries if e.key not in self.folded]
        hidden = self._hidden(shown)
        set_display(self.earlier, "" if hidden else "none")
        if hidden:
            self.earlier.description = f"Show earlier messages ({hidden} hidden)"
        self._retired = []
        items = [self._view(e) for e in shown[hidden:]]
        children, gone = self.segments.layout(items)
        if self.pacer is not None:
            self.pacer.pace(children)
        if children != self.inner.children:
            self.inner.children = children
        self._close([*self._retired, *gone])

    def _close(self, widgets: Sequence[w.Widget]) -> None:
        """Close widgets the box no longer shows, once the pacer sent the update that took
        them out (a close is not paced: sent earlier, it would blank the row meanwhile)."""
        if not widgets:
            return
        pacer = self.pacer
        if pacer is None or not pacer.backlog:
            for widget in widgets:
                widget.close()
            return
        pacer.loop.call_later(0.05, self._close, widgets)


__all__ = ["ROWS_FRONT_END", "Entry", "Transcript"]
