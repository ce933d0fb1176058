"""``asyncio.run(main())`` in a cell, on the kernel's running loop (a narrowly scoped shim).

A notebook cell already runs inside the kernel's event loop, so ``asyncio.run()`` and
``loop.run_until_complete()`` fail there ("cannot be called from a running event loop"). After
``%load_ext nb_hitl`` they work *when called from a cell's own code*: the coroutine runs to the
end on the kernel's loop, re-entered with ``nest_asyncio2`` for just that call. Nothing else
changes: the patch lives on a throw-away subclass of the loop's class that the loop wears only
while the call runs, ``asyncio.Task`` stays the C task, other threads and their loops are not
touched, and a call from anywhere else (a background task, another thread, no running loop)
behaves exactly as without the extension. ``%unload_ext nb_hitl`` removes the shim.

**Such a cell blocks**, as a script would: clicks on widgets do not land until it ends. Background
tasks (agent replies started earlier) keep running meanwhile. Kernel ▸ Interrupt during the call
interrupts the running agent replies gracefully (``interrupted_by == "kernel"``) and the script
goes on with their interrupted messages; an interrupt while no reply runs cancels the script's
coroutine and the cell ends with ``KeyboardInterrupt``. Unlike a real ``asyncio.run``, tasks the
script started and left running are not cancelled at the end: they live on the kernel's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

from ._interrupt import KERNEL_CAUSE, interrupt_running

T = TypeVar("T")


@contextlib.contextmanager
def _reentrant(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Let ``loop`` be re-entered for the duration: it wears a nest_asyncio2-patched subclass."""
    if hasattr(loop, "_nest_patched"):  # already patched process-wide (e.g. ipykernel's Tk loop)
        yield
        return
    import nest_asyncio2

    original = type(loop)
    nested = type(original.__name__, (original,), {"__module__": original.__module__})
    loop.__class__ = nested
    try:
        nest_asyncio2._patch_loop(loop)  # patches ``nested`` only (it patches type(loop))
        yield
    finally:
        loop.__class__ = original


class NestedRun:
    """The shim: ``install()`` replaces ``asyncio.run`` and the kernel loop's
    ``run_until_complete``; ``uninstall()`` puts them back.

    Args:
        loop: the kernel's event loop.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.installed = False
        self._cell_task: asyncio.Task[Any] | None = None
        self._in_cell = False
        self._original_run: Callable[..., Any] = asyncio.run
        self._depth = 0

    # -- cell tracking (IPython events) -------------------------------------------------------
    def pre_run_cell(self, *_args: Any) -> None:
        """IPython ``pre_run_cell``: remember the task that runs the cell's code."""
        self._in_cell = True
        try:
            self._cell_task = asyncio.current_task()
        except RuntimeError:
            self._cell_task = None

    def post_run_cell(self, *_args: Any) -> None:
        """IPython ``post_run_cell``: the cell's code is done."""
        self._in_cell = False
        self._cell_task = None

    def from_cell(self) -> bool:
        """True when the caller is a cell's own code on the kernel's running loop."""
        if not self._in_cell or threading.current_thread() is not threading.main_thread():
            return False
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return False
        if running is not self.loop:
            return False
        return asyncio.current_task() is self._cell_task

    # -- install --------------------------------------------------------------------------------
    def install(self) -> None:
        """Replace ``asyncio.run`` and ``loop.run_until_complete`` (this loop only)."""
        self._original_run = asyncio.run
        asyncio.run = self._make_run(self._original_run)
        self.loop.run_until_complete = self._run_until_complete  # type: ignore[method-assign,assignment]
        self.installed = True

    def uninstall(self) -> None:
        """Put ``asyncio.run`` and ``run_until_complete`` back."""
        if not self.installed:
            return
        self.installed = False
        if getattr(asyncio.run, "__nb_hitl_shim__", False):
            asyncio.run = self._original_run
        vars(self.loop).pop("run_until_complete", None)

    def _make_run(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def run(main: Coroutine[Any, Any, T], *args: Any, **kwargs: Any) -> T:
            if args or kwargs.get("loop_factory") is not None or not self.from_cell():
                return original(main, *args, **kwargs)
            if not asyncio.iscoroutine(main):
                raise ValueError(f"a coroutine was expected, got {main!r}")
            return self.run_nested(main)

        run.__nb_hitl_shim__ = True  # type: ignore[attr-defined]
        return run

    def _run_until_complete(self, future: Awaitable[T]) -> T:
        loop = self.loop
        if (loop.is_running() and self.from_cell()) or self._depth:
            return self.run_nested(future)
        return type(loop).run_until_complete(loop, future)

    # -- running --------------------------------------------------------------------------------
    def run_nested(self, main: Awaitable[T]) -> T:
        """Run ``main`` to the end on the kernel's loop, re-entering it; blocks the caller."""
        loop = self.loop
        task = asyncio.ensure_future(main, loop=loop)
        cancelled_by_interrupt = False

        def on_interrupt() -> None:
            nonlocal cancelled_by_interrupt
            if not interrupt_running(KERNEL_CAUSE) and not task.done():
                cancelled_by_interrupt = True
                task.cancel()

        def handler(_signum: int, _frame: Any) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(on_interrupt)

        previous = signal.signal(signal.SIGINT, handler)
        self._depth += 1
        try:
            with _reentrant(loop):
                run_until_complete = type(loop).run_until_complete
                try:
                    return run_until_complete(loop, task)
                except asyncio.CancelledError:
                    if cancelled_by_interrupt:
                        raise KeyboardInterrupt from None
                    raise
                finally:
                    if not task.done():
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            run_until_complete(loop, task)
        finally:
            self._depth -= 1
            signal.signal(signal.SIGINT, previous)


__all__ = ["NestedRun"]
