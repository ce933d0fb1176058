"""TokenBucket: the one rate limiter the panels share (the redraw budget and the comm pacer).

A bucket holds up to ``burst`` tokens and refills at ``per_second`` tokens a second; taking a
token is sending one thing (a redraw, a comm update). ``per_second=None`` means no limit:
every ``take`` succeeds. The clock is ``time.monotonic()``.
"""

from __future__ import annotations

import time


def check_rate(per_second: float | None, unlimited: str) -> None:
    """Refuse a rate that is not positive (``None`` is fine: ``unlimited`` says what it means)."""
    if per_second is not None and per_second <= 0:
        raise ValueError(f"per_second must be > 0 or None for {unlimited} (got {per_second}).")


class TokenBucket:
    """``per_second`` tokens a second, at most ``burst`` saved up (see module doc).

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
        """Spend one token (nothing to spend without a limit)."""
        if self.per_second is not None:
            self.tokens -= 1.0

    def wait(self) -> float:
        """Seconds until the next token (0 when one is there or there is no limit)."""
        if self.per_second is None or self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.per_second


__all__ = ["TokenBucket", "check_rate"]
