"""Transcript: the chat's rows, one widget per message, only the most recent ones drawn.

Rows are drawn lazily (a message gets its widget when it first becomes visible) and only the
last ``window`` rows are in the box (up to half a window more before the oldest go, together:
``_hidden``); "Show earlier messages" widens the window. Messages the
person just sent stay after whatever the interrupted reply still commits, so the transcript
shows the order memory holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import RemoteImages, msg_html, with_copy_button

from ._collapsed import CollapsedMessage, is_long
from ._live import LiveMessageView, html
from ._live_delta import LiveMessage
from ._pacer import CommPacer, comm_pacer
from ._redraw import redraw_budget
from ._seam import continued_html, folded_ids, is_continuation

if TYPE_CHECKING:
    from nb_hitl.message import Msg, ToolUseBlock

    from ._loop import LoopBridge


class Entry:
    """One transcript row: a message (drawn lazily) or an arbitrary widget."""

    __slots__ = ("key", "msg", "view")

    def __init__(self, key: str, msg: Msg | None = None, view: w.Widget | None = None) -> None:
        self.key = key
        self.msg = msg
        self.view = view


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
        self.earlier = w.Button(description="Show earlier messages", layout={"display": "none"})
        # The scrolling box is a ``column-reverse`` flex box (see ``CSS``) around one inner box
        # holding the rows in reading order: its scroll starts at the bottom and stays there
        # as rows grow, so the newest row is always in view, without JavaScript.
        self.inner = w.VBox()
        self.inner.add_class("nb-hitl-rows")
        self.box = w.VBox([self.inner])
        self.box.add_class("nb-hitl-transcript")

    @property
    def rows(self) -> list[w.Widget]:
        """The row widgets drawn, oldest first."""
        return list(self.inner.children)

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
        entry.msg, entry.view = msg, None
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

    def _view(self, entry: Entry) -> w.Widget:
        if entry.view is None:
            assert entry.msg is not None
            classes = ("nb-hitl-row", *self.row_classes(entry.msg))  # in the opening message
            if is_long(entry.msg):  # e.g. a 1 MB paste: a preview and "Show all"
                entry.view = CollapsedMessage(entry.msg, self.images, self.callback)
                for c in classes:
                    entry.view.add_class(c)
            elif is_continuation(entry.msg):  # agent.resume(): one answer, with its seam
                instruction = self.instruction_for(entry.msg)
                row = continued_html(entry.msg, self.images, self._msg_of, instruction)
                row = with_copy_button(entry.msg, self._actions(entry.msg, row))
                entry.view = html(row, classes)
            else:
                row = self._actions(entry.msg, msg_html(entry.msg, self.images))
                entry.view = html(with_copy_button(entry.msg, row), classes)
        return entry.view

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
        """Put the recent rows in the box (creating their widgets on first sight)."""
        shown = [e for e in self.entries if e.key not in self.folded]
        hidden = self._hidden(shown)
        self.earlier.layout.display = "" if hidden else "none"
        if hidden:
            self.earlier.description = f"Show earlier messages ({hidden} hidden)"
        children = tuple(self._view(e) for e in shown[hidden:])
        if self.pacer is not None:
            self.pacer.pace(children)
        if children != self.inner.children:
            self.inner.children = children


LIVE_FRONT_END = "delta"
"""How streaming rows are drawn: ``"delta"`` (``LiveMessage``: the front end appends what is
new) or ``"html"`` (``LiveMessageView``: ipywidgets HTML segments, the tail resent whole on
each redraw, slowed down for fast streams; kept for comparison in ``bench/``)."""
FAST_CHARS_PER_SECOND = 4_000
"""Above this text rate, ``"html"`` rows redraw less often (at most one per ``MAX_INTERVAL``)."""
MAX_INTERVAL = 0.25
"""The longest wait between redraws of a very fast stream."""


class LiveRows:
    """The streaming rows of a transcript, redrawn at most once per ``interval`` seconds.

    ``push`` records the newest state of a streaming message (deltas are coalesced: only the
    latest state is drawn); ``commit`` freezes a row when memory holds its message; ``stop``
    drops what is not drawn yet; ``end`` removes rows a finished reply never committed.

    Rows are ``LiveMessage`` anywidgets: a redraw sends only the text that is new, so every
    stream keeps its full rate. With ``front_end="html"`` (the former rows, for benchmarks) a
    very fast stream (over ``FAST_CHARS_PER_SECOND``) is redrawn less often, down to one
    redraw per ``MAX_INTERVAL``, because each of those redraws resends the growing tail.

    Redraws come from the loop's shared ``RedrawBudget``: with many streams at once (many
    chats, a hub's participants) each is redrawn less often, in fair turns, so that the kernel
    stays under Jupyter server's iopub rate limit; ``commit`` draws the final text regardless.
    """

    def __init__(
        self,
        transcript: Transcript,
        bridge: LoopBridge,
        interval: float,
        on_flush: Callable[[], None] = lambda: None,
        front_end: str | None = None,
    ) -> None:
        self.front_end = front_end or LIVE_FRONT_END
        if self.front_end not in ("delta", "html"):
            raise ValueError(f'front_end must be "delta" or "html" (got {self.front_end!r}).')
        self.transcript = transcript
        self.bridge = bridge
        self.interval = interval
        self.on_flush = on_flush
        self.views: dict[str, LiveMessage | LiveMessageView] = {}
        self.pending: dict[str, Msg] = {}
        self.flushes = 0
        """How many coalesced redraws happened (for benchmarks and tests)."""
        self.budget = redraw_budget(bridge.loop)
        if transcript.pacer is None:
            transcript.pacer = comm_pacer(bridge.loop)
        """The loop's shared redraw budget, which calls ``flush`` when this row's turn comes."""
        self.last_flush = 0.0
        self._next_interval = interval
        self._drawn_len: dict[str, int] = {}

    def push(self, msg: Msg) -> None:
        """Draw ``msg`` (the whole message so far) at the next redraw."""
        self.pending[msg.id] = msg
        self.budget.request(self, self.last_flush + self._next_interval)

    def stop(self) -> None:
        """Forget what is not drawn yet (deltas of a stopped reply are never drawn)."""
        self.pending.clear()
        self.budget.cancel(self)

    def mark_interrupted(self) -> None:
        """Show every streaming row in the interrupted style at once (Stop was pressed),
        ahead of any updates waiting in the loop's pacer."""
        pacer = comm_pacer(self.bridge.loop)
        for view in self.views.values():
            with pacer.urgent(view):
                view.mark_interrupted()

    def commit(self, msg: Msg) -> bool:
        """Freeze the live row of ``msg`` with its final content; False if it has none."""
        self.pending.pop(msg.id, None)
        if not self.pending:
            self.budget.cancel(self)
        self._drawn_len.pop(msg.id, None)
        view = self.views.pop(msg.id, None)
        if view is None:
            return False
        view.finish(msg)
        entry = self.transcript.get(msg.id)
        if entry is not None:
            entry.msg = msg
        return True

    def flush(self) -> None:
        """Redraw every message with pending updates (creating its row on first sight)."""
        self.budget.cancel(self)
        self.last_flush = time.monotonic()
        if not self.pending:
            return
        self.flushes += 1
        pending, self.pending = self.pending, {}
        grown = 0
        for msg_id, msg in pending.items():
            view = self.views.get(msg_id)
            if view is None:
                if self.transcript.get(msg_id) is not None:
                    continue  # already committed and frozen
                self.transcript.fold_continued(msg)
                instruction = self.transcript.instruction_for(msg)
                view = self._new_view(msg, instruction)
                view.actions = self.transcript.row_actions
                self.views[msg_id] = view
                self.transcript.add(Entry(msg_id, msg, view))
            view.update(msg)
            size = len(msg.get_text_content() or "")
            grown += max(0, size - self._drawn_len.get(msg_id, 0))
            self._drawn_len[msg_id] = size
        if self.front_end == "html":
            fast = grown / FAST_CHARS_PER_SECOND
            self._next_interval = min(MAX_INTERVAL, max(self.interval, fast))
        self.on_flush()

    def _new_view(self, msg: Msg, instruction: str) -> LiveMessage | LiveMessageView:
        images = self.transcript.images
        if self.front_end == "html":
            return LiveMessageView(msg, images, instruction)
        classes = self.transcript.row_classes(msg)
        return LiveMessage(msg, images, instruction, self.transcript.callback, classes)

    def end(self) -> None:
        """Remove streaming rows the reply never committed (an interrupt kept nothing)."""
        self.stop()
        self._drawn_len.clear()
        self._next_interval = self.interval
        if not self.views:
            return
        for msg_id in list(self.views):
            self.views.pop(msg_id).close()
            self.transcript.remove(msg_id, render=False)
        self.transcript.render()


__all__ = ["Entry", "LiveRows", "Transcript"]
