"""Small statistics helpers shared by the bench scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest-rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def median_p99(values: list[float], scale: float = 1000.0) -> str:
    """``"median X, p99 Y"`` of ``values`` scaled (default seconds -> ms)."""
    return f"median {statistics.median(values) * scale:.3f}, p99 {pct(values, 0.99) * scale:.3f}"


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Seconds each of ``repeat`` calls of ``fn`` took."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times
