"""Benchmark: what a database memory's write costs as the conversation grows (SQLite).

Run: ``python bench/stored_memory_flush.py [--sizes 50,500,2000] [--repeat 40]``

For each size, an ``AsyncSQLAlchemyMemory`` on a fresh SQLite file (aiosqlite) holds that
many messages (about 150 words each), all stored. Then, ``repeat`` times: one message is
changed (its text replaced, as a streaming answer grows) and ``flush()`` writes it. Printed per
size: the median and p99 of that write in ms, and of the change detection alone (``_diff``:
each held message compared by its JSON with what was stored), next to a baseline measured in
the same run: the same number of ``Msg.model_dump_json()`` calls, which is what the detection
costs at the least.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, timed

from nb_hitl.memory import AsyncSQLAlchemyMemory
from nb_hitl.message import Msg


async def one_size(n: int, repeat: int, folder: Path) -> None:
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(f"sqlite+aiosqlite:///{folder / f'm{n}.db'}")
    memory = AsyncSQLAlchemyMemory(engine, session_id=f"s{n}", user_id="bench")
    text = "word " * 150
    msgs = [Msg("Friday" if i % 2 else "User", text, "assistant" if i % 2 else "user")
            for i in range(n)]  # fmt: skip
    await memory.add(msgs)
    await memory.flush()
    writes = []
    for i in range(repeat):
        last = memory.messages[-1]
        memory.replace(Msg(last.name, f"{text} {i}", last.role, id=last.id))
        start = time.perf_counter()
        await memory.flush()
        writes.append(time.perf_counter() - start)
    diffs = timed(memory._diff, repeat)
    dumps = timed(lambda: [m.model_dump_json() for m in memory.messages], repeat)
    print(f"{n:5d} messages: flush one change {median_p99(writes)} ms")
    print(f"{'':5s}            change detection {median_p99(diffs)} ms")
    print(f"{'':5s}            baseline (JSON of every message) {median_p99(dumps)} ms")
    await memory.close()
    await engine.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,500,2000")
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for n in (int(s) for s in args.sizes.split(",")):
            await one_size(n, args.repeat, Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
