"""Decisions and answers hop onto the agent's event loop through the agent's one hop.

Widgets may call from a comm thread (JupyterLab's ``commsOverSubshells``), so a decision made
off the agent's loop is scheduled on it with ``loop.call_soon_threadsafe``. ``submit`` returns
a future without waiting (the ``_threadsafe`` methods); ``run_on_loop`` waits up to a timeout and
withdraws the hop if the loop has not taken it, so a decision either applies whole or not at all.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import TypeVar

from nb_hitl.exceptions import ApprovalError

from .._lifecycle import on_loop_thread

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0
"""Seconds a decision or an answer made off the loop waits for the loop to take it."""


def loop_if_running(loop: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop | None:
    """``loop`` if it is open and running, else None."""
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def on_thread_of(loop: asyncio.AbstractEventLoop) -> bool:
    """True when called on the thread that runs ``loop``."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def submit(
    loop: asyncio.AbstractEventLoop | None, fn: Callable[[], T]
) -> concurrent.futures.Future[T]:
    """Run ``fn`` on ``loop`` (now, if already on its thread or it is not running).

    The returned future holds ``fn``'s result or exception. The hop itself is the agent's one
    (``nb_hitl.agent._lifecycle.on_loop_thread``, which ``interrupt_threadsafe`` and
    ``steer_threadsafe`` use too); a future cancelled before the loop takes it never runs.
    """
    return on_loop_thread(loop, fn, fn)


def run_on_loop(loop: asyncio.AbstractEventLoop | None, fn: Callable[[], T], timeout: float) -> T:
    """Run ``fn`` on ``loop`` and return its result, waiting at most ``timeout`` seconds for
    the loop to take it (off the loop's thread).

    Raises:
        ApprovalError: the loop did not take it in time; it was withdrawn and never runs.
    """
    fut = submit(loop, fn)
    try:
        return fut.result(timeout)
    except concurrent.futures.TimeoutError:
        if fut.cancel():  # not taken yet: withdrawn, so it never applies
            raise ApprovalError(
                f"The agent's event loop did not take the decision within {timeout} s "
                "(is a cell blocking it?); nothing was changed. Try again."
            ) from None
        return fut.result()  # it is being applied right now: wait for it


__all__ = ["loop_if_running", "on_thread_of", "run_on_loop", "submit"]
