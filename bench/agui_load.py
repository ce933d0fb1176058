"""Load on nb_hitl's AG-UI server: 50 threads streaming at once from one server process, with
stops at random moments (half through the stop route, some by closing the stream).

    python bench/agui_load.py [--threads 50] [--runs 4] [--seed 1]

Each thread sends ``--runs`` messages; each run is stopped after a random delay (0-1 s; a
reply takes ~0.8 s, so some finish first), by ``POST .../interrupt`` or, one run in four, by
closing the connection (the client then reconnects through ``GET .../messages``, as a panel
does). Afterwards every thread's received events (deltas, whole messages,
snapshots) are compared with the thread's stored memory (``GET .../messages``):

- lost: a stored message the client never received, or streamed text short of what was stored;
- duplicated: a message started twice, a stored id twice, or streamed text beyond what was stored.

Prints both counts (0 and 0 expected), then median/p99 of time to first token (request sent
-> first TEXT_MESSAGE_CONTENT) and of stop latency (stop request sent -> RUN_FINISHED), and,
measured in the same run as a baseline, the same figures for the same 50 agents in this
process (``agent(msg)`` -> first streamed delta; ``agent.interrupt()`` -> the reply returned).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
import httpx
from _stats import median_p99

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


@dataclass
class ThreadLog:
    thread: str
    starts: Counter[str] = field(default_factory=Counter)
    received: set[str] = field(default_factory=set)
    streamed: dict[str, str] = field(default_factory=dict)
    complete_runs: int = 0
    cut_runs: int = 0
    stop_retries: int = 0
    finished_ids: set[str] = field(default_factory=set)
    """Messages whose TEXT_MESSAGE_END the client saw (their streamed text is whole)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, folder: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
    cmd = [sys.executable, "-m", "nb_hitl.serve", "_agui_agent:make_agent", "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--sessions", folder], cwd=REPO, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the server did not start")


async def one_run(
    client: httpx.AsyncClient,
    url: str,
    log: ThreadLog,
    rng: random.Random,
    ttft: list[float],
    stops: list[float],
) -> None:
    msg = {"id": "u-" + uuid.uuid4().hex[:12], "role": "user", "content": "go on"}
    data = {"threadId": log.thread, "runId": uuid.uuid4().hex[:8], "messages": [msg]}
    delay = rng.uniform(0.0, 1.0)
    cut = rng.random() < 0.25
    t0 = time.perf_counter()
    stop_sent: float | None = None
    stopper: asyncio.Task[Any] | None = None

    async def stop_later() -> None:
        nonlocal stop_sent
        await asyncio.sleep(delay)
        stop_sent = time.perf_counter()
        for attempt in range(3):  # Stop is idempotent; a pooled connection the server closed
            try:  # after its keep-alive timeout fails once (httpx.ReadError): send it again
                await client.post(f"{url}/threads/{log.thread}/interrupt", json={})
                return
            except httpx.TransportError:
                if attempt == 2:
                    raise
                log.stop_retries += 1

    async with client.stream("POST", url + "/", json=data) as r:
        assert r.status_code == 200, await r.aread()
        if not cut:
            stopper = asyncio.create_task(stop_later())
        first = True
        async for line in r.aiter_lines():
            if not line.startswith("data: "):
                continue
            e = json.loads(line[6:])
            kind = e["type"]
            if kind == "MESSAGES_SNAPSHOT":
                log.received.update(m["id"] for m in e["messages"])
            elif kind == "TEXT_MESSAGE_START":
                log.starts[e["messageId"]] += 1
                log.received.add(e["messageId"])
            elif kind == "TEXT_MESSAGE_CONTENT":
                if first:
                    ttft.append(time.perf_counter() - t0)
                    first = False
                mid = e["messageId"]
                log.streamed[mid] = log.streamed.get(mid, "") + e["delta"]
                if cut and time.perf_counter() - t0 > delay:
                    log.cut_runs += 1
                    break  # the client goes away mid-stream
            elif kind == "TEXT_MESSAGE_END":
                log.finished_ids.add(e["messageId"])
            elif kind in ("RUN_FINISHED", "RUN_ERROR"):
                if kind == "RUN_ERROR":
                    raise RuntimeError(e)
                log.complete_runs += 1
                if stop_sent is not None and e["outcome"]["type"] == "cancelled":
                    stops.append(time.perf_counter() - stop_sent)
    if stopper is not None:
        await stopper
    if cut:  # reconnect as a client does: the history route, once the stopped reply is done
        saved = (await client.get(f"{url}/threads/{log.thread}/messages")).json()
        for _ in range(600):  # polling the server: no event to wait on across processes
            if not saved["running"]:
                break
            await asyncio.sleep(0.05)
            saved = (await client.get(f"{url}/threads/{log.thread}/messages")).json()
        log.received.update(m["id"] for m in saved["messages"])


