"""Stop latency of the panel attached to a remote agent, against the in-kernel panel.

Each trial sends a message from a headless ``AgentPanel``, waits a random moment while the
answer streams, clicks Stop and times until the chat has finished the interrupted reply (the
interrupted message drawn, the chat idle, Continue enabled). Three agents, in the same run:

- ``local``: ``nb_hitl.demo.remote.nb_hitl_agent()`` in this process (the baseline);
- ``langgraph``: a LangGraph graph on a scripted chat model behind ag-ui-langgraph, a uvicorn
  process on loopback (``nb_hitl.demo.remote``);
- ``nb_hitl``: the same agent behind nb_hitl's own server (``python -m nb_hitl.serve``).

    python bench/remote_interrupt.py [--trials 30]

Prints median and p99 in ms per agent and the ratio to the local panel.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, pct

from nb_hitl.demo.remote import nb_hitl_agent, start_langgraph_server, start_nb_hitl_server
from nb_hitl.remote import RemoteAgent
from nb_hitl.widgets import AgentPanel

os.environ.setdefault("NB_HITL_DEMO_TPS", "50")  # the served agent and the local one alike


async def one_stop(panel: AgentPanel, rng: random.Random) -> float:
    chat = panel.chat
    before = chat.live.flushes
    chat.send("Tell me a long story.")
    # The widget has no "drawn" event to await: poll its state, as a person watches it.
    while chat.live.flushes <= before:  # noqa: ASYNC110 - until the answer streams
        await asyncio.sleep(0.002)
    await asyncio.sleep(rng.uniform(0.05, 0.25))
    started = time.perf_counter()
    chat.stop_button.click()
    while not (chat.last_interrupted and chat.state == "idle" and not panel.agent.is_replying):  # noqa: ASYNC110
        await asyncio.sleep(0.0005)
    took = time.perf_counter() - started
    assert panel.agent.memory.messages[-1].is_interrupted
    await asyncio.sleep(0.05)  # let the server finish its side of the Stop
    return took


async def measure(name: str, make: object, trials: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    agent = make()  # type: ignore[operator]
    panel = AgentPanel(agent, session=None, inspector=False)
    times = [await one_stop(panel, rng) for _ in range(trials)]
    panel.close()
    if isinstance(agent, RemoteAgent):
        await agent.aclose()
    print(f"{name:>10}: Stop -> interrupted reply drawn: {median_p99(times)} ms ({trials} trials)")
    return times


async def main(trials: int, seed: int) -> None:
    servers = [start_langgraph_server(delay=0.02)]  # 50 words/s, as the local model
    try:
        try:
            import nb_hitl.serve  # noqa: F401

            servers.append(start_nb_hitl_server())
        except ImportError:
            print("nb_hitl.serve is not installed here: the nb_hitl server is left out")
        base = await measure("local", nb_hitl_agent, trials, seed)
        results = {}
        for name, server in zip(("langgraph", "nb_hitl"), servers, strict=False):
            results[name] = await measure(
                name, lambda url=server.url, n=name: RemoteAgent(url, name=n), trials, seed
            )
        for name, times in results.items():
            ratio_med = statistics.median(times) / statistics.median(base)
            ratio_p99 = pct(times, 0.99) / pct(base, 0.99)
            print(f"{name:>10} / local: median x{ratio_med:.2f}, p99 x{ratio_p99:.2f}")
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.trials, args.seed))
