"""LoopBridge: run widget callbacks on the kernel's main event loop, from any thread.

JupyterLab 4.4+ may deliver comm messages (button clicks, slider moves) on a subshell thread.
``task.cancel()`` or ``queue.put_nowait()`` called there does not wake the main loop, so every
callback goes through ``LoopBridge.call``, which runs it at once on the loop's own thread and
hops with ``loop.call_soon_threadsafe`` from any other thread. Background coroutines started
with ``spawn`` are held by a strong reference and their exceptions are always retrieved.

Callbacks also run *as the main shell*: ipykernel 7.4 sends the front end's next message on a
comm to the subshell named in the parent header of that comm's last publish. A click handled
for a button on subshell S (JupyterLab's ``perComm`` gives every comm a subshell of its own)
used to leave S in the parent of everything its callback drew, so the new widgets (the chat's
*Undo clear*) and the re-enabled ones (the inspector's *Undo*) had their clicks sent to S's
thread. With a few hundred comms the kernel's ZMQ context is full (libzmq's 1,023 sockets;
each subshell takes 4), and a subshell thread that never published cannot open the socket it
needs to answer: the click was dropped without a word. The work runs on the main loop, so what
it publishes says so, and the clicks that follow come to the main shell.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
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


def _main_shell_context() -> contextvars.Context | None:
    """A copy of this context whose kernel parent names no subshell, or None if it names none.

    Tasks started in it (``spawn``) inherit it, so a reply started by a click publishes as the
    main shell too. Outside a kernel, or on ipykernel 6 (no subshells), nothing changes.
    """
    kernel_module = sys.modules.get("ipykernel.kernelbase")
    if kernel_module is None or not kernel_module.Kernel.initialized():
        return None
    kernel = kernel_module.Kernel.instance()
    try:
        parent = kernel.get_parent("shell")
    except Exception:  # an older or unusual kernel: leave its parent alone
        return None
    header = parent.get("header") if isinstance(parent, dict) else None
    if not isinstance(header, dict) or header.get("subshell_id") is None:
        return None
    ident = getattr(kernel, "_parent_ident", {}).get("shell", b"")
    main_parent = {**parent, "header": {**header, "subshell_id": None}}
    context = contextvars.copy_context()
    context.run(kernel.set_parent, ident, main_parent, "shell")
    return context


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
        context = _main_shell_context()
        try:
            if context is None:
                fn(*args)
            else:
                context.run(fn, *args)
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
