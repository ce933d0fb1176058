"""LoopBridge: run widget callbacks on the kernel's main event loop, from any thread.

JupyterLab 4.4+ may deliver comm messages (button clicks, slider moves) on a subshell thread.
``task.cancel()`` or ``queue.put_nowait()`` called there does not wake the main loop, so every
callback goes through ``LoopBridge.call``, which runs it at once on the loop's own thread and
hops with ``loop.call_soon_threadsafe`` from any other thread. Background coroutines started
with ``spawn`` are held by a strong reference and their exceptions are always retrieved.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

logger = logging.getLogger("nb_hitl.widgets")


def _capture_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    # ipykernel 6 runs cells inside its loop's callbacks; outside any loop, make one so that a
    # widget built in a plain script still works once that loop runs.
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        return loop


class LoopBridge:
    """The event loop a widget was created on, and thread-safe ways onto it.

    Args:
        loop: the loop to use; by default the running loop (the kernel's main loop in a cell).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop or _capture_loop()
        self.thread_id = threading.get_ident()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.on_error: Callable[[BaseException], None] | None = None

    def on_loop_thread(self) -> bool:
        """True when called on the thread that runs the loop."""
        if threading.get_ident() == self.thread_id:
            return True
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop: now if on its thread, else as soon as the loop can."""
        if self.on_loop_thread():
            self._safe(fn, *args)
        else:
            self.loop.call_soon_threadsafe(self._safe, fn, *args)

    def callback(self, fn: Callable[..., Any]) -> Callable[..., None]:
        """Wrap ``fn`` as a widget callback that always runs on the loop."""

        def wrapped(*args: Any) -> None:
            self.call(fn, *args)

        return wrapped

    def _safe(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # a widget callback must never kill the comm handler
            logger.exception("nb_hitl widget callback failed")
            if self.on_error is not None:
                self.on_error(exc)

    def spawn(
        self, coro: Coroutine[Any, Any, Any], *, name: str | None = None
    ) -> asyncio.Task[Any]:
        """Start ``coro`` as a task on the loop (call on the loop thread); keep a reference."""
        task = self.loop.create_task(coro, name=name)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()  # always retrieved
        if exc is not None:
            logger.error("nb_hitl widget task %s failed: %r", task.get_name(), exc)
            if self.on_error is not None:
                self.on_error(exc)

    def later(self, delay: float, fn: Callable[..., Any], *args: Any) -> asyncio.TimerHandle:
        """Run ``fn(*args)`` on the loop after ``delay`` seconds (call on the loop thread)."""
        return self.loop.call_later(max(0.0, delay), self._safe, fn, *args)


class WidgetRegistry:
    """The newest widget of each agent (weakly held); a newer one detaches the older.

    Re-running a cell makes a new widget for the same agent; the old one would otherwise keep
    redrawing (and sending comm messages) for every event, unseen.
    """

    def __init__(self) -> None:
        self._newest: weakref.WeakKeyDictionary[Any, weakref.ref[Any]] = weakref.WeakKeyDictionary()

    def replace(self, agent: Any, widget: Any, note: str) -> None:
        """Record ``widget`` for ``agent``; call ``detach(note)`` on the one it replaces."""
        try:
            older_ref = self._newest.get(agent)
            self._newest[agent] = weakref.ref(widget)
        except TypeError:  # an agent that cannot be weakly referenced: nothing to track
            return
        older = older_ref() if older_ref is not None else None
        if older is not None and older is not widget:
            older.detach(note)

    def newest(self, agent: Any) -> Any:
        """The newest live widget recorded for ``agent``, or ``None``."""
        try:
            ref = self._newest.get(agent)
        except TypeError:
            return None
        return ref() if ref is not None else None


__all__ = ["LoopBridge", "WidgetRegistry"]
