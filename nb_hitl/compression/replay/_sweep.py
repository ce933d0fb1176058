"""Sweep compression settings over a recorded conversation and pick the cheapest that fits.

``sweep_compression(messages, thresholds=[...], keep_recent=[...], budget=N)`` replays the
conversation once per (threshold, keep_recent) pair (one preparation shared by all) and answers
*which setting keeps every prompt within N tokens at the lowest total cost*, where the cost is
the billed input tokens plus the summariser's tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nb_hitl.exceptions import ConfigError
from nb_hitl.token import TokenCounter

from .._config import CompressionConfig
from ._policy import SummaryPolicy, as_policy
from ._replay import CompressionReplay, check_keep_recent, prepare_for, run_replay
from ._source import Prepared

METRICS = {
    "total_tokens": "billed input + summariser tokens",
    "billed_input_tokens": "billed input tokens",
    "peak_prompt_tokens": "peak prompt tokens",
    "compressions": "compressions",
    "summariser_tokens": "summariser tokens",
}
"""The metrics a sweep can be read by (``CompressionReplay`` attributes), for people."""


@dataclass
class CompressionSweep:
    """Replays over a grid of settings, the baseline, and the cheapest setting that fits."""

    thresholds: list[int]
    """The ``trigger_threshold`` values, ascending (rows of ``grid``)."""
    keep_recent: list[int]
    """The ``keep_recent`` values, ascending (columns of ``grid``)."""
    budget: int | None
    """The most tokens any prompt may have (None: every setting fits)."""
    replays: dict[tuple[int, int], CompressionReplay]
    """The replay of each (threshold, keep_recent)."""
    baseline: CompressionReplay
    """The same conversation without compression."""

    def replay(self, threshold: int, keep_recent: int) -> CompressionReplay:
        """The replay of one setting."""
        return self.replays[(threshold, keep_recent)]

    def fits(self, threshold: int, keep_recent: int) -> bool:
        """True when that setting keeps every prompt within the budget."""
        return self.budget is None or self.replays[(threshold, keep_recent)].fits(self.budget)

    def grid(self, metric: str = "total_tokens") -> list[list[int]]:
        """``metric`` per cell: one row per threshold, one column per keep_recent."""
        if metric not in METRICS:
            raise ConfigError(f"Unknown metric {metric!r}; use one of {', '.join(METRICS)}.")
        return [
            [int(getattr(self.replays[(t, k)], metric)) for k in self.keep_recent]
            for t in self.thresholds
        ]

    @property
    def cheapest(self) -> tuple[int, int] | None:
        """The (threshold, keep_recent) within the budget with the lowest ``total_tokens``.

        Ties go to fewer compressions, then the higher threshold, then more kept messages.
        None when no setting fits the budget.
        """
        fitting = [key for key in self.replays if self.fits(*key)]
        if not fitting:
            return None
        return min(
            fitting,
            key=lambda key: (
                self.replays[key].total_tokens,
                self.replays[key].compressions,
                -key[0],
                -key[1],
            ),
        )

    def __repr__(self) -> str:
        best = self.cheapest
        pick = "no setting fits" if best is None else f"cheapest {best}"
        return (
            f"CompressionSweep({len(self.thresholds)} thresholds x {len(self.keep_recent)} "
            f"keep_recent, budget={self.budget}, {pick})"
        )


def _ints(name: str, values: Sequence[int], least: int) -> list[int]:
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(
                f"{name} must hold whole numbers >= {least} (got {value!r}); "
                f"e.g. {name}=[4000, 6000, 8000]"
                if name == "thresholds"
                else f"{name} must hold whole numbers >= {least} (got {value!r}); "
                f"e.g. {name}=[2, 4, 8]"
            )
        out.append(value)
    if not out:
        raise ConfigError(f"{name} is empty: give at least one value to sweep.")
    return sorted(set(out))


def sweep_compression(
    messages: Any,
    thresholds: Sequence[int],
    keep_recent: Sequence[int],
    *,
    budget: int | None = None,
    counter: TokenCounter | None = None,
    summary: Any = None,
    config: CompressionConfig | None = None,
    sys_prompt: str | None = None,
    tools: Sequence[dict[str, Any]] | None = None,
    formatter: Any = None,
) -> CompressionSweep:
    """Replay ``messages`` for every (threshold, keep_recent) and find the cheapest that fits.

    Args:
        messages: what ``replay_compression`` accepts (Msg list, memory, agent, session path).
        thresholds: ``trigger_threshold`` values to try (positive).
        keep_recent: ``keep_recent`` values to try (0 or more, at most the message count).
        budget: the most tokens any prompt may have; ``cheapest`` only considers settings
            whose peak prompt is within it.
        counter: the token counter (default: ``config``'s, else the shared default).
        summary: the summary policy (see ``replay_compression``; not a real model).
        config: where the summariser's prompt, schema and template come from (optional).
        sys_prompt: the system prompt (default: the agent's or session's).
        tools: tool schemas (default: the agent's).
        formatter: the agent's formatter.

    Raises:
        ConfigError: a threshold <= 0, a negative or too large ``keep_recent``, a bad budget.
        TranscriptError: see ``replay_compression``.
    """
    rows = _ints("thresholds", thresholds, 1)
    cols = _ints("keep_recent", keep_recent, 0)
    bad_budget = isinstance(budget, bool) or not isinstance(budget, int) or budget < 1
    if budget is not None and bad_budget:
        raise ConfigError(f"budget must be a positive number of tokens or None (got {budget!r}).")
    policy = as_policy(summary)
    prep = prepare_for(messages, config, counter, sys_prompt, tools, formatter)
    return sweep_prepared(prep, rows, cols, budget, policy, config)


def sweep_prepared(
    prep: Prepared,
    thresholds: Sequence[int],
    keep_recent: Sequence[int],
    budget: int | None,
    policy: SummaryPolicy,
    config: CompressionConfig | None = None,
) -> CompressionSweep:
    """The sweep over an already prepared conversation (the explorer keeps one)."""
    rows = _ints("thresholds", thresholds, 1)
    cols = _ints("keep_recent", keep_recent, 0)
    check_keep_recent(prep, cols[-1])
    replays = {
        (t, k): run_replay(prep, config, policy, threshold=t, keep_recent=k)
        for t in rows
        for k in cols
    }
    baseline = run_replay(prep, None, policy)
    return CompressionSweep(rows, cols, budget, replays, baseline)


__all__ = ["METRICS", "CompressionSweep", "sweep_compression"]
