"""HubFeed: one transcript fed by every participant's events, and who is speaking now.

Each message is drawn once, from its speaker's own events: what the other participants
observe of a reply (the hub's broadcast) and the input a speaker is given are copies of
messages already drawn. The rows are part ``rows`` of the hub panel's one model
(``HubTranscript``): a list of ``{id, cls, html}`` (a finished message: the chat's row HTML,
``nb_hitl._render``; an approval card or question form: its own HTML; a note) or ``{id, cls,
live}`` (a streaming message: the chat's own ``LiveRow``, kept up to date by the keyed
``live`` ops the chat's transcript speaks too, ``_row_deltas.live_op``,
``js/src/shared/live_row.js``). Every
change is a keyed op in the panel's sequenced batches; one live stream per participant, so
concurrent speakers do not end each other's rows; a colour class per speaker on top.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from nb_hitl._render import (
    RemoteImages,
    esc,
    header_html,
    msg_classes,
    msg_flags,
    msg_html,
    plain,
    with_copy_button,
)
from nb_hitl.agent.approvals import ApprovalMethods
from nb_hitl.events import (
    ErrorOccurred,
    Event,
    MessageAdded,
    MessageUpdated,
    ReplyFinished,
    ReplyStarted,
    ToolCallStarted,
)
from nb_hitl.message import MetaKey, Msg

from .._approval import ApprovalCards
from .._card import CardRow
from .._collapsed import COLLAPSED_PREVIEW_CHARS, human_size, is_long, message_text
from .._live_rows import LiveRow
from .._question import QuestionCards
from .._redraw import redraw_budget
from .._row_deltas import apply_live, live_op
from ._buttons import Control
from ._style import PALETTE, speaker_class

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.events import Subscription
    from nb_hitl.message import ToolUseBlock

    from .._loop import LoopBridge

Ops = list[dict[str, Any]]
EXPAND = "expand"
"""The action a collapsed long message's "Show all" sends (its argument: the row's key)."""


class Note:
    """A small system line of the transcript (not a message): its HTML, escaped."""

    def __init__(self, value: str) -> None:
        self.value = value
        self._dom_classes: tuple[str, ...] = ("nb-hitl-row",)

    def drawn_html(self) -> str:
        """What the page shows."""
        return self.value


class MessageRow:
    """A finished message's row: its key, HTML (escaped) and classes, and the message.

    Args:
        key: the row's key (the message id).
        html: the row's whole HTML (the chat's: ``nb_hitl._render``).
        cls: the row's classes, space-separated.
        msg: the message it was drawn from (a new message object means a redraw).
    """

    __slots__ = ("cls", "html", "key", "msg")

    def __init__(self, key: str, html: str, cls: str, msg: Msg | None = None) -> None:
        self.key, self.html, self.cls, self.msg = key, html, cls, msg

    @property
    def value(self) -> str:
        """The row's HTML (as an ``HTML`` row's ``value``)."""
        return self.html

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        return tuple(self.cls.split())

    def drawn_html(self) -> str:
        """What the page shows."""
        return self.html


class Entry:
    """One transcript row: a message (drawn lazily), a card, a note or a streaming row."""

    __slots__ = ("key", "msg", "row", "view")

    def __init__(self, key: str, msg: Msg | None = None, view: Any = None) -> None:
        self.key = key
        self.msg = msg
        self.view = view
        self.row: MessageRow | None = None
        """A finished message's row (its HTML and classes) once drawn."""

    @property
    def drawn(self) -> Any:
        """What draws the entry: its card, note or streaming row, else its message row."""
        return self.view if self.view is not None else self.row


