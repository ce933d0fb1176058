"""Soak: many random replies with random interrupts; count invariant violations.

Runs the episodes of the property-based test (``tests/agent/interrupt_harness.py``) with plans
drawn from a seeded ``random.Random``, on a fresh agent every ``--session`` episodes, and keeps
going after a violation (printing it) instead of stopping at the first one.

    python scripts/soak_interrupts.py --episodes 2000 --seed 1
    python scripts/soak_interrupts.py --pipeline --episodes 500 --seed 1

``--pipeline`` runs the pipeline episodes instead (``tests/agent/pipeline_harness.py``): a
sequential or fanout pipeline of 2-3 agents in a ``MsgHub`` (with a ``UserAgent`` in the loop
or not), stopped at random points (a steered speaker too), resumed with random choices many
times, announcements and session save/load during the pauses, sessions saved while parked on
an approval loaded into fresh agents; a fresh hub every ``--session`` episodes.

The last line is always ``N episodes, K interrupts, S steers, V violations``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

# Agents print their replies to the console in scripts (as AgentScope's do); not here.
os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "agent"))
# This checkout's nb_hitl, whatever the environment has installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interrupt_harness import (
    Harness,
    Violation,
    random_agent_plan,
    random_plan,
)
from pipeline_harness import PipelineHarness
from pipeline_plans import PipelineStats, random_hub_plan, random_pipeline_plan


def tally(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common())


def report(episode: int, exc: Exception, plan: object, verbose: bool) -> None:
    """Print a failed episode: a violation with its plan, anything else with its traceback."""
    kind = "violation" if isinstance(exc, Violation) else "error"
    print(f"episode {episode}: {kind}: {exc}\n  plan: {plan}", flush=True)
    if verbose or not isinstance(exc, Violation):
        traceback.print_exc()


async def soak(episodes: int, seed: int, session: int, verbose: bool) -> tuple[int, int, int, int]:
    rng = random.Random(seed)
    done = interrupts = steers = violations = 0
    where: Counter[str] = Counter()
    by: Counter[str] = Counter()
    starts: Counter[str] = Counter()
    stopped = 0
    started = time.perf_counter()
    harness: Harness | None = None

    def add(stats: Any) -> None:
        nonlocal stopped
        where.update(stats.where)
        by.update(stats.by)
        starts.update(stats.starts)
        stopped += stats.stopped

    while done < episodes:
        if harness is None or harness.stats.episodes % session == 0:
            if harness is not None:
                add(harness.stats)
            harness = Harness(random_agent_plan(rng))
        plan = random_plan(rng)
        before, steered = harness.stats.interrupts, harness.stats.steers
        if rng.random() < 0.1:  # steering between replies: the next reply takes it in
            harness.steer(f"steered before episode {done + 1}")
        try:
            await harness.episode(plan)
            if harness.stats.episodes % session == 0:
                await harness.replies_normally()
        except Exception as exc:  # a violation, or anything unexpected: count it, go on
            violations += 1
            report(done + 1, exc, plan, verbose)
            interrupts += harness.stats.interrupts - before
            steers += harness.stats.steers - steered
            add(harness.stats)
            harness = None  # a fresh agent: one bad memory must not count twice
            await asyncio.sleep(0.05)
            done += 1
            continue
        interrupts += harness.stats.interrupts - before
        steers += harness.stats.steers - steered
        done += 1
        if verbose and done % 500 == 0:
            rate = done / (time.perf_counter() - started)
            print(f"... {done} episodes, {interrupts} interrupts ({rate:.0f}/s)", flush=True)
    if harness is not None:
        add(harness.stats)
    print(f"interrupted at: {tally(where)}")
    print(f"interrupted by: {tally(by)}")
    print(f"started by: {tally(starts)}; stopped after a step: {stopped}")
    return done, interrupts, steers, violations


async def soak_pipeline(
    episodes: int, seed: int, session: int, verbose: bool
) -> tuple[int, int, int, int]:
    rng = random.Random(seed)
    done = violations = 0
    total = PipelineStats()
    harness: PipelineHarness | None = None

    def retire(old: PipelineHarness | None) -> None:
        if old is not None:
            total.add(old.stats)
            old.close()

    while done < episodes:
        if harness is None or harness.stats.episodes % session == 0:
            retire(harness)
            harness = PipelineHarness(random_hub_plan(rng))
        plan = random_pipeline_plan(rng)
        if rng.random() < 0.1:  # steering between runs: the participant's next reply takes it in
            harness.steer(rng.randint(0, 2), f"steered before episode {done + 1}")
        try:
            await harness.episode(plan)
            if harness.stats.episodes % session == 0:
                await harness.replies_normally()
        except Exception as exc:  # a violation, or anything unexpected: count it, go on
            violations += 1
            report(done + 1, exc, plan, verbose)
            retire(harness)
            harness = None  # a fresh hub: one bad memory must not count twice
            await asyncio.sleep(0.05)
        done += 1
        if verbose and done % 200 == 0:
            print(f"... {done} episodes, {total.interrupts} interrupts", flush=True)
    retire(harness)
    print(f"pipeline runs and resumes: {total.runs}, pauses: {total.pauses}")
    print(f"resumed with: {tally(total.actions)}")
    print(
        f"during pauses: {total.announcements} announcements, {total.reloads} sessions saved "
        f"and loaded back, {total.continuations} replies continued (agent.resume()); "
        f"{total.parked_loads} sessions saved while parked, loaded elsewhere"
    )
    return done, total.interrupts, total.steers, violations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--session", type=int, default=8, help="episodes per fresh agent")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--pipeline", action="store_true", help="multi-agent pipeline episodes (MsgHub)"
    )
    args = parser.parse_args()
    run = soak_pipeline if args.pipeline else soak
    n, k, s, v = asyncio.run(run(args.episodes, args.seed, max(1, args.session), args.verbose))
    print(f"{n} episodes, {k} interrupts, {s} steers, {v} violations")


if __name__ == "__main__":
    main()
