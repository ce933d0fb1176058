"""CommPacer: the panels' widget updates paced kernel-wide, so bursts stay under iopub's limit.

The redraw budget (``_redraw.py``) paces streaming. But 100 chats starting (or finishing) their
replies in the same instant each send a dozen updates at once (status line, buttons, the new
rows), ~1,000 comm messages in a moment: past Jupyter server's ``iopub_msg_rate_limit``
(1,000/s), after which it drops output. So the panels' widgets send their updates (``comm_msg``:
trait updates and custom messages) through one pacer per event loop: a token bucket of
``per_second`` messages (``_bucket.TokenBucket``, the redraw budget's) that sends at once while
there is room and otherwise queues, in order, and drains the queue on a timer. The pacer sits on
the widgets' comms (``_comm.WidgetComm``, the seam ``MarimoHost`` routes through too), so it
sees every message a widget sends, trait updates and custom messages alike, in the order it sent
them. A queued update of a trait set is replaced, in its place, by a newer update of the same
trait set of the same widget (only the latest value matters), so a backlog shrinks instead of
growing; never across a custom message or another update of those traits of that widget, so each
widget's messages reach the front end in the order the kernel made them. Custom messages (a
streaming row's deltas) are never merged. Widgets opening and closing are not paced (an update
may name a widget, which must exist first); a closed widget's queued updates are dropped.

Nothing is lost: every widget ends with the state the kernel gave it, so every panel's final
text equals the agent's memory. ``flush(widget)`` sends one widget's queued updates at once
(Stop's interrupted style must not wait behind a backlog). While a backlog waits, the redraw
budget holds new redraws back (``backlog``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

import ipywidgets as w

from ._bucket import TokenBucket, check_rate
from ._comm import WidgetComm, tap, tapped

MESSAGES_PER_SECOND = 300.0
"""The default rate of a loop's pacer: comm updates per second for all its panels together."""
BURST = 100
"""Updates sent at once after a quiet spell (one panel's reaction to a click never waits)."""

_Item = tuple[WidgetComm, Any, Any, Any]
"""A queued message: the widget's comm, its data, metadata and buffers."""