class HubTranscript:
    """The hub's rows: an ordered list of entries, the recent ones drawn as part ``rows``.

    Only the last ``window`` rows are drawn (up to half a window more before the oldest go,
    together); "Show earlier messages" widens the window.

    Args:
        window: rows drawn at first (and more per "Show earlier").
        classes: a message's extra row classes (its speaker's colour).
        images: the ``RemoteImages`` policy of the rows.
        send: applies a batch of ops to the panel's model (sent to the page as one message).
    """

    def __init__(
        self,
        window: int,
        classes: Callable[[Msg], list[str]],
        images: RemoteImages,
        send: Callable[[Ops], Any],
    ) -> None:
        self.window = self.step = window
        self.classes = classes
        self.images: RemoteImages = images
        self.send = send
        self.entries: list[Entry] = []
        self.by_key: dict[str, Entry] = {}
        self.expanded: set[str] = set()
        """Long messages drawn whole ("Show all" pressed)."""
        self.earlier = Control("Show earlier messages", shown=False)
        self._first: str | None = None
        self._drawn: list[dict[str, Any]] = []
        """The rows the page holds, in order."""

    @property
    def rows(self) -> list[Any]:
        """What draws each row on the page, oldest first."""
        return [self.by_key[item["id"]].drawn for item in self._drawn if item["id"] in self.by_key]

    def items(self) -> list[dict[str, Any]]:
        """The rows as the page holds them (part ``rows``)."""
        return [dict(item) for item in self._drawn]

    def get(self, key: str) -> Entry | None:
        """The entry with ``key``."""
        return self.by_key.get(key)

    def add(self, entry: Entry, render: bool = True) -> None:
        """Append a row."""
        self.by_key[entry.key] = entry
        self.entries.append(entry)
        if render:
            self.render()

    def remove(self, key: str, render: bool = True) -> Entry | None:
        """Remove a row; returns it."""
        entry = self.by_key.pop(key, None)
        if entry is not None:
            self.entries.remove(entry)
            if render:
                self.render()
        return entry

    def redraw(self, msg: Msg) -> bool:
        """Draw the row of ``msg.id`` anew from ``msg`` (memory changed it); False if none."""
        entry = self.by_key.get(msg.id)
        if entry is None or entry.msg is None:
            return False
        entry.msg, entry.view, entry.row = msg, None, None
        self.render()
        return True

    def follow_edited_call(self, call: ToolUseBlock, messages: list[Msg]) -> bool:
        """A tool call runs with arguments a person edited: redraw the row that asked for it
        from ``messages`` (memory holds the edited call there)."""
        for msg in reversed(messages):
            for block in msg.get_content_blocks("tool_use"):
                if block.id == call.id:
                    entry = self.by_key.get(msg.id)
                    drawn = entry.msg if entry is not None else None
                    if drawn is None or drawn is msg:
                        return False
                    return self.redraw(msg)
        return False

    def card_action(self, text: str, form: Mapping[str, Any] | None = None) -> bool:
        """A card's button was pressed in the page (``"<card key> <verb>"``, its form's
        values): hand it to the card; False when no such card is in the transcript."""
        key, _, verb = str(text).partition(" ")
        entry = self.by_key.get(key)
        if entry is None or not isinstance(entry.view, CardRow):
            return False
        entry.view.act(verb, dict(form or {}))
        return True

    def expand(self, key: str) -> bool:
        """Draw the long message ``key`` whole ("Show all"); False if there is none."""
        entry = self.by_key.get(str(key))
        if entry is None or entry.msg is None or key in self.expanded:
            return False
        self.expanded.add(key)
        entry.row = None
        self.render()
        return True

    def show_earlier(self) -> None:
        """Widen the window by one step."""
        self.window += self.step
        self.render()

    # -- the page's part ---------------------------------------------------------------------
    def live(
        self, row_id: str, msg: Mapping[str, Any] | None = None, cls: str | None = None
    ) -> None:
        """Send the streaming row ``row_id`` its row message ``msg`` and / or classes ``cls``
        (the keyed ``live`` op); nothing when the page does not hold the row."""
        if self._at(row_id) < 0:
            return
        op = live_op(row_id, msg, cls)
        state = {"rows": self._drawn}
        apply_live(state, op)
        self._drawn = state["rows"]
        self.send([op])

    def _at(self, key: str) -> int:
        return next((i for i, item in enumerate(self._drawn) if item["id"] == key), -1)

    def _hidden(self, shown: list[Entry]) -> int:
        start = max(0, len(shown) - self.window)
        kept = next((i for i, e in enumerate(shown) if e.key == self._first), start)
        if kept < start and len(shown) - kept <= self.window + max(1, self.window // 2):
            start = kept
        self._first = shown[start].key if start < len(shown) else None
        return start

    def _item(self, entry: Entry) -> dict[str, Any]:
        view = entry.view
        if isinstance(view, LiveRow):
            return view.item()
        if isinstance(view, CardRow):
            view.attach(self.redraw_rows)
            return {"id": entry.key, "cls": view.cls, "html": view.html}
        if isinstance(view, Note):
            return {"id": entry.key, "cls": "nb-hitl-row", "html": view.value}
        msg = entry.msg
        assert msg is not None
        cls = " ".join(("nb-hitl-row", *self.classes(msg)))
        row = entry.row
        if row is None or row.msg is not msg:
            row = MessageRow(entry.key, self._row_html(entry.key, msg), cls, msg)
        elif row.cls != cls:
            row = MessageRow(entry.key, row.html, cls, msg)
        entry.row = row
        return {"id": entry.key, "cls": row.cls, "html": row.html}

    def _row_html(self, key: str, msg: Msg) -> str:
        if is_long(msg) and key not in self.expanded:  # e.g. a 1 MB paste: a preview
            text = message_text(msg)
            size = human_size(len(text.encode("utf-8", "replace")))
            shown = text[:COLLAPSED_PREVIEW_CHARS]
            return (
                f'<div class="nb-hitl-collapsed"><div class="{" ".join(msg_classes(msg))}" '
                f'data-role="{esc(msg.role)}">{header_html(msg)}{plain(shown + "…")}'
                f'<div class="nb-hitl-note">Long message, collapsed: showing {len(shown):,} '
                f"of {len(text):,} characters ({esc(size)}).</div></div>"
                f'<button type="button" class="nb-hitl-expand" data-nb-hitl-action="{EXPAND}" '
                f'data-nb-hitl-arg="{esc(key)}" title="Draw the whole message">Show all '
                f"({esc(size)})</button></div>"
            )
        return with_copy_button(msg, msg_html(msg, self.images))

    def redraw_rows(self) -> None:
        """``render``, for a card that drew itself anew."""
        self.render()

    def render(self) -> Ops:
        """Bring the page's rows up to date: one batch of keyed ops (none: nothing sent)."""
        hidden = self._hidden(self.entries)
        self.earlier.shown = bool(hidden)
        self.earlier.description = (
            f"Show earlier messages ({hidden} hidden)" if hidden else "Show earlier messages"
        )
        new = [self._item(e) for e in self.entries[hidden:]]
        ops = diff(self._drawn, new)
        self._drawn = new
        if ops:
            self.send(ops)
        return ops


def diff(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> Ops:
    """The keyed ops (``remove``, ``insert`` before a row, ``replace``) from ``old`` to ``new``."""
    keep = {item["id"] for item in new}
    ops: Ops = [{"op": "remove", "key": "rows", "id": i["id"]} for i in old if i["id"] not in keep]
    drawn = {i["id"]: i for i in old if i["id"] in keep}
    cur = [i["id"] for i in old if i["id"] in keep]
    for n, item in enumerate(new):
        if n < len(cur) and cur[n] == item["id"]:
            if drawn[item["id"]] != item:
                ops.append({"op": "replace", "key": "rows", "item": item})
            continue
        before = cur[n] if n < len(cur) else None
        if item["id"] in drawn:
            cur.remove(item["id"])
        cur.insert(n, item["id"])
        ops.append({"op": "insert", "key": "rows", "item": item, "before": before})
    return ops


class HubLive:
    """One participant's streaming rows, redrawn from the loop's shared redraw budget.

    ``push`` records the newest state of a streaming message (coalesced); ``commit`` makes it
    a finished row when memory holds it; ``stop`` drops what is not drawn yet; ``end``
    removes rows a finished reply never committed.
    """

    def __init__(self, feed: HubFeed, interval: float) -> None:
        self.feed = feed
        self.transcript = feed.transcript
        self.interval = interval
        self.views: dict[str, LiveRow] = {}
        self.pending: dict[str, Msg] = {}
        self.flushes = 0
        """How many coalesced redraws happened (benches and tests)."""
        self.budget = redraw_budget(feed.bridge.loop)
        self.last_flush = 0.0

    def push(self, msg: Msg) -> None:
        """Draw ``msg`` (the whole message so far) at the next redraw."""
        self.pending[msg.id] = msg
        self.budget.request(self, self.last_flush + self.interval)

    def stop(self) -> None:
        """Forget what is not drawn yet (deltas of a stopped reply are never drawn)."""
        self.pending.clear()
        self.budget.cancel(self)

    def mark_interrupted(self) -> None:
        """Draw every streaming row in the interrupted style now (Stop was pressed)."""
        for view in self.views.values():
            view.mark_interrupted()

    def commit(self, msg: Msg) -> bool:
        """The streaming row of ``msg`` becomes its finished row; False if it has none."""
        self.pending.pop(msg.id, None)
        if not self.pending:
            self.budget.cancel(self)
        view = self.views.pop(msg.id, None)
        if view is None:
            return False
        entry = self.transcript.get(msg.id)
        if entry is not None:
            entry.msg, entry.view, entry.row = msg, None, None
            self.transcript.render()
        return True

    def flush(self) -> None:
        """Redraw every message with pending updates (its row made on first sight)."""
        self.budget.cancel(self)
        self.last_flush = time.monotonic()
        if not self.pending:
            return
        self.flushes += 1
        pending, self.pending = self.pending, {}
        for msg_id, msg in pending.items():
            view = self.views.get(msg_id)
            if view is None:
                if self.transcript.get(msg_id) is not None:
                    continue  # already committed
                classes = [*self.feed.row_classes(msg), "nb-hitl-live-row"]
                view = LiveRow(self.transcript, msg, self.transcript.images, classes=classes)
                view.update(msg)  # drawn whole by the row's insert
                self.views[msg_id] = view
                self.transcript.add(Entry(msg_id, msg, view))
                continue
            view.update(msg)

    def end(self) -> None:
        """Remove streaming rows the reply never committed (an interrupt kept nothing)."""
        self.stop()
        if not self.views:
            return
        for msg_id in list(self.views):
            self.views.pop(msg_id)
            self.transcript.remove(msg_id, render=False)
        self.transcript.render()


class HubFeed:
    """The participants' shared transcript and the speaking / stopping state.

    Args:
        bridge: the panel's loop bridge (events are handled on its loop).
        window: rows drawn at first (older ones behind "Show earlier").
        images: the ``RemoteImages`` policy of the rows.
        interval: least seconds between redraws of a streaming message.
        on_change: called when who is speaking (or stopping) changes.
        send: applies a batch of ops to the panel's model.
    """

    def __init__(
        self,
        bridge: LoopBridge,
        window: int,
        images: RemoteImages,
        interval: float,
        on_change: Callable[[], None],
        send: Callable[[Ops], Any] = lambda ops: None,
    ) -> None:
        self.bridge = bridge
        self.interval = interval
        self.on_change = on_change
        self.transcript = HubTranscript(window, self.row_classes, images, send)
        self.agents: list[AgentBase] = []
        self.classes: dict[str, str] = {}
        """Colour class by participant name, given in the order participants are first seen."""
        self.speaking: list[str] = []
        self.stopping: set[str] = set()
        self.error_seen = False
        """True once an agent's error was drawn (reset by the panel for each run)."""
        self.failed: list[AgentBase] = []
        """Participants whose reply failed in this run (reset with ``error_seen``)."""
        self.approving: dict[str, str] = {}
        """Participants whose tool calls wait for the person's approval: name -> what."""
        self.approvals: dict[int, ApprovalCards] = {}
        """The approval cards of each participant that has approvals (by ``id(agent)``)."""
        self.questions: dict[int, QuestionCards] = {}
        """The ``ask_user`` forms of each participant that can ask (by ``id(agent)``)."""
        self._subs: dict[int, Subscription] = {}
        self._live: dict[int, HubLive] = {}

    def speaker_class(self, name: str) -> str:
        """The colour class of participant ``name`` (``""`` for anyone else)."""
        return self.classes.get(name, "")

    def row_classes(self, msg: Msg | None) -> list[str]:
        """The classes a message's row carries besides its own (its speaker's colour)."""
        cls = self.speaker_class(msg.name) if msg is not None else ""
        return [cls] if cls else []

    def colour_of(self, name: str) -> str | None:
        """The colour of participant ``name`` (``#rrggbb``), or ``None``."""
        cls = self.classes.get(name)
        return PALETTE[int(cls.rsplit("-", 1)[1])] if cls else None

    def follow(self, agent: AgentBase) -> bool:
        """Follow ``agent``'s events (once); ``True`` if it is new."""
        if id(agent) in self._subs:
            return False
        self.agents.append(agent)
        if agent.name not in self.classes:
            self.classes[agent.name] = speaker_class(len(self.classes))
        self._live[id(agent)] = HubLive(self, self.interval)
        handler = functools.partial(self._on_event, agent)
        self._subs[id(agent)] = agent.subscribe(self.bridge.callback(handler))
        if isinstance(agent, ApprovalMethods):
            status = functools.partial(self._approval_status, agent.name)
            self.approvals[id(agent)] = ApprovalCards(agent, self._add_row, status, self.bridge)
            self.questions[id(agent)] = QuestionCards(agent, self._add_row, status, self.bridge)
        return True

    def stop(self) -> bool:
        """Interrupt every participant that is replying; ``False`` if none is."""
        stopped = False
        for agent in self.agents:
            if not agent.is_replying or agent.name in self.stopping:
                continue
            live = self._live[id(agent)]
            live.mark_interrupted()  # the interrupted style goes out first
            live.stop()
            self.stopping.add(agent.name)
            stopped = agent.interrupt_nowait(cause="interrupt") or stopped
        if stopped:
            self.on_change()
        return stopped

    def preload(self) -> None:
        """Draw what the participants' memories hold already, each message once."""
        seen: dict[str, Msg] = {}
        orders: list[list[Msg]] = []
        for agent in self.agents:
            memory = getattr(agent, "memory", None)
            messages = list(memory.messages) if memory is not None else []
            orders.append(messages)
            for msg in messages:
                if msg.id not in seen and not self._is_recorded_copy(agent, msg):
                    seen[msg.id] = msg
        for msg in _merged(orders):
            if msg.id in seen:
                self.transcript.add(Entry(msg.id, seen[msg.id]), render=False)
        self.transcript.render()

    def add(self, msg: Msg) -> None:
        """Draw a message the panel itself sends (the first input, an instruction)."""
        if self.transcript.get(msg.id) is None:
            self.transcript.add(Entry(msg.id, msg))

    def note(self, text: str) -> None:
        """A small system line in the transcript (not a message of the conversation)."""
        row = Note(f'<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event">{esc(text)}</div>')
        self.transcript.add(Entry("note-" + uuid.uuid4().hex[:12], None, row))

    def error(self, text: str, name: str = "nb_hitl") -> None:
        """An error row (the chat's error style)."""
        msg = Msg(name, text, "assistant", metadata={MetaKey.PANEL_ERROR: True})
        self.transcript.add(Entry("error-" + msg.id, msg))

    def close(self) -> None:
        """Stop following the agents."""
        for sub in self._subs.values():
            sub.close()
        self._subs.clear()
        for cards in self.approvals.values():
            cards.close()
        self.approvals.clear()
        for forms in self.questions.values():
            forms.close()
        self.questions.clear()
        for live in self._live.values():
            live.stop()

    def _add_row(self, card: CardRow) -> None:
        """A card (an approval card, a question form) at the end of the transcript."""
        if not isinstance(card, CardRow):
            raise TypeError(f"the hub's transcript draws cards (CardRow), got {type(card)!r}")
        self.transcript.add(Entry(card.key, None, card))

    def _approval_status(self, name: str, state: str, detail: str) -> None:
        if state == "waiting":
            self.approving[name] = detail
        else:
            self.approving.pop(name, None)
        self.on_change()

    # -- events ----------------------------------------------------------------------------------
    def _on_event(self, agent: AgentBase, ev: Event) -> None:
        live = self._live.get(id(agent))
        if live is None:  # closed
            return
        if isinstance(ev, MessageUpdated):
            if ev.msg is not None and agent.name not in self.stopping:
                live.push(ev.msg)
        elif isinstance(ev, MessageAdded) and ev.msg is not None:
            self._on_added(agent, live, ev.msg)
        elif isinstance(ev, ToolCallStarted) and ev.tool_use is not None:
            memory = getattr(agent, "memory", None)
            if memory is not None:
                self.transcript.follow_edited_call(ev.tool_use, memory.messages)
        elif isinstance(ev, ReplyStarted):
            if agent.name not in self.speaking:
                self.speaking.append(agent.name)
            self.on_change()
        elif isinstance(ev, (ReplyFinished, ErrorOccurred)):
            live.end()
            if isinstance(ev, ErrorOccurred):
                self.error_seen = True
                if agent not in self.failed:
                    self.failed.append(agent)
                self.error(f"{ev.error_type}: {ev.message}", ev.agent_name)
            elif ev.msg is not None:
                self.add(ev.msg)  # a UserAgent's reply (it keeps no memory); else drawn
            self.stopping.discard(agent.name)
            self.approving.pop(agent.name, None)
            if agent.name in self.speaking:
                self.speaking.remove(agent.name)
            self.on_change()

    def _on_added(self, agent: AgentBase, live: HubLive, msg: Msg) -> None:
        if self._is_copy(agent, msg):
            return
        if live.commit(msg):
            return
        entry = self.transcript.get(msg.id)
        if entry is None:
            self.transcript.add(Entry(msg.id, msg))
        elif entry.msg is not None and msg_flags(entry.msg) != msg_flags(msg):
            entry.msg, entry.view, entry.row = msg, None, None
            self.transcript.render()

    def _is_copy(self, agent: AgentBase, msg: Msg) -> bool:
        """Another participant's message in ``agent``'s memory: a broadcast copy, or the input
        it was given. Either way its speaker's own events draw it."""
        return msg.name != agent.name and msg.name in self.classes

    def _is_recorded_copy(self, agent: AgentBase, msg: Msg) -> bool:
        """``_is_copy`` for drawing from memory: the copies of what a speaker that keeps no
        memory (a ``UserAgent``) said are its only record, so they are drawn (once: every
        observer holds the same message)."""
        if not self._is_copy(agent, msg):
            return False
        return any(
            a.name == msg.name and getattr(a, "memory", None) is not None for a in self.agents
        )


def _merged(orders: list[list[Msg]]) -> list[Msg]:
    """Every message of the memories ``orders`` once, in an order that keeps each memory's own
    order (a message after the ones it follows in any memory), earliest timestamp first where
    the memories leave it open.

    Timestamps alone cannot order a discussion: they have millisecond resolution, and a fast
    speaker's reply often shares its millisecond with the message before it. Where memories
    disagree (concurrent speakers each observed the other's reply after their own) the
    earliest waiting message goes next.
    """
    first: dict[str, int] = {}
    msgs: dict[str, Msg] = {}
    after: dict[str, set[str]] = {}
    waits: dict[str, int] = {}
    for messages in orders:
        for msg in messages:
            if msg.id not in msgs:
                first[msg.id], msgs[msg.id] = len(first), msg
                after[msg.id], waits[msg.id] = set(), 0
        for prev, then in itertools.pairwise(messages):
            if prev.id != then.id and then.id not in after[prev.id]:
                after[prev.id].add(then.id)
                waits[then.id] += 1

    def key(mid: str) -> tuple[str, int, str]:
        return msgs[mid].timestamp, first[mid], mid

    ready = [key(mid) for mid, n in waits.items() if n == 0]
    heapq.heapify(ready)
    out: list[Msg] = []
    while len(out) < len(msgs):
        if not ready:  # the memories disagree: the earliest message still waiting goes next
            mid = min((m for m, n in waits.items() if n > 0), key=key)
            waits[mid] = 0
            heapq.heappush(ready, key(mid))
        _, _, mid = heapq.heappop(ready)
        if waits[mid] < 0:
            continue
        waits[mid] = -1  # placed
        out.append(msgs[mid])
        for nxt in after[mid]:
            if waits[nxt] > 0:
                waits[nxt] -= 1
                if waits[nxt] == 0:
                    heapq.heappush(ready, key(nxt))
    return out


__all__ = [
    "EXPAND",
    "Entry",
    "HubFeed",
    "HubLive",
    "HubTranscript",
    "LiveRow",
    "MessageRow",
    "Note",
    "diff",
]
