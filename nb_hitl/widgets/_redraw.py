"""RedrawBudget: one redraw budget per event loop, shared by every streaming message.

Each streaming message (a chat's live rows, a hub participant's live rows) may redraw up to its
own rate (20 a second by default). Alone that is fine; but 60 chats streaming in one kernel
would send ~1,600 iopub messages a second, past Jupyter server's default
``iopub_msg_rate_limit`` (1,000/s over 3 s), after which the server drops output and the page
freezes. So every streamer asks one ``RedrawBudget`` (one per event loop, from
``redraw_budget()``) for its redraws. The budget hands them out from a token bucket of
``per_second`` redraws (``_bucket.TokenBucket``, the one the comm pacer uses too), least
recently drawn first, so that many streams share it evenly and a single stream still gets its
own full rate. Only deltas wait: a message's final text is drawn by its ``commit``, never by the
budget, so it always equals the agent's memory.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Protocol

from ._bucket import TokenBucket, check_rate
from ._pacer import _PACERS

logger = logging.getLogger("nb_hitl.widgets")

REDRAWS_PER_SECOND = 120.0
"""The default budget of a loop: redraws per second shared by all its streaming messages.

A redraw sends one or two comm messages (the live tail, now and then a status line), so this
keeps a kernel full of streaming chats well under Jupyter server's 1,000 messages a second."""
BURST_SECONDS = 0.05
"""The bucket holds this many seconds of budget: a burst after a quiet spell stays small."""


def _burst(per_second: float | None) -> float:
    return (per_second or 0.0) * BURST_SECONDS


class Streamer(Protocol):
    """What the budget redraws: anything with pending deltas and a ``flush``."""

    last_flush: float
    """``time.monotonic()`` of its last redraw (the least recent is served first)."""

    def flush(self) -> None:
        """Draw the pending deltas now."""


class RedrawBudget:
    """Redraws handed out fairly among the streaming messages of one event loop.

    Args:
        loop: the loop whose streamers share this budget.
        per_second: redraws per second for all of them together; ``None``: no shared limit
            (each streamer redraws as soon as its own rate allows, as before the budget).
    """

    def __init__(
        self, loop: asyncio.AbstractEventLoop, per_second: float | None = REDRAWS_PER_SECOND
    ) -> None:
        check_rate(per_second, "no limit")
        self.loop = loop
        self.granted = 0
        """Redraws handed out so far (for benchmarks and tests)."""
        self._due: dict[Streamer, float] = {}
        self._bucket = TokenBucket(per_second, _burst(per_second))
        self._handle: asyncio.TimerHandle | None = None
        self._at = 0.0

    @property
    def per_second(self) -> float | None:
        """Redraws per second for all streamers together (``None``: no shared limit)."""
        return self._bucket.per_second

    def set_rate(self, per_second: float | None) -> None:
        """Change the shared rate (``None``: no shared limit)."""
        check_rate(per_second, "no limit")
        self._bucket.set_rate(per_second, _burst(per_second))
        self._schedule(time.monotonic())

    @property
    def waiting(self) -> int:
        """How many streamers have deltas waiting for a redraw."""
        return len(self._due)

    def request(self, streamer: Streamer, due: float) -> None:
        """Redraw ``streamer`` at ``due`` (``time.monotonic()``) or as soon after as the budget
        allows; a streamer already waiting keeps its place. Call on the loop's thread."""
        if streamer in self._due:
            return
        self._due[streamer] = due
        self._schedule(time.monotonic())

    def cancel(self, streamer: Streamer) -> None:
        """Forget ``streamer``'s waiting redraw (its deltas were dropped or drawn already)."""
        self._due.pop(streamer, None)

    def _schedule(self, now: float) -> None:
        """Set the timer for the next moment a waiting streamer can be drawn."""
        if not self._due:
            if self._handle is not None:
                self._handle.cancel()
                self._handle = None
            return
        self._bucket.refill(now)
        at = max(min(self._due.values()), now + self._bucket.wait())
        if self._handle is not None:
            if self._at <= at:
                return
            self._handle.cancel()
        self._at = at
        self._handle = self.loop.call_at(self.loop.time() + (at - now), self._tick)

    def _tick(self) -> None:
        self._handle = None
        now = time.monotonic()
        pacer = _PACERS.get(self.loop)
        if pacer is not None and pacer.per_second and pacer.backlog >= pacer.burst:
            # Updates wait to be sent (a burst of replies starting or finishing): new redraws
            # would only lengthen the line, so they wait until it is short again.
            wait = pacer.backlog / pacer.per_second / 2
            self._at = now + wait
            self._handle = self.loop.call_at(self.loop.time() + wait, self._tick)
            return
        self._bucket.refill(now)
        ready = [s for s, due in self._due.items() if due <= now]
        ready.sort(key=lambda s: s.last_flush)  # least recently drawn first: fair shares
        for streamer in ready:
            if not self._bucket.ready():
                break
            del self._due[streamer]
            self._bucket.take()
            self.granted += 1
            try:
                streamer.flush()
            except Exception:  # one broken row must not stop every other stream's redraws
                logger.exception("nb_hitl redraw failed")
        self._schedule(time.monotonic())


_BUDGETS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, RedrawBudget] = (
    weakref.WeakKeyDictionary()
)


def redraw_budget(loop: asyncio.AbstractEventLoop | None = None) -> RedrawBudget:
    """The redraw budget shared by every streaming message on ``loop`` (default: the running
    loop), made on first use with ``REDRAWS_PER_SECOND``.

    ``redraw_budget().set_rate(400)`` gives a kernel's panels more redraws together;
    ``set_rate(None)`` lets each streaming message redraw at its own rate (no shared limit).
    """
    if loop is None:
        loop = asyncio.get_running_loop()
    budget = _BUDGETS.get(loop)
    if budget is None:
        budget = _BUDGETS[loop] = RedrawBudget(loop)
    return budget


__all__ = ["RedrawBudget", "redraw_budget"]
