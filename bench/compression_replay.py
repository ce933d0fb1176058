"""Benchmark: replaying the shipped 50-turn transcript under compression settings.

Run: ``python bench/compression_replay.py [--repeat 30]``

Printed figures (medians and p99 over ``--repeat`` runs, warm per-message cache, as in the
explorer after its first draw):

- one replay with the fixed-size summary policy (``summary=300``), and with the default ratio
  policy and with ``ScriptedModel``'s real summaries for comparison;
- a 10 x 10 sweep (thresholds 4,000..13,000, keep_recent 0..36) with the fixed-size policy;
- the first (cold) replay, which counts every message once.

Goals (issue 12): one fixed-policy replay well under 50 ms; a 10 x 10 sweep under 2 s.
"""

from __future__ import annotations

import argparse
import time

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99

from nb_hitl.agent import CompressionConfig, replay_compression, sweep_compression
from nb_hitl.demo import long_task_transcript
from nb_hitl.token import TokenCounter


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    msgs = long_task_transcript()
    counter = TokenCounter()
    config = CompressionConfig(agent_token_counter=counter, trigger_threshold=8000, keep_recent=6)
    counter.exact  # noqa: B018 - load the vocabulary outside the timings
    start = time.perf_counter()
    replay_compression(msgs, config, summary=300)
    print(f"cold replay (counts every message once): {(time.perf_counter() - start) * 1000:.1f} ms")
    for label, policy in (("fixed 300", 300), ("ratio 0.25", None), ("scripted", "scripted")):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            replay = replay_compression(msgs, config, summary=policy)
            times.append(time.perf_counter() - start)
        print(
            f"one replay, {label:<10} ({replay.compressions} compressions): {median_p99(times)} ms"
        )
    thresholds = list(range(4000, 14_000, 1000))
    keep = list(range(0, 40, 4))
    times = []
    for _ in range(max(3, args.repeat // 5)):
        start = time.perf_counter()
        sweep = sweep_compression(msgs, thresholds, keep, budget=9000, counter=counter, summary=300)
        times.append(time.perf_counter() - start)
    print(f"10 x 10 sweep, fixed 300: {median_p99(times, 1.0)} s; cheapest {sweep.cheapest}")
    print("goals: one fixed-policy replay < 50 ms; 10 x 10 sweep < 2 s")


if __name__ == "__main__":
    main()