class CommPacer:
    """Comm updates of paced widgets, sent at most ``per_second`` a second (see module doc).

    Args:
        loop: the event loop whose widgets share it.
        per_second: updates per second; ``None``: no pacing (every update goes out at once).
        burst: how many may go out at once after a quiet spell.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        per_second: float | None = MESSAGES_PER_SECOND,
        burst: int = BURST,
    ) -> None:
        check_rate(per_second, "no pacing")
        self.loop = loop
        self.burst = max(1, burst)
        self._bucket = TokenBucket(per_second, self.burst)
        self.sent = 0
        """Updates sent so far (for benchmarks and tests)."""
        self.merged = 0
        """Queued updates replaced by a newer one of the same traits (never sent)."""
        self._queue: dict[int, _Item] = {}
        self._lines: dict[int, list[int]] = {}
        """id(comm) -> the queue keys of that comm's messages, oldest first."""
        self._handle: asyncio.TimerHandle | None = None
        self._ids = itertools.count()
        self._thread: int | None = None
        self._urgent: WidgetComm | None = None

    @property
    def backlog(self) -> int:
        """Updates waiting to be sent."""
        return len(self._queue)

    @property
    def per_second(self) -> float | None:
        """Updates per second (``None``: no pacing)."""
        return self._bucket.per_second

    def set_rate(self, per_second: float | None) -> None:
        """Change the rate (``None``: no pacing; what waits goes out now)."""
        check_rate(per_second, "no pacing")
        self._bucket.set_rate(per_second, self.burst)
        self._drain()

    def pace(self, widgets: Iterable[w.Widget]) -> None:
        """Send the messages of ``widgets`` through this pacer from now on (``_comm.tap``)."""
        for widget in widgets:
            current = widget.comm
            if current is None or getattr(current, "pacer", None) is self:
                continue
            tap(widget).pacer = self

    def flush(self, widget: w.Widget) -> None:
        """Send ``widget``'s queued updates now, in order (before an urgent one of its own)."""
        comm = tapped(widget)
        for key in list(self._lines.get(id(comm), ())):
            self._out(self._pop(key))

    @contextlib.contextmanager
    def urgent(self, widget: w.Widget) -> Iterator[None]:
        """Within this block ``widget``'s updates go out at once, after its queued ones."""
        self.flush(widget)
        self._urgent = tapped(widget)
        try:
            yield
        finally:
            self._urgent = None

    def drop(self, comm: WidgetComm) -> None:
        """Forget ``comm``'s queued messages (its widget closed: nothing to update)."""
        for key in list(self._lines.get(id(comm), ())):
            self._pop(key)

    def _on_loop(self) -> bool:
        if self._thread is None:
            try:
                if asyncio.get_running_loop() is self.loop:
                    self._thread = threading.get_ident()
            except RuntimeError:
                return False
        return self._thread == threading.get_ident()

    def send(self, comm: WidgetComm, data: Any, metadata: Any, buffers: Any) -> None:
        """Send a message now if the pacer has room, else queue it (merging older updates)."""
        item = (comm, data, metadata, buffers)
        if self.per_second is None or self.loop.is_closed():
            self._out(item)
            return
        if not self._on_loop():
            if id(comm) in self._lines:  # behind its widget's queued ones, on the loop
                self.loop.call_soon_threadsafe(self._enqueue, item)
            else:
                self._out(item)  # off the loop (a comm thread's echo): as it comes
            return
        self._bucket.refill()
        if comm is self._urgent or (not self._queue and self._bucket.ready()):
            self._bucket.take()
            self._out(item)
            return
        if self._merge(item):
            return
        self._enqueue(item)

    def _merge(self, item: _Item) -> bool:
        """Replace the queued update ``item`` supersedes, in its place; False if none may be.

        Only an update of the same traits, with nothing of the same widget after it that it
        would jump: a custom message, or an update touching any of its traits. So the front
        end sees each widget's messages in the order the kernel made them.
        """
        comm, data, _metadata, buffers = item
        if not isinstance(data, dict) or data.get("method") != "update" or buffers:
            return False
        state = data.get("state")
        if not isinstance(state, dict):
            return False
        names = set(state)
        for key in reversed(self._lines.get(id(comm), ())):
            _comm, queued, _meta, queued_buffers = self._queue[key]
            if not isinstance(queued, dict) or queued.get("method") != "update":
                return False
            other = queued.get("state")
            if not isinstance(other, dict):
                return False
            if set(other) == names and not queued_buffers:
                self.merged += 1
                self._queue[key] = item  # keeps its place in line
                return True
            if names & set(other):
                return False
        return False

    def _enqueue(self, item: _Item) -> None:
        if item[0].closed:
            return
        key = next(self._ids)
        self._queue[key] = item
        self._lines.setdefault(id(item[0]), []).append(key)
        self._schedule()

    def _pop(self, key: int) -> _Item:
        item = self._queue.pop(key)
        line = self._lines[id(item[0])]
        line.remove(key)
        if not line:
            del self._lines[id(item[0])]
        return item

    def _out(self, item: _Item) -> None:
        comm, data, metadata, buffers = item
        if comm.closed:
            return  # closed meanwhile: nothing to update
        self.sent += 1
        comm.deliver(data, metadata, buffers)

    def _schedule(self) -> None:
        if self._handle is not None or not self._queue or self.per_second is None:
            return
        self._handle = self.loop.call_later(max(self._bucket.wait(), 0.005), self._drain)

    def _drain(self) -> None:
        self._handle = None
        self._bucket.refill()
        while self._queue and self._bucket.ready():
            item = self._pop(next(iter(self._queue)))
            self._bucket.take()
            self._out(item)
        self._schedule()


_PACERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, CommPacer] = (
    weakref.WeakKeyDictionary()
)


def comm_pacer(loop: asyncio.AbstractEventLoop) -> CommPacer:
    """The pacer shared by every panel on ``loop``, made on first use.

    ``comm_pacer(loop).set_rate(None)`` sends every update at once (no pacing).
    """
    pacer = _PACERS.get(loop)
    if pacer is None:
        pacer = _PACERS[loop] = CommPacer(loop)
    return pacer


def walk(widget: w.Widget) -> list[w.Widget]:
    """``widget`` and every widget under it (children, layouts and styles are not paced)."""
    out, stack, seen = [], [widget], set()
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        out.append(cur)
        stack.extend(getattr(cur, "children", ()) or ())
    return out


__all__ = ["BURST", "MESSAGES_PER_SECOND", "CommPacer", "comm_pacer", "walk"]
