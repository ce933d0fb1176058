"""Transcript: the chat's rows, only the most recent ones drawn.

Rows are drawn lazily (a message gets its row when it first becomes visible) and only the
last ``window`` rows are drawn (up to half a window more before the oldest go, together:
``_hidden``); "Show earlier messages" widens the window. Messages the
person just sent stay after whatever the interrupted reply still commits, so the transcript
shows the order memory holds.

Every row is drawn by one front-end model, ``TranscriptView`` (``_transcript_view.py``): a
finished message, a card, a note, a branch switcher, a collapsed long message, a compression
row and a streaming message are each one item of its ``rows``, keyed by message id; a change
is one batch of keyed ops. A chat's transcript opens one comm however long it grows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import RemoteImages, msg_html, with_copy_button

from ._card import CardRow
from ._collapsed import CollapsedMessage, is_long
from ._loop import LoopBridge
from ._row import ROW_ACTION, Row, RowButton
from ._seam import continued_html, folded_ids, is_continuation
from ._transcript_view import TranscriptView

if TYPE_CHECKING:
    from nb_hitl.message import Msg, ToolUseBlock

SegmentRow = Row
"""The former name of a finished row (``Row``)."""


class EarlierButton:
    """ "Show earlier messages": drawn by the transcript's front end (``earlier`` of its state).

    ``click()`` sends the page's action; ``description`` and ``layout.display`` read as an
    ipywidgets button's do.
    """

    def __init__(self, transcript: Transcript) -> None:
        self._transcript = transcript

        class _Layout:
            @property
            def display(_self) -> str:
                return "" if transcript.view.state_part("earlier") else "none"

        self.layout = _Layout()

    @property
    def description(self) -> str:
        """Its label (``"Show earlier messages (N hidden)"``; ``""`` while it is hidden)."""
        return str(self._transcript.view.state_part("earlier") or "")

    def click(self) -> None:
        """Press it, as the page does."""
        self._transcript.view.page_message({"t": "action", "name": "show_earlier", "args": {}})

    def on_click(self, fn: Callable[[Any], Any]) -> None:
        """Also call ``fn(button)`` when it is pressed (it shows earlier rows by itself)."""
        self._transcript.earlier_handlers.append(fn)


class Entry:
    """One transcript row: a message (drawn lazily), a row of its own (a card, a note...),
    a streaming message, or an arbitrary widget."""

    __slots__ = ("key", "msg", "row", "view")

    def __init__(self, key: str, msg: Msg | None = None, view: w.Widget | Row | Any = None) -> None:
        self.key = key
        self.msg = msg
        self.view = view
        self.row: Row | None = None
        """The message's row (when it has no view of its own)."""

    @property
    def drawn(self) -> Any:
        """What draws the entry: its view (a ``Row``, a streaming ``LiveRow``, a widget), else
        its message's row (None: not yet)."""
        return self.view if self.view is not None else self.row


class Transcript:
    """The rows of a chat: an ordered list of entries and the model that draws the recent ones.

    Args:
        window: how many recent rows are drawn at first (and how many more per "Show earlier").
        images: the ``RemoteImages`` policy of the rows.
        callback: wraps row buttons' handlers (the chat's loop bridge).
        bridge: the loop the page's actions run on (by default the loop running now).
    """

    def __init__(
        self,
        window: int,
        *,
        images: RemoteImages = "link",
        callback: Callable[[Callable[[Any], None]], Callable[[Any], None]] = lambda f: f,
        bridge: LoopBridge | None = None,
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
        self.row_actions: Callable[[Msg, str], str] | None = None
        """Adds a message row's buttons (Edit, Regenerate) to its HTML; None: no buttons."""
        self._bridge = bridge
        self._model: TranscriptView | None = None
        self._first_rows: tuple[list[dict[str, Any]], str] = ([], "")
        self.earlier_handlers: list[Callable[[Any], Any]] = []
        self.earlier = EarlierButton(self)
        """"Show earlier messages" (drawn by the front end when rows are hidden)."""
        self._drawn: list[Any] = []

    @property
    def view(self) -> TranscriptView:
        """The one model that draws every row (``TranscriptView``), made on first use: rows
        drawn before it start in its opening message (no op batch for them)."""
        if self._model is None:
            rows, earlier = self._first_rows
            self._model = TranscriptView(rows, earlier, bridge=self._bridge)
            self._model.on_action("show_earlier", self._earlier_pressed)
            self._model.on_action(ROW_ACTION, self._row_pressed)
        return self._model

    @property
    def box(self) -> TranscriptView:
        """What a panel puts among its children (the transcript's model)."""
        return self.view

    @property
    def rows(self) -> list[Any]:
        """The rows drawn, oldest first: ``Row`` (a finished message: ``value`` /
        ``drawn_html()`` is its HTML; a card, a note...), ``LiveRow`` (streaming) and widgets."""
        return list(self._drawn)

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
        if isinstance(entry.view, w.Widget):
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

    def _view(self, entry: Entry) -> Any:
        """What draws the entry: its view (a card, a note, a streaming row, a widget), or its
        message's row (made on first sight, anew when the message object changes)."""
        view = entry.view
        if isinstance(view, CardRow):  # a card: drawn anew when it changes
            view.attach(self.render)
        elif isinstance(view, Row):
            view.on_change = self.render
        if isinstance(view, Row):
            view.press_row = self._press
        if view is not None:
            return view
        assert entry.msg is not None
        cls = " ".join(("nb-hitl-row", *self.row_classes(entry.msg)))
        if is_long(entry.msg):  # e.g. a 1 MB paste: a preview and "Show all"
            entry.view = CollapsedMessage(entry.key, entry.msg, self.images, cls)
            return self._view(entry)
        row = entry.row
        if row is None or row.msg is not entry.msg:
            row = Row(entry.key, self._row_html(entry.msg), cls, entry.msg)
        elif row.cls != cls:
            row = Row(entry.key, row.html, cls, entry.msg)
        entry.row = row
        return row

    def _press(self, key: str, verb: str) -> None:
        self.view.page_message(
            {"t": "action", "name": ROW_ACTION, "args": {"id": key, "verb": verb}}
        )

    def _row_pressed(self, id: str = "", verb: str = "") -> None:
        entry = self.by_key.get(str(id))
        if entry is not None and isinstance(entry.view, Row):
            entry.view.press(str(verb))

    def _earlier_pressed(self) -> None:
        self.show_earlier()
        for fn in list(self.earlier_handlers):
            fn(self.earlier)

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
        """Send the recent rows to the page (creating their rows on first sight)."""
        shown = [e for e in self.entries if e.key not in self.folded]
        hidden = self._hidden(shown)
        earlier = f"Show earlier messages ({hidden} hidden)" if hidden else ""
        drawn = [self._view(e) for e in shown[hidden:]]
        self._drawn = drawn
        keys = [e.key for e in shown[hidden:]]
        items = [item_of(d, k) for d, k in zip(drawn, keys, strict=True)]
        if self._model is None:  # not shown yet: these rows go in its opening message
            self._first_rows = (items, earlier)
            return
        self._model.set_rows(items, earlier)


def item_of(drawn: Any, key: str) -> dict[str, Any]:
    """The page's item for the row ``key`` drawn by ``drawn`` (a ``Row``, a ``LiveRow``, any
    widget)."""
    if isinstance(drawn, w.Widget):
        return {"id": key, "widget": "IPY_MODEL_" + str(drawn.model_id)}
    item: dict[str, Any] = drawn.item()
    item["id"] = key
    return item


__all__ = ["EarlierButton", "Entry", "RowButton", "SegmentRow", "Transcript", "item_of"]
