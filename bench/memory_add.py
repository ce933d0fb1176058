"""Benchmark: what ``InMemoryMemory.add`` and ``get`` cost as memory grows to 10,000 messages.

Run: ``python bench/memory_add.py [--messages 10000] [--rounds 5]``

Each round makes a fresh ``InMemoryMemory`` and adds ``--messages`` messages one by one with
``add_sync`` (what ``await memory.add(msg)`` does), timing every add, then looks up every id
with ``get`` (what the agent does for each incoming and steered message). Printed: the total
time of all adds, the median and p99 of one add over the last 1,000 (memory then holds
9,000-10,000 messages) and of one ``get``, next to two baselines from the same run on the same
messages: ``list.append`` plus a dict insert (the least an add can cost), and the add as it was
before the index (the held ids collected into a set again on every add: ``O(n)`` per add, so
``O(n^2)`` for the conversation).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99

from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg


def rebuilt_per_add(held: list[Msg]) -> Callable[[Msg], None]:
    """The former ``add_sync``'s duplicate check: every held id into a new set, per add."""

    def add(msg: Msg) -> None:
        known = {m.id for m in held}
        if msg.id not in known:
            held.append(msg)

    return add


def appended(held: list[Msg]) -> Callable[[Msg], None]:
    index: dict[str, Msg] = {}

    def add(msg: Msg) -> None:
        index[msg.id] = msg
        held.append(msg)

    return add


def time_adds(add: Callable[[Msg], None], msgs: list[Msg]) -> list[float]:
    times = []
    for m in msgs:
        start = time.perf_counter()
        add(m)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000, help="messages added per round")
    parser.add_argument("--rounds", type=int, default=5, help="fresh memories per variant")
    args = parser.parse_args()
    n = args.messages
    msgs = [Msg("User" if i % 2 == 0 else "Friday", f"message {i}", "user") for i in range(n)]
    tail = min(1000, n)
    variants: dict[str, Callable[[], Callable[[Msg], None]]] = {
        "InMemoryMemory.add_sync": lambda: InMemoryMemory().add_sync,
        "baseline: list.append + dict": lambda: appended([]),
        "before: id set rebuilt per add": lambda: rebuilt_per_add([]),
    }
    totals: dict[str, list[float]] = {label: [] for label in variants}
    last: dict[str, list[float]] = {label: [] for label in variants}
    gets: list[float] = []
    for _ in range(args.rounds):  # variants in turns: a machine getting busier slows all alike
        for label, make in variants.items():
            times = time_adds(make(), msgs)
            totals[label].append(sum(times))
            last[label].extend(times[-tail:])
        memory = InMemoryMemory()
        memory.add_sync(msgs)
        for m in msgs:
            start = time.perf_counter()
            memory.get(m.id)
            gets.append(time.perf_counter() - start)
    print(f"{n:,} messages added one by one, {args.rounds} rounds each, in turns:")
    width = max(map(len, variants))
    for label in variants:
        print(
            f"  {label:<{width}}  all adds: {median_p99(totals[label])} ms;"
            f" one add of the last {tail:,}: {median_p99(last[label], 1e6)} us"
        )
    print(f"  {'InMemoryMemory.get':<{width}}  one get at {n:,} held: {median_p99(gets, 1e6)} us")
    mine = sorted(totals["InMemoryMemory.add_sync"])[len(totals["InMemoryMemory.add_sync"]) // 2]
    before = sorted(totals["before: id set rebuilt per add"])[args.rounds // 2]
    print(f"  all adds, before/now: {before / mine:.0f}x")


if __name__ == "__main__":
    main()
