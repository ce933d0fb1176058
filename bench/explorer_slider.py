"""Benchmark: CompressionExplorer slider move -> replayed and redrawn curve, headless.

Run: ``python bench/explorer_slider.py [--moves 200]``

Builds the explorer on the shipped 50-turn transcript (109 messages) and moves the threshold
and keep_recent sliders as a person would, timing each move from the page's action message
(``{t: "action", name: "threshold", ...}``) to the new curve SVG and totals being sent as one
op batch (the replay, the SVG, the totals). The comm's own transfer is not included.
Printed figures: medians and p99 in ms, for both sliders and for each summary policy.

Goal (issue 12): slider -> redrawn curve <= 100 ms for the shipped transcript.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99

from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import long_task_transcript
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import CompressionExplorer
from nb_hitl.widgets._explorer import POLICIES


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=200)
    args = parser.parse_args()
    counter = TokenCounter()
    config = CompressionConfig(agent_token_counter=counter, trigger_threshold=8000, keep_recent=6)
    agent = ReActAgent("Analyst", "You are a careful data analyst.", ScriptedModel(),
                       compression_config=config)  # fmt: skip
    await agent.memory.add(long_task_transcript())
    counter.exact  # noqa: B018 - load the vocabulary outside the timings
    start = time.perf_counter()
    explorer = CompressionExplorer(agent, budget=9000)
    build_ms = (time.perf_counter() - start) * 1e3
    print(f"build (counts 109 messages, baseline replay): {build_ms:.0f} ms")
    rng = random.Random(0)
    for label in list(POLICIES)[:3]:
        explorer.page_message({"t": "action", "name": "policy", "args": {"label": label}})
        for name, action, low, high in (
            ("threshold", "threshold", 3000, 14000),
            ("keep_recent", "keep", 0, 40),
        ):
            times = []
            for _ in range(args.moves):
                value = rng.randint(low, high)
                while value == getattr(explorer, name):
                    value = rng.randint(low, high)
                before = explorer.redraws
                t0 = time.perf_counter()
                message = {"t": "action", "name": action, "args": {"value": value}}
                explorer.page_message(message)  # what the page sends when the slider moves
                times.append(time.perf_counter() - t0)
                assert explorer.redraws == before + 1
            print(f"{name:<11} move -> redrawn curve, {label[:40]:<40}: {median_p99(times)} ms")
    start = time.perf_counter()
    explorer.run_sweep()
    print(f"Run sweep (10 x 10) and heat map: {(time.perf_counter() - start) * 1e3:.0f} ms")
    print("goal: slider -> redrawn curve <= 100 ms")


if __name__ == "__main__":
    asyncio.run(main())
