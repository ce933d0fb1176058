"""Benchmark Kernel ▸ Interrupt after ``%load_ext nb_hitl`` in a real kernel (jupyter_client).

    python bench/kernel_interrupt.py [--trials 30]

A panel's reply streams in the background (no cell runs); ``KernelManager.interrupt_kernel()``
(what JupyterLab's ■ sends) is timed until the kernel's widget update carrying the interrupted
style arrives on iopub. For comparison, a Stop click (a comm message) is timed the same way.
Prints median and p99 in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99
from kernel_harness import KernelHarness, chat_interrupted, chat_text

SETUP = """
%load_ext nb_hitl
import json
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.widgets import AgentPanel
LONG = " ".join(f"word{i}" for i in range(20000))
agent = ReActAgent("Friday", "bench", ScriptedModel([LONG] * 1000, tokens_per_second=200))
panel = AgentPanel(agent, session=None)
chat = panel.chat
print(json.dumps({"stop": panel.model_id + "/chat/controls"}))
"""


def one(k: KernelHarness, how: str, stop_id: str) -> float:
    k.execute("agent.memory.clear() if hasattr(agent.memory, 'clear') else None\n"
              "chat.send('go')")  # fmt: skip
    k.wait_comm(lambda m: "word20 " in chat_text(m), timeout=60)
    start = time.perf_counter()
    if how == "kernel":
        k.km.interrupt_kernel()
    else:
        k.act(stop_id, "stop")  # the Stop button's action, as the page sends it
    received, _ = k.wait_comm(chat_interrupted, timeout=60)
    elapsed = received - start
    end = time.monotonic() + 30
    while k.execute("print(agent.is_replying)").strip() != "False":
        if time.monotonic() > end:
            raise TimeoutError("the reply did not end")
        time.sleep(0.05)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    k = KernelHarness(sys.executable)
    try:
        stop_id = json.loads(k.execute(SETUP).strip().splitlines()[-1])["stop"]
        for how in ("kernel", "click"):
            times = [one(k, how, stop_id) for _ in range(args.trials)]
            label = "Kernel ▸ Interrupt" if how == "kernel" else "Stop click (comm)"
            print(f"{label:>22} -> interrupted style on iopub, ms: {median_p99(times)}"
                  f"  ({len(times)} trials)")  # fmt: skip
    finally:
        k.close()


if __name__ == "__main__":
    main()
