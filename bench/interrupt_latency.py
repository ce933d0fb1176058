"""Interrupt latency: from ``await agent.interrupt()`` to the interrupted ``Msg`` returned.

A ScriptedModel streams at 1,000 tokens/s; each trial interrupts at a random moment while the
agent streams text, streams tool-call arguments, or runs a tool. The floor is the same
measurement for cancelling a bare asyncio task that sleeps at the same rate, in the same run.

    python bench/interrupt_latency.py [--trials 300]

Goal: p99 within 3x of the bare-cancel floor and under 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time

# Agents print their replies to the console in scripts (as AgentScope's do); not here.
os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, pct

from nb_hitl import Msg, ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid

TPS = 1000.0


async def slow_tool(seconds: float) -> str:
    """Sleep, then answer.

    Args:
        seconds: how long.
    """
    await asyncio.sleep(seconds)
    return "done"


def make_agent(kind: str) -> ReActAgent:
    toolkit = Toolkit()
    toolkit.register_tool_function(slow_tool)
    text = " ".join(f"token{i}" for i in range(300))
    if kind == "text":
        script: list = [text]
    elif kind == "tool_args":
        call = ScriptedToolCall("slow_tool", {"seconds": 0.01, "pad": "x" * 2400})
        script = [ScriptedTurn(text="Calling.", tool_calls=[call])]
    else:
        script = [ScriptedTurn(tool_calls=[ScriptedToolCall("slow_tool", {"seconds": 5})])]
    return ReActAgent("Bench", "sys", ScriptedModel(script, tokens_per_second=TPS), toolkit=toolkit)


async def one_interrupt(kind: str, rng: random.Random) -> float:
    agent = make_agent(kind)
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await asyncio.sleep(rng.uniform(0.005, 0.12))
    if task.done():
        raise RuntimeError(f"reply finished before the interrupt ({kind})")
    t0 = time.perf_counter()
    await agent.interrupt()
    result = await task
    elapsed = time.perf_counter() - t0
    assert result.metadata["_is_interrupted"]
    assert_history_valid(agent.memory.messages)
    return elapsed


async def one_bare_cancel(kind: str, rng: random.Random) -> float:
    """Cancel a bare task in the same situation: streaming ticks, or one long await (a tool)."""

    async def streamer() -> None:
        while True:  # noqa: ASYNC110 - stands in for a stream producing a token per tick
            await asyncio.sleep(1 / TPS)

    async def waiter() -> None:
        await asyncio.sleep(5)

    task = asyncio.create_task(waiter() if kind == "tool" else streamer())
    await asyncio.sleep(rng.uniform(0.005, 0.12))
    t0 = time.perf_counter()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    return time.perf_counter() - t0


async def main(trials: int) -> None:
    rng = random.Random(7)
    kinds = ["text", "tool_args", "tool"]
    agent_times: dict[str, list[float]] = {k: [] for k in kinds}
    floor_times: dict[str, list[float]] = {k: [] for k in kinds}
    for i in range(trials):
        kind = kinds[i % 3]
        agent_times[kind].append(await one_interrupt(kind, rng))
        floor_times[kind].append(await one_bare_cancel(kind, rng))
    every = [t for k in kinds for t in agent_times[k]]
    floor = [t for k in kinds for t in floor_times[k]]
    print(f"interrupts: {trials} at random points, model streaming at {TPS:.0f} tokens/s")
    print(f"agent interrupt -> interrupted Msg: {median_p99(every)} ms")
    print(f"bare task cancel (floor):          {median_p99(floor)} ms")
    for kind in kinds:
        print(
            f"  during {kind:<9}: agent {median_p99(agent_times[kind])} ms; "
            f"floor {median_p99(floor_times[kind])} ms"
        )
    p99, fp99 = pct(every, 0.99) * 1000, pct(floor, 0.99) * 1000
    ratio = p99 / fp99 if fp99 else float("inf")
    print(f"p99 ratio agent/floor: {ratio:.2f}x (goal <= 3x); p99 under 5 ms: {p99 < 5.0}")
    print(f"median ratio agent/floor: {statistics.median(every) / statistics.median(floor):.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300)
    asyncio.run(main(parser.parse_args().trials))