async def in_process(threads: int, runs: int, seed: int) -> tuple[list[float], list[float]]:
    """The baseline: the same agents and stops, no server (times in seconds)."""
    from _agui_agent import make_agent

    from nb_hitl.events import MessageUpdated
    from nb_hitl.message import Msg

    ttft: list[float] = []
    stops: list[float] = []
    rng = random.Random(seed)

    async def thread() -> None:
        agent = make_agent()
        agent.set_console_output_enabled(False)
        r = random.Random(rng.random())
        for _ in range(runs):
            t0 = time.perf_counter()
            first = asyncio.get_running_loop().create_future()

            def on_event(e: Any, first: asyncio.Future[None] = first) -> None:
                if isinstance(e, MessageUpdated) and not first.done():
                    first.set_result(None)

            sub = agent.subscribe(on_event)
            task = asyncio.create_task(agent(Msg("user", "go on", "user")))
            delay = r.uniform(0.0, 1.0)
            await asyncio.wait({first, task}, return_when=asyncio.FIRST_COMPLETED)
            if first.done():
                ttft.append(time.perf_counter() - t0)
            await asyncio.sleep(max(0.0, delay - (time.perf_counter() - t0)))
            if not task.done():
                asked = time.perf_counter()
                await agent.interrupt()
                reply = await task
                if reply.metadata.get("_is_interrupted"):
                    stops.append(time.perf_counter() - asked)
            await task
            sub.close()

    await asyncio.gather(*(thread() for _ in range(threads)))
    return ttft, stops


def check(log: ThreadLog, stored: list[dict[str, Any]]) -> tuple[int, int]:
    ids = [m["id"] for m in stored]
    lost = sum(1 for i in ids if i not in log.received)
    if lost and os.environ.get("AGUI_LOAD_DEBUG"):
        print("lost", log.thread, [m for m in stored if m["id"] not in log.received])
    dup = sum(n - 1 for n in Counter(ids).values()) + sum(n - 1 for n in log.starts.values())
    by_id = {m["id"]: m.get("content") or "" for m in stored}
    for mid, text in log.streamed.items():
        saved = by_id.get(mid)
        if saved is None:
            lost += 1  # streamed but never stored
        elif len(text) > len(saved) or not saved.startswith(text):
            dup += 1
        elif mid in log.finished_ids and text != saved:
            lost += 1
    return lost, dup


async def main(threads: int, runs: int, seed: int, url: str | None) -> None:
    proc = None
    if url is None:
        port = free_port()
        proc = start_server(port, tempfile.mkdtemp(prefix="nb_hitl-agui-load-"))
        url = f"http://127.0.0.1:{port}"
    rng = random.Random(seed)
    ttft: list[float] = []
    stops: list[float] = []
    logs = [ThreadLog(f"load-{i}-{uuid.uuid4().hex[:6]}") for i in range(threads)]
    try:
        limits = httpx.Limits(max_connections=4 * threads, max_keepalive_connections=2 * threads)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:

            async def thread(log: ThreadLog) -> None:
                r = random.Random(rng.random())
                for _ in range(runs):
                    await one_run(client, url, log, r, ttft, stops)

            start = time.perf_counter()
            await asyncio.gather(*(thread(log) for log in logs))
            wall = time.perf_counter() - start
            lost = dup = 0
            for log in logs:
                saved = (await client.get(f"{url}/threads/{log.thread}/messages")).json()
                a, b = check(log, saved["messages"])
                lost, dup = lost + a, dup + b
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    interrupted = len(stops)
    retries = sum(log.stop_retries for log in logs)
    cut = sum(log.cut_runs for log in logs)
    print(
        f"{threads} threads x {runs} runs on one server process in {wall:.1f} s: "
        f"{interrupted} stopped by the stop route, {cut} by closing the stream "
        f"({retries} stop requests sent again after a closed keep-alive connection)"
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine load average {load} on {os.cpu_count()} cores (the figures below share it)")
    print(f"lost messages: {lost}, duplicated messages: {dup}")
    print(f"time to first token (ms): {median_p99(ttft)}")
    print(f"stop latency, stop request -> RUN_FINISHED (ms): {median_p99(stops)}")
    base_ttft, base_stops = await in_process(threads, runs, seed)
    print(f"in-process baseline, same agents: time to first token (ms): {median_p99(base_ttft)}")
    print(f"in-process baseline: interrupt() -> reply returned (ms): {median_p99(base_stops)}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=50)
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", default=None, help="a running server serving _agui_agent:make_agent")
    a = p.parse_args()
    asyncio.run(main(a.threads, a.runs, a.seed, a.url))
