"""Stop latency of the panel attached to a remote agent, against the in-kernel panel.

Each trial sends a message from a headless ``AgentPanel``, waits a random moment while the
answer streams, clicks Stop and times until the chat has finished the interrupted reply (the
interrupted message drawn, the chat idle, Continue enabled). Three agents, in the same run:

- ``local``: a ``ReActAgent`` on a ``ScriptedModel`` in this process (the baseline);
- ``langgraph``: a LangGraph graph on a scripted chat model behind ag-ui-langgraph, a uvicorn
  process on loopback (``nb_hitl.demo_remote``);
- ``nb_hitl``: nb_hitl's own server (``python -m nb_hitl.serve``), when it is installed.

    python bench/remote_interrupt.py [--trials 30]

Prints median and p99 in ms per agent and the ratio to the local panel.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

from _stats import median_p99, pct

from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.remote import RemoteAgent
from nb_hitl.widgets import AgentPanel

REPO = Path(__file__).resolve().parents[1]
LONG = " ".join(f"word{i}" for i in range(2000))
NB_AGENT = """
from nb_hitl import ReActAgent, ScriptedModel

def make_agent():
    text = " ".join(f"word{i}" for i in range(2000))
    return ReActAgent("Served", "sys", ScriptedModel([text] * 1000, tokens_per_second=50))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(args: list[str], port: int, cwd: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(cwd)]))
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{args} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{args} did not listen on {port}")


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
    procs: list[subprocess.Popen[bytes]] = []
    try:
        lg_port = free_port()
        procs.append(
            start(
                ["-m", "nb_hitl.demo_remote", "--port", str(lg_port), "--delay", "0.02"],
                lg_port,
                REPO,
            )
        )
        nb_url = None
        try:
            import nb_hitl.serve  # noqa: F401

            workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"nb-hitl-bench-{os.getpid()}"
            workdir.mkdir(exist_ok=True)
            (workdir / "bench_agents.py").write_text(NB_AGENT)
            nb_port = free_port()
            procs.append(
                start(
                    [
                        "-m",
                        "nb_hitl.serve",
                        "bench_agents:make_agent",
                        "--port",
                        str(nb_port),
                        "--no-save",
                    ],
                    nb_port,
                    workdir,
                )
            )
            nb_url = f"http://127.0.0.1:{nb_port}/"
        except ImportError:
            print("nb_hitl.serve is not installed here: the nb_hitl server is left out")

        def local() -> ReActAgent:
            return ReActAgent("Local", "sys", ScriptedModel([LONG] * 1000, tokens_per_second=50))

        base = await measure("local", local, trials, seed)
        lg = await measure(
            "langgraph", lambda: RemoteAgent(f"http://127.0.0.1:{lg_port}/"), trials, seed
        )
        results = {"langgraph": lg}
        if nb_url is not None:
            results["nb_hitl"] = await measure("nb_hitl", lambda: RemoteAgent(nb_url), trials, seed)
        for name, times in results.items():
            ratio_med = statistics.median(times) / statistics.median(base)
            ratio_p99 = pct(times, 0.99) / pct(base, 0.99)
            print(f"{name:>10} / local: median x{ratio_med:.2f}, p99 x{ratio_p99:.2f}")
    finally:
        for proc in procs:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.trials, args.seed))
