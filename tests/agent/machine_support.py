"""What the interrupt and pipeline harness tests share: machine settings, teardown, the soak."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings


def machine_settings(env_var: str, default: int) -> settings:
    """A fixed, derandomized budget (the same examples on every CI run); ``env_var`` raises it."""
    return settings(
        max_examples=int(os.environ.get(env_var, str(default))),
        stateful_step_count=8,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def finish(loop: asyncio.AbstractEventLoop, harness: Any) -> None:
    """End a machine: the harness must still reply normally, then its loop is closed."""
    try:
        if harness is not None:
            loop.run_until_complete(harness.replies_normally())
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


ROOT = Path(__file__).resolve().parents[2]
SOAK = ROOT / "scripts" / "soak_interrupts.py"


def run_soak(*args: str) -> tuple[subprocess.CompletedProcess[str], int, int, int, int]:
    """Run ``scripts/soak_interrupts.py`` with ``args`` on this checkout's ``nb_hitl``; the run
    and its last line's counts (episodes, interrupts, steers, violations)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    run = subprocess.run(
        [sys.executable, str(SOAK), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else "0 x, 0 x, 0 x, 0 x"
    words = [part.split() for part in last.split(", ")]
    if [w[-1] for w in words] != ["episodes", "interrupts", "steers", "violations"]:
        raise AssertionError(f"the soak's last line is not its summary: {last!r}\n{run.stderr}")
    n, k, s, v = (int(w[0]) for w in words)
    return run, n, k, s, v
