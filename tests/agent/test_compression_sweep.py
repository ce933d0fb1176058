"""sweep_compression: a grid of replays, monotone where it must be, and the cheapest that fits."""

from __future__ import annotations

import pytest
from compression_helpers import COUNTER

from nb_hitl.agent import replay_compression, sweep_compression
from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg

THRESHOLDS = [4000, 6000, 8000, 10_000, 12_000]
KEEP = [0, 4, 8, 16]


@pytest.fixture
def sweep(long_task: list[Msg]):  # type: ignore[no-untyped-def]
    return sweep_compression(long_task, THRESHOLDS, KEEP, budget=9000, counter=COUNTER, summary=300)


def test_cheapest_fits_the_budget_and_nothing_that_fits_is_cheaper(sweep) -> None:  # type: ignore[no-untyped-def]
    best = sweep.cheapest
    assert best is not None
    assert sweep.replay(*best).peak_prompt_tokens <= 9000
    for key, replay in sweep.replays.items():
        if replay.peak_prompt_tokens <= 9000:
            assert replay.total_tokens >= sweep.replay(*best).total_tokens, key
    assert not sweep.fits(12_000, 0)  # the threshold alone lets a prompt pass the budget
    assert sweep.baseline.peak_prompt_tokens > 9000


def test_grid_is_monotone_in_the_threshold(sweep) -> None:  # type: ignore[no-untyped-def]
    peaks = sweep.grid("peak_prompt_tokens")
    compressions = sweep.grid("compressions")
    for col in range(len(KEEP)):
        column_peaks = [row[col] for row in peaks]
        column_compressions = [row[col] for row in compressions]
        assert column_peaks == sorted(column_peaks)  # a higher threshold never lowers the peak
        assert column_compressions == sorted(column_compressions, reverse=True)
    for t, row in zip(THRESHOLDS, peaks, strict=True):
        # A prompt passes the threshold only by what one step adds before compression.
        assert all(peak <= t + 2500 for peak in row)


def test_no_cell_costs_more_than_the_baseline_with_a_shrinking_summary(
    long_task: list[Msg],
) -> None:
    sweep = sweep_compression(long_task, THRESHOLDS, KEEP, counter=COUNTER, summary=0.25)
    base = sweep.baseline
    for replay in sweep.replays.values():
        assert replay.billed_input_tokens <= base.billed_input_tokens
        assert all(
            r.prompt_tokens <= b.prompt_tokens for r, b in zip(replay.rows, base.rows, strict=True)
        )
    assert sweep.cheapest is not None  # no budget: every setting fits


def test_a_threshold_above_every_prompt_replays_the_baseline(long_task: list[Msg]) -> None:
    sweep = sweep_compression(long_task, [10**6], [3], counter=COUNTER)
    assert sweep.replay(10**6, 3).prompt_tokens == sweep.baseline.prompt_tokens
    baseline = replay_compression(long_task, None, counter=COUNTER)
    assert sweep.baseline.prompt_tokens == baseline.prompt_tokens


def test_a_budget_below_every_setting_has_no_cheapest(long_task: list[Msg]) -> None:
    sweep = sweep_compression(long_task, [8000], [4], budget=100, counter=COUNTER, summary=300)
    assert sweep.cheapest is None and "no setting fits" in repr(sweep)


def test_bad_sweep_inputs_say_what_to_change(long_task: list[Msg]) -> None:
    with pytest.raises(ConfigError, match="thresholds must hold whole numbers >= 1"):
        sweep_compression(long_task, [0, 4000], [2], counter=COUNTER)
    with pytest.raises(ConfigError, match="keep_recent must hold whole numbers >= 0"):
        sweep_compression(long_task, [4000], [-1], counter=COUNTER)
    with pytest.raises(ConfigError, match="keep_recent is empty"):
        sweep_compression(long_task, [4000], [], counter=COUNTER)
    with pytest.raises(ConfigError, match="keep_recent=200 is more than the 109 messages"):
        sweep_compression(long_task, [4000], [2, 200], counter=COUNTER)
    with pytest.raises(ConfigError, match="budget must be a positive"):
        sweep_compression(long_task, [4000], [2], budget=0, counter=COUNTER)
    sweep = sweep_compression(long_task, [4000], [2], counter=COUNTER)
    with pytest.raises(ConfigError, match="Unknown metric 'cost'"):
        sweep.grid("cost")
