"""HubFeed: one transcript fed by every participant's events, and who is speaking now.

Each message is drawn once, from its speaker's own events: what the other participants
observe of a reply (the hub's broadcast) and the input a speaker is given are copies of
messages already drawn. Rows are the chat's (``Transcript``, ``LiveRows``, one live stream per
participant so that concurrent speakers do not end each other's rows), with a colour class per
speaker on top.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import RemoteImages, esc, msg_flags
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
from .._live_rows import LiveRows
from .._question import QuestionCards
from .._row import Row
from .._transcript import Entry, Transcript
from ._style import PALETTE, speaker_class

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.events import Subscription

    from .._loop import LoopBridge


class _HubTranscript(Transcript):
    """A transcript whose rows carry their speaker's colour class."""

    def __init__(self, window: int, classes: Callable[[str], str], **kwargs: Any) -> None:
        super().__init__(window, **kwargs)
        self.classes = classes

    def row_classes(self, msg: Msg | None) -> list[str]:
        cls = self.classes(msg.name) if msg is not None else ""
        return [cls] if cls else []

    def _view(self, entry: Entry) -> Any:
        view = super()._view(entry)
        if isinstance(view, w.Widget):
            for cls in self.row_classes(entry.msg):
                view.add_class(cls)  # rows made before (a no-op for those made with it)
        return view


class HubFeed:
    """The participants' shared transcript and the speaking / stopping state.

    Args:
        bridge: the panel's loop bridge (events are handled on its loop).
        window: rows drawn at first (older ones behind "Show earlier").
        images: the ``RemoteImages`` policy of the rows.
        interval: least seconds between redraws of a streaming message.
        on_change: called when who is speaking (or stopping) changes.
    """

    def __init__(
        self,
        bridge: LoopBridge,
        window: int,
        images: RemoteImages,
        interval: float,
        on_change: Callable[[], None],
    ) -> None:
        self.bridge = bridge
        self.interval = interval
        self.on_change = on_change
        self.transcript = _HubTranscript(
            window, self.speaker_class, images=images, callback=bridge.callback, bridge=bridge
        )
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
        self._live: dict[int, LiveRows] = {}

    def speaker_class(self, name: str) -> str:
        """The colour class of participant ``name`` (``""`` for anyone else)."""
        return self.classes.get(name, "")

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
        self._live[id(agent)] = LiveRows(self.transcript, self.bridge, self.interval)
        handler = functools.partial(self._on_event, agent)
        self._subs[id(agent)] = agent.subscribe(self.bridge.callback(handler))
        if isinstance(agent, ApprovalMethods):
            status = functools.partial(self._approval_status, agent.name)
            self.approvals[id(agent)] = ApprovalCards(agent, self._add_row, status, self.bridge)
        if isinstance(agent, ApprovalMethods):
            status = functools.partial(self._approval_status, agent.name)
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
        key = "note-" + uuid.uuid4().hex[:12]
        row = Row(
            key, f'<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event">{esc(text)}</div>'
        )
        self.transcript.add(Entry(key, None, row))

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

    def _add_row(self, widget: w.Widget | CardRow) -> None:
        """A row at the end of the transcript: a widget (a question form), or a card drawn
        inside the transcript (an approval card)."""
        key = widget.key if isinstance(widget, CardRow) else "widget-" + uuid.uuid4().hex[:12]
        self.transcript.add(Entry(key, None, widget))

    def _approval_status(self, name: str, state: str, detail: str) -> None:
        if state == "waiting":
            self.approving[name] = detail
        else:
            self.approving.pop(name, None)
        self.on_change()

    # -- events ----------------------------------------------------------------------------------
    def _on_event(self, agent: AgentBase, ev: Event) -> None:
        live = self._live[id(agent)]
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

    def _on_added(self, agent: AgentBase, live: LiveRows, msg: Msg) -> None:
        if self._is_copy(agent, msg):
            return
        if live.commit(msg):
            entry = self.transcript.get(msg.id)
            cls = self.speaker_class(msg.name)
            if entry is not None and isinstance(entry.view, Row) and cls:
                entry.view.add_class(cls)  # finish() reset the row's classes
            return
        entry = self.transcript.get(msg.id)
        if entry is None:
            self.transcript.add(Entry(msg.id, msg))
        elif entry.msg is not None and msg_flags(entry.msg) != msg_flags(msg):
            entry.msg, entry.view = msg, None
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


__all__ = ["HubFeed"]
