"""nb_hitl next to AgentScope 1.0.21, in one process: interrupt latency and import time.

    python bench/agentscope_side_by_side.py [--trials 300] [--rounds 5] [--runs 30]

Interrupt: the same reply on AgentScope 1.0.21's ``ReActAgent`` and on nb_hitl's, each driven
by one custom streaming model (the same class body over each library's ``ChatModelBase``: an
AgentScope-style ``async def __call__`` returning an async generator of cumulative chunks, a
token every millisecond). After 5 untimed warm-up interrupts each, every trial starts a reply
on both agents in turn (which goes first alternates), waits the same random 5-120 ms, and times
``await agent.interrupt()`` up to the interrupted ``Msg`` the reply task returns. Both sides
get the same treatment: a fresh agent per trial, and a full ``gc.collect()`` (untimed) before
each reply starts, so that neither side's window pays for garbage the other side's (or its
own earlier) trials left. (Not right before the interrupt: that empties the CPU's caches
and measures a cold path no user sees.) Collections that the reply's own allocations trigger
still count, and the report says how many windows of each side held one.

Each window is also timed in the thread's CPU time (``time.thread_time()``, read just outside
the wall-clock window): on a shared machine another process can take the core in the middle
of a window, and the wall-clock time then counts that process, not the agent. That happens
to either side at random and makes most of the wall-clock tail (windows of 1-3 ms whose CPU
time is ~0.3 ms). The report gives both; the CPU figures are the agents' own work, and the
report says how many windows of each side lost more than 0.1 ms to being off the core.

A p99 of 300 trials is the 4th largest of them: a couple of trials that the machine's noise
(another process on the core) lands on move it a lot. So the trials run in ``--rounds``
rounds (each with its own random delays, both sides interleaved as above); the report gives
each round's figures, the pooled median and p99 of all rounds, the range of the per-round p99
ratios, and a bootstrap 95% interval of the pooled p99 ratio (trials resampled with
replacement per side, 2,000 times, a fixed seed). Goal (issue 31): nb_hitl's p99 at most 0.8x
AgentScope's, which the interval's upper end shows is met or not.

Import: ``from nb_hitl import ReActAgent, Msg``, AgentScope's ``from agentscope.agent import
ReActAgent`` plus ``from agentscope.message import Msg``, and ``bench/import_time.py``'s
pydantic baseline (``from pydantic import BaseModel`` and one model), each in a fresh
interpreter of the same venv, in turns, timed inside the interpreter (start-up left out),
bytecode cached. Goal: nb_hitl at most 1.5x pydantic's.

The environment: AgentScope pins ``pydantic<2.12`` and its own dependencies, so it gets a venv
of its own, made once and cached under ``~/.cache/nb_hitl-bench/`` (``NB_HITL_BENCH_CACHE``
moves it; its name carries a hash of the requirements, so a change makes a new one). It holds
``agentscope==1.0.21`` with ``mcp==1.17.0``, ``pydantic<2.12``, ``greenlet`` and ``tqdm``
pinned beside it, plus nb_hitl's own dependencies (read from ``pyproject.toml``) but not
nb_hitl: the script re-runs itself with that venv's interpreter, and ``bench/_bootstrap.py``
puts this checkout's ``nb_hitl`` first on ``sys.path`` there, as in every bench. Both agents
thus run on the same pydantic and the same event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")
os.environ.setdefault("AGENTSCOPE_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, pct

ROOT = Path(__file__).resolve().parents[1]
AGENTSCOPE = ["agentscope==1.0.21", "mcp==1.17.0", "pydantic<2.12", "greenlet", "tqdm"]
"""What AgentScope 1.0.21 needs pinned beside it to install (and import) here."""
TPS = 1000.0
TOKENS = 400
"""Tokens per reply: 400 ms at 1,000 tokens/s, longer than the latest interrupt (120 ms)."""
WARMUP = 5
"""Untimed interrupts per agent first (lazy imports, caches), as in any steady-state run."""
BOOTSTRAP = 2000
"""Resamples for the interval of the pooled p99 ratio."""


# --- the environment ---------------------------------------------------------------------------


def nb_hitl_requirements() -> list[str]:
    """nb_hitl's runtime dependencies, as ``pyproject.toml`` lists them."""
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def venv_dir() -> Path:
    """The cached venv for these requirements (a new one when they change)."""
    requirements = AGENTSCOPE + nb_hitl_requirements()
    digest = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:10]
    cache = Path(os.environ.get("NB_HITL_BENCH_CACHE", Path.home() / ".cache" / "nb_hitl-bench"))
    return cache / f"agentscope-1.0.21-{digest}"


