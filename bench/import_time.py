"""Benchmark: how long ``import nb_hitl`` takes, next to baselines measured in the same run.

Run: ``python bench/import_time.py [--runs 30] [--src DIR]``

Every statement runs in a fresh interpreter (``python -c``), timed inside it with
``time.perf_counter`` around the statement only, so interpreter start-up is left out. The
statements take turns, round by round, so a machine that gets busier mid-run slows them all
alike. Printed per statement: median and p99 in ms, and how many modules it loaded.

Baselines: ``import json`` (a small stdlib module) and ``from pydantic import BaseModel`` plus
one model (what any pydantic-based package pays on first use, plugin discovery included; nb_hitl
pays it as soon as it touches a message or an agent). The nb_hitl timed is this checkout's
(``bench/_bootstrap.py``'s root), or with ``--src DIR`` the source tree in ``DIR`` (e.g. a
checkout of an older commit, for a before/after comparison); the interpreters run in an empty
directory, so the one the script was started from (``''`` first on ``sys.path``) never
shadows it.

Bytecode: by default the runs share a fresh ``PYTHONPYCACHEPREFIX`` (filled by one untimed run
per statement), so modules load from ``.pyc`` as in an installed package, even where
``PYTHONDONTWRITEBYTECODE`` is set. ``--no-bytecode`` sets ``PYTHONDONTWRITEBYTECODE=1`` and no
prefix instead: modules that have no ``.pyc`` yet (an editable checkout's) compile from source
in every run, as on a machine with that variable set.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import _bootstrap  # this checkout's nb_hitl first on sys.path
from _stats import median_p99

STATEMENTS = {
    "baseline: import json": "import json",
    "baseline: pydantic BaseModel": (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int\nM(x=1)"
    ),
    "import nb_hitl": "import nb_hitl",
    "from nb_hitl import ReActAgent, Msg": "from nb_hitl import ReActAgent, Msg",
}

PROBE = """\
import sys, time
_before = len(sys.modules)
_start = time.perf_counter()
{stmt}
_elapsed = time.perf_counter() - _start
print(_elapsed, len(sys.modules) - _before)
"""


def run_once(stmt: str, env: dict[str, str], cwd: str | None = None) -> tuple[float, int]:
    """Seconds the statement took in a fresh interpreter, and the modules it loaded.

    ``cwd``: where the interpreter runs (``python -c`` puts it first on ``sys.path``: give an
    empty directory so that ``PYTHONPATH`` decides which nb_hitl is imported).
    """
    code = PROBE.format(stmt=stmt)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=cwd
    )
    elapsed, loaded = out.stdout.split()
    return float(elapsed), int(loaded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30, help="fresh interpreters per statement")
    parser.add_argument("--src", help="a directory holding the nb_hitl package to time")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="write no .pyc (PYTHONDONTWRITEBYTECODE=1)"
    )
    args = parser.parse_args()

    env = source_env(args.src or str(_bootstrap.ROOT))
    with (
        tempfile.TemporaryDirectory(prefix="nb_hitl_pycache_") as cache,
        tempfile.TemporaryDirectory(prefix="nb_hitl_import_cwd_") as cwd,
    ):
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        bytecode = "no .pyc written" if args.no_bytecode else "bytecode cached"
        measure(env, args.runs, bytecode, cwd)


def source_env(src: str) -> dict[str, str]:
    """The environment of interpreters that import nb_hitl from the tree in ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


def origin(env: dict[str, str], cwd: str | None) -> str:
    """The ``nb_hitl/__init__.py`` that interpreters started with ``env`` in ``cwd`` import."""
    return subprocess.run(
        [sys.executable, "-c", "import nb_hitl; print(nb_hitl.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=cwd,
    ).stdout.strip()


def measure(env: dict[str, str], runs: int, bytecode: str, cwd: str) -> None:
    """Time every statement ``runs`` times, in turns, and print the figures."""
    for stmt in STATEMENTS.values():  # once untimed: the file cache is warm for all alike
        run_once(stmt, env, cwd)
    print(f"nb_hitl from {origin(env, cwd)}; {bytecode}; {runs} fresh interpreters per statement")

    times: dict[str, list[float]] = {label: [] for label in STATEMENTS}
    loaded: dict[str, int] = {}
    for _ in range(runs):
        for label, stmt in STATEMENTS.items():
            elapsed, count = run_once(stmt, env, cwd)
            times[label].append(elapsed)
            loaded[label] = count
    width = max(map(len, STATEMENTS))
    for label in STATEMENTS:
        print(f"{label:<{width}}  {median_p99(times[label])} ms, {loaded[label]} modules")


if __name__ == "__main__":
    main()
