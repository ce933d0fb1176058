"""IopubBudget: one kernel-wide budget of comm messages, one token bucket, per event loop.

Jupyter server drops output once a kernel sends more than ``iopub_msg_rate_limit`` messages a
second (1,000/s, measured over 3 s), and 100 chats streaming in one kernel would get there. So
every panel on a loop (each is one ``PanelModel``) sends its op batches through one budget: a
token bucket (``TokenBucket``) of ``per_second`` messages, at most ``burst`` saved up, so that
no 3-second window holds more than ``3 * per_second + burst`` of them.

- **Op batches** (``send``): a panel's batch goes out at once while there is a token and no
  other batch waits; else it waits in line, in order. While a panel's batch waits, the panel's
  newer ops *join* it (``join``: same ``seq``; a later ``set`` of a part replaces an earlier op
  on that part), so a backlog shrinks instead of growing and nothing is lost: the page gets
  every op, in the kernel's order, and ends with the kernel's state.
- **Redraws** (``request`` / ``cancel``): a streaming message asks for its next redraw; the
  budget grants it when it is due, a token is there and no batch waits, least recently drawn
  first (many streams share the budget evenly; one stream alone keeps its own full rate). A
  redraw's messages take their tokens as they go out (one at least).
- **Urgent** (``urgent(panel)``): a panel's batches go out at once, after its own waiting ones
  (Stop's interrupted style, the reaction to a click), taking their tokens even below zero:
  the long-run rate holds, a Stop never waits behind the budget.

A message's final text is drawn by the transcript's ``commit`` (a batch like any other): it
may wait its turn, never be dropped, so every panel ends equal to the agent's memory.
``set_rate(None)`` turns the budget off (everything at once, each stream at its own rate).

This replaces the former comm pacer (``CommPacer``, which wrapped the comm of every ipywidget
of a panel's tree, ``walk``) and the separate redraw budget (``RedrawBudget``) with their two
buckets: ``comm_pacer(loop)`` and ``redraw_budget(loop)`` both return this one budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any, Protocol

logger = logging.getLogger("nb_hitl.widgets")

MESSAGES_PER_SECOND = 270.0
"""The default budget of a loop: comm messages per second for all its panels together."""
BURST = 30
"""Messages that may go out at once after a quiet spell: 3 s hold at most 3 * 270 + 30 = 840,
280 a second, under the 300 of issue #32 (and far under Jupyter server's 1,000)."""
REDRAWS_PER_SECOND = MESSAGES_PER_SECOND
"""The former redraw budget's rate, now the one budget's (a redraw costs its messages)."""


def check_rate(per_second: float | None, unlimited: str) -> None:
    """Refuse a rate that is not positive (``None`` is fine: ``unlimited`` says what it means)."""
    if per_second is not None and per_second <= 0:
        raise ValueError(f"per_second must be > 0 or None for {unlimited} (got {per_second}).")


class TokenBucket:
    """``per_second`` tokens a second, at most ``burst`` saved up; the clock is
    ``time.monotonic()``. ``per_second=None``: no limit, every ``take`` succeeds.

    Args:
        per_second: the refill rate; ``None``: unlimited.
        burst: the most tokens held (a burst after a quiet spell); at least 1.
    """

    def __init__(self, per_second: float | None, burst: float) -> None:
        self.per_second = per_second
        self.burst = max(1.0, float(burst))
        self.tokens = self.burst
        self._refilled = time.monotonic()

    def set_rate(self, per_second: float | None, burst: float) -> None:
        """A new rate and burst; the tokens saved up never exceed the new burst."""
        self.refill()
        self.per_second = per_second
        self.burst = max(1.0, float(burst))
        self.tokens = min(self.tokens, self.burst)

    def refill(self, now: float | None = None) -> None:
        """Add the tokens earned since the last refill (up to ``burst``)."""
        now = time.monotonic() if now is None else now
        if self.per_second is not None:
            self.tokens = min(self.burst, self.tokens + (now - self._refilled) * self.per_second)
        self._refilled = now

    def ready(self) -> bool:
        """Whether a token is there (always, without a limit); call ``refill`` first."""
        return self.per_second is None or self.tokens >= 1.0

    def take(self) -> None:
        """Spend one token (nothing to spend without a limit); urgent sends may go below 0."""
        if self.per_second is not None:
            self.tokens -= 1.0

    def wait(self) -> float:
        """Seconds until the next token (0 when one is there or there is no limit)."""
        if self.per_second is None or self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.per_second


class Panel(Protocol):
    """What the budget sends for: a panel model (``PanelModel``)."""

    comm: Any
    """Its comm (``None`` once closed: what waits for it is dropped)."""

    def page_send(self, content: Any) -> None:
        """Send a custom message to its page now (ipywidgets' ``Widget.send``)."""