def ensure_venv() -> Path:
    """The venv's interpreter, after making the venv if it is not there yet (a few minutes)."""
    venv = venv_dir()
    python = venv / "bin" / "python"
    done = venv / ".installed"
    if done.exists():
        return python
    print(f"making {venv} (once): {' '.join(AGENTSCOPE)} and nb_hitl's dependencies", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # pydantic<2.12 satisfies nb_hitl's pydantic>=2.6 too: one resolve for both.
    subprocess.run([*pip, *AGENTSCOPE, *nb_hitl_requirements()], check=True)
    done.write_text("\n".join(AGENTSCOPE + nb_hitl_requirements()) + "\n")
    return python


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == venv_dir().resolve()


# --- one streaming model for both --------------------------------------------------------------


def streaming_model(base: type, response: type, text_block: Any) -> Any:
    """The bench's model over ``base`` (either library's ``ChatModelBase``): same body for both."""

    class StreamingModel(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__("bench-stream", stream=True)

        async def __call__(
            self,
            messages: list[dict[str, Any]],
            tools: list[dict[str, Any]] | None = None,
            tool_choice: str | None = None,
            **kwargs: Any,
        ) -> Any:
            async def chunks() -> Any:
                text = ""
                for i in range(TOKENS):
                    await asyncio.sleep(1 / TPS)
                    text += f"token{i} "
                    yield response(content=[text_block(type="text", text=text)])

            return chunks()

    return StreamingModel()


def agentscope_agent() -> Any:
    from agentscope.agent import ReActAgent
    from agentscope.formatter import OpenAIChatFormatter
    from agentscope.message import TextBlock
    from agentscope.model import ChatModelBase, ChatResponse

    model = streaming_model(ChatModelBase, ChatResponse, TextBlock)
    agent = ReActAgent("Bench", "sys", model, OpenAIChatFormatter())
    agent.set_console_output_enabled(False)
    return agent


def nb_hitl_agent() -> Any:
    from nb_hitl import ReActAgent
    from nb_hitl.message import TextBlock
    from nb_hitl.model import ChatModelBase, ChatResponse

    return ReActAgent("Bench", "sys", streaming_model(ChatModelBase, ChatResponse, TextBlock))


class Window:
    """Counts the garbage collections that run inside a timed window (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.open = False
        self.collections = 0
        gc.callbacks.append(self._seen)

    def _seen(self, phase: str, info: dict[str, Any]) -> None:
        if self.open and phase == "start":
            self.collections += 1


Trial = tuple[float, int, float]
"""One window: wall-clock seconds, garbage collections in it, the thread's CPU seconds."""


async def one_interrupt(agent: Any, msg: Any, delay: float, window: Window) -> Trial:
    """Seconds from ``await agent.interrupt()`` to the interrupted message, ``delay`` in, how
    many garbage collections ran meanwhile, and the CPU seconds the thread spent on it."""
    gc.collect()  # untimed, on both sides: no earlier trial's garbage is left to collect
    task = asyncio.create_task(agent(msg))
    await asyncio.sleep(delay)
    if task.done():
        raise RuntimeError("the reply finished before the interrupt")
    window.collections = 0
    window.open = True
    cpu_start = time.thread_time()
    start = time.perf_counter()
    await agent.interrupt()
    result = await task
    elapsed = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    window.open = False
    if not (result.metadata or {}).get("_is_interrupted"):
        raise RuntimeError(f"not an interrupted message: {result!r}")
    return elapsed, window.collections, cpu


async def interrupts(trials: int, rounds: int) -> list[dict[str, list[Trial]]]:
    """``rounds`` rounds of ``trials`` interleaved trials: per round, per side, the trials."""
    import agentscope.message

    import nb_hitl

    sides = {
        "agentscope": (agentscope_agent, agentscope.message.Msg),
        "nb_hitl": (nb_hitl_agent, nb_hitl.Msg),
    }
    window = Window()
    for make, msg in sides.values():  # warm-up, untimed: first-use imports and caches
        for _ in range(WARMUP):
            await one_interrupt(make(), msg("User", "go", "user"), 0.01, window)
    out = []
    for round_ in range(rounds):
        times: dict[str, list[Trial]] = {side: [] for side in sides}
        rng = random.Random(7 + round_)
        for trial in range(trials):
            delay = rng.uniform(0.005, 0.12)
            order = list(sides) if trial % 2 == 0 else list(reversed(sides))
            for side in order:
                make, msg = sides[side]
                times[side].append(
                    await one_interrupt(make(), msg("User", "go", "user"), delay, window)
                )
        out.append(times)
    return out


def p99_ratio_interval(ours: list[float], theirs: list[float]) -> tuple[float, float]:
    """The bootstrap 95% interval of ``p99(ours) / p99(theirs)`` (each side resampled)."""
    rng = random.Random(31)
    ratios = sorted(
        pct(rng.choices(ours, k=len(ours)), 0.99) / pct(rng.choices(theirs, k=len(theirs)), 0.99)
        for _ in range(BOOTSTRAP)
    )
    return pct(ratios, 0.025), pct(ratios, 0.975)


# --- import time -------------------------------------------------------------------------------


def import_times(runs: int) -> dict[str, list[float]]:
    from import_time import STATEMENTS, run_once

    statements = {
        "from pydantic import BaseModel (+ a model)": STATEMENTS["baseline: pydantic BaseModel"],
        "from nb_hitl import ReActAgent, Msg": "from nb_hitl import ReActAgent, Msg",
        "agentscope ReActAgent, Msg": (
            "from agentscope.agent import ReActAgent\nfrom agentscope.message import Msg"
        ),
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times: dict[str, list[float]] = {label: [] for label in statements}
    with (
        tempfile.TemporaryDirectory(prefix="nb_hitl_pycache_") as cache,
        tempfile.TemporaryDirectory(prefix="nb_hitl_import_cwd_") as cwd,  # '' shadows nothing
    ):
        env["PYTHONPYCACHEPREFIX"] = cache
        for stmt in statements.values():  # once untimed: bytecode written, file cache warm
            run_once(stmt, env, cwd)
        for _ in range(runs):
            for label, stmt in statements.items():
                times[label].append(run_once(stmt, env, cwd)[0])
    return times


# --- the run -----------------------------------------------------------------------------------


def ratio(ours: list[float], theirs: list[float], q: float | None) -> float:
    if q is None:
        return statistics.median(ours) / statistics.median(theirs)
    return pct(ours, q) / pct(theirs, q)


def report(trials: int, rounds: int, runs: int) -> None:
    import agentscope

    print(
        f"agentscope {agentscope.__version__}; nb_hitl from {ROOT}; python {sys.version.split()[0]}"
    )
    per_round = asyncio.run(interrupts(trials, rounds))
    print(
        f"interrupt -> interrupted Msg, {rounds} rounds x {trials} trials each, interleaved, "
        f"{TPS:.0f} tokens/s (ms):"
    )
    round_ratios = []
    for i, times in enumerate(per_round, 1):
        ours = [t for t, _, _ in times["nb_hitl"]]
        theirs = [t for t, _, _ in times["agentscope"]]
        round_ratios.append(ratio(ours, theirs, 0.99))
        print(
            f"  round {i}: agentscope {median_p99(theirs)}; nb_hitl {median_p99(ours)}; "
            f"p99 {round_ratios[-1]:.2f}x"
        )
    pooled = {
        side: [trial for times in per_round for trial in times[side]] for side in per_round[0]
    }
    ours = [t for t, _, _ in pooled["nb_hitl"]]
    theirs = [t for t, _, _ in pooled["agentscope"]]
    labels = {"agentscope": "agentscope ReActAgent:", "nb_hitl": "nb_hitl ReActAgent:"}
    for side, label in labels.items():
        values = [t for t, _, _ in pooled[side]]
        with_gc = sum(1 for _, n, _ in pooled[side] if n)
        off_core = sum(1 for t, _, cpu in pooled[side] if t - cpu > 1e-4)
        print(
            f"  all {len(values)}, {label:<22} {median_p99(values)}; "
            f"{with_gc} windows held a garbage collection, {off_core} were off the core > 0.1 ms"
        )
    low, high = p99_ratio_interval(ours, theirs)
    print(
        f"  nb_hitl/agentscope: median {ratio(ours, theirs, None):.2f}x, "
        f"p99 {ratio(ours, theirs, 0.99):.2f}x (bootstrap 95% {low:.2f}x..{high:.2f}x; "
        f"rounds {min(round_ratios):.2f}x..{max(round_ratios):.2f}x) (goal p99 <= 0.8x)"
    )
    print("  the same windows in the thread's CPU time (the agents' own work):")
    cpu = {side: [c for _, _, c in pooled[side]] for side in labels}
    for side, label in labels.items():
        print(f"    {label:<22} {median_p99(cpu[side])}")
    ours_cpu, theirs_cpu = cpu["nb_hitl"], cpu["agentscope"]
    low, high = p99_ratio_interval(ours_cpu, theirs_cpu)
    cpu_rounds = [
        ratio([c for _, _, c in r["nb_hitl"]], [c for _, _, c in r["agentscope"]], 0.99)
        for r in per_round
    ]
    print(
        f"    nb_hitl/agentscope: median {ratio(ours_cpu, theirs_cpu, None):.2f}x, "
        f"p99 {ratio(ours_cpu, theirs_cpu, 0.99):.2f}x (bootstrap 95% {low:.2f}x..{high:.2f}x; "
        f"rounds {min(cpu_rounds):.2f}x..{max(cpu_rounds):.2f}x)"
    )
    imports = import_times(runs)
    print(f"import, {runs} fresh interpreters each, interleaved, bytecode cached:")
    width = max(map(len, imports))
    for label, values in imports.items():
        print(f"  {label:<{width}}  {median_p99(values)} ms")
    base = imports["from pydantic import BaseModel (+ a model)"]
    nb = imports["from nb_hitl import ReActAgent, Msg"]
    ag = imports["agentscope ReActAgent, Msg"]
    print(
        f"  nb_hitl/pydantic: median {ratio(nb, base, None):.2f}x, p99 {ratio(nb, base, 0.99):.2f}x"
        f" (goal <= 1.5x); nb_hitl/agentscope: median {ratio(nb, ag, None):.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=300, help="interrupts per agent a round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --trials")
    parser.add_argument("--runs", type=int, default=30, help="fresh interpreters per import")
    args = parser.parse_args()
    if not in_venv():
        python = ensure_venv()
        sys.exit(subprocess.run([str(python), __file__, *sys.argv[1:]]).returncode)
    report(args.trials, args.rounds, args.runs)


if __name__ == "__main__":
    main()
