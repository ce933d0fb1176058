"""What the hypothesis state machines of the interrupt and pipeline harnesses share."""

from __future__ import annotations

import asyncio
import os
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