class Streamer(Protocol):
    """What the budget redraws: anything with pending deltas and a ``flush``."""

    last_flush: float
    """``time.monotonic()`` of its last redraw (the least recent is served first)."""

    def flush(self) -> None:
        """Draw the pending deltas now."""


_Item = tuple[Panel, dict[str, Any]]
"""A waiting message: the panel and the content it sends."""


def join_ops(batch: list[dict[str, Any]], ops: list[dict[str, Any]]) -> None:
    """Append ``ops`` to a waiting ``batch``; a ``set`` drops the ops before it on its part
    (it replaces that part whole, so the page ends the same)."""
    for op in ops:
        key = op.get("key")
        if op.get("op") == "set" and isinstance(key, str):
            batch[:] = [old for old in batch if old.get("key") != key]
        batch.append(op)


class IopubBudget:
    """One event loop's comm messages and redraws, from one token bucket (see module doc).

    Args:
        loop: the event loop whose panels share it.
        per_second: messages per second; ``None``: no budget (everything at once).
        burst: how many may go out at once after a quiet spell.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        per_second: float | None = MESSAGES_PER_SECOND,
        burst: int = BURST,
    ) -> None:
        check_rate(per_second, "no budget")
        self.loop = loop
        self.burst = max(1, int(burst))
        self._bucket = TokenBucket(per_second, self.burst)
        self.sent = 0
        """Messages sent so far (benchmarks and tests)."""
        self.merged = 0
        """Batches that joined a waiting one instead of being sent on their own."""
        self.granted = 0
        """Redraws handed out so far (benchmarks and tests)."""
        self._queue: dict[int, _Item] = {}
        self._lines: dict[int, list[int]] = {}
        """id(panel) -> the queue keys of that panel's messages, oldest first."""
        self._ids = itertools.count()
        self._drain_handle: asyncio.TimerHandle | None = None
        self._thread: int | None = None
        self._urgent: set[int] = set()
        self._due: dict[Streamer, float] = {}
        self._redraw_handle: asyncio.TimerHandle | None = None
        self._redraw_at = 0.0

    # -- the rate ------------------------------------------------------------------------------
    @property
    def per_second(self) -> float | None:
        """Messages per second (``None``: no budget)."""
        return self._bucket.per_second

    def set_rate(self, per_second: float | None, burst: int | None = None) -> None:
        """Change the rate (``None``: no budget; what waits goes out now)."""
        check_rate(per_second, "no budget")
        if burst is not None:
            self.burst = max(1, int(burst))
        self._bucket.set_rate(per_second, self.burst)
        self._drain()
        self._schedule_redraw(time.monotonic())

    @property
    def backlog(self) -> int:
        """Messages waiting to be sent."""
        return len(self._queue)

    @property
    def waiting(self) -> int:
        """Streamers with deltas waiting for a redraw."""
        return len(self._due)

    def _on_loop(self) -> bool:
        if self._thread is None:
            try:
                if asyncio.get_running_loop() is self.loop:
                    self._thread = threading.get_ident()
            except RuntimeError:
                return False
        return self._thread == threading.get_ident()

    # -- op batches ----------------------------------------------------------------------------
    def join(self, panel: Panel, ops: list[dict[str, Any]]) -> bool:
        """Add ``ops`` to ``panel``'s batch if one still waits, last in its line (the panel
        then keeps its ``seq``); False if none does (the panel sends a new batch)."""
        if id(panel) in self._urgent or not self._on_loop():
            return False
        line = self._lines.get(id(panel))
        if not line:
            return False
        content = self._queue[line[-1]][1]
        if content.get("t") != "ops" or not isinstance(content.get("ops"), list):
            return False
        join_ops(content["ops"], ops)
        self.merged += 1
        return True

    def send(self, panel: Panel, content: dict[str, Any]) -> None:
        """Send ``content`` for ``panel`` now if there is room, else in line (see module doc)."""
        item = (panel, content)
        if self.per_second is None or self.loop.is_closed():
            self._out(item)
            return
        if not self._on_loop():
            if id(panel) in self._lines:  # behind its panel's waiting ones, on the loop
                self.loop.call_soon_threadsafe(self._enqueue, item)
            else:
                self._out(item)  # off the loop (a comm thread's answer): as it comes
            return
        self._bucket.refill()
        urgent = id(panel) in self._urgent
        if urgent or (not self._queue and self._bucket.ready()):
            self._bucket.take()
            self._out(item)
            return
        self._enqueue(item)

    def flush(self, panel: Panel) -> None:
        """Send ``panel``'s waiting messages now, in order (before an urgent one of its own)."""
        for key in list(self._lines.get(id(panel), ())):
            self._bucket.take()
            self._out(self._pop(key))

    @contextlib.contextmanager
    def urgent(self, panel: Panel) -> Iterator[None]:
        """Within this block ``panel``'s messages go out at once, after its waiting ones."""
        self.flush(panel)
        nested = id(panel) in self._urgent
        self._urgent.add(id(panel))
        try:
            yield
        finally:
            if not nested:
                self._urgent.discard(id(panel))

    def pace(self, widgets: Any) -> None:
        """Nothing to do: a panel paces itself (the former ``CommPacer.pace``, kept for its
        callers outside nb_hitl)."""

    def _enqueue(self, item: _Item) -> None:
        if item[0].comm is None:
            return
        key = next(self._ids)
        self._queue[key] = item
        self._lines.setdefault(id(item[0]), []).append(key)
        self._schedule_drain()

    def _pop(self, key: int) -> _Item:
        item = self._queue.pop(key)
        line = self._lines[id(item[0])]
        line.remove(key)
        if not line:
            del self._lines[id(item[0])]
        return item

    def _out(self, item: _Item) -> None:
        panel, content = item
        if panel.comm is None:
            return  # closed meanwhile: nothing to update
        self.sent += 1
        panel.page_send(content)

    def _schedule_drain(self) -> None:
        if self._drain_handle is not None or not self._queue or self.per_second is None:
            return
        delay = max(self._bucket.wait(), 0.005)
        self._drain_handle = self.loop.call_later(delay, self._drain)

    def _drain(self) -> None:
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
        self._bucket.refill()
        while self._queue and self._bucket.ready():
            item = self._pop(next(iter(self._queue)))
            self._bucket.take()
            self._out(item)
        self._schedule_drain()
        if not self._queue and self._due:
            self._schedule_redraw(time.monotonic())

    # -- redraws -------------------------------------------------------------------------------
    def request(self, streamer: Streamer, due: float) -> None:
        """Redraw ``streamer`` at ``due`` (``time.monotonic()``) or as soon after as the budget
        allows; a streamer already waiting keeps its place. Call on the loop's thread."""
        if streamer in self._due:
            return
        self._due[streamer] = due
        self._schedule_redraw(time.monotonic())

    def cancel(self, streamer: Streamer) -> None:
        """Forget ``streamer``'s waiting redraw (its deltas were dropped or drawn already)."""
        self._due.pop(streamer, None)

    def _schedule_redraw(self, now: float) -> None:
        """Set the timer for the next moment a waiting streamer can be drawn."""
        if not self._due:
            if self._redraw_handle is not None:
                self._redraw_handle.cancel()
                self._redraw_handle = None
            return
        self._bucket.refill(now)
        wait = self._bucket.wait()
        if self._queue and self.per_second:  # batches wait: they go first
            wait = max(wait, len(self._queue) / self.per_second)
        at = max(min(self._due.values()), now + wait)
        if self._redraw_handle is not None:
            if self._redraw_at <= at:
                return
            self._redraw_handle.cancel()
        self._redraw_at = at
        self._redraw_handle = self.loop.call_at(self.loop.time() + (at - now), self._tick)

    def _tick(self) -> None:
        self._redraw_handle = None
        now = time.monotonic()
        self._bucket.refill(now)
        ready = [s for s, due in self._due.items() if due <= now]
        ready.sort(key=lambda s: s.last_flush)  # least recently drawn first: fair shares
        for streamer in ready:
            if self._queue or not self._bucket.ready():
                break
            del self._due[streamer]
            self.granted += 1
            before = self.sent
            try:
                streamer.flush()
            except Exception:  # one broken row must not stop every other stream's redraws
                logger.exception("nb_hitl redraw failed")
            if self.sent == before:
                self._bucket.take()  # a redraw costs a message at least (one not paced here)
        self._schedule_redraw(time.monotonic())


_BUDGETS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, IopubBudget] = (
    weakref.WeakKeyDictionary()
)


def iopub_budget(loop: asyncio.AbstractEventLoop | None = None) -> IopubBudget:
    """The budget shared by every panel on ``loop`` (default: the running loop), made on
    first use with ``MESSAGES_PER_SECOND``.

    ``iopub_budget().set_rate(600)`` gives a kernel's panels more messages together;
    ``set_rate(None)`` turns the budget off (each stream redraws at its own rate).
    """
    if loop is None:
        loop = asyncio.get_running_loop()
    budget = _BUDGETS.get(loop)
    if budget is None:
        budget = _BUDGETS[loop] = IopubBudget(loop)
    return budget


__all__ = [
    "BURST",
    "MESSAGES_PER_SECOND",
    "REDRAWS_PER_SECOND",
    "IopubBudget",
    "Panel",
    "Streamer",
    "TokenBucket",
    "check_rate",
    "iopub_budget",
    "join_ops",
]
