"""Kernel ▸ Interrupt while no cell runs: interrupt every running agent reply, gracefully.

How ipykernel (6.29+ and 7.x) treats SIGINT: ``IPKernelApp`` ignores it at start-up
(``SIG_IGN``); around each shell request ``Kernel.pre_handler_hook`` installs
``default_int_handler`` and remembers the handler it replaced in ``kernel.saved_sigint_handler``,
and ``post_handler_hook`` puts that one back. So the handler in place *between* requests is
whatever ``saved_sigint_handler`` holds when a request ends. ``KernelInterrupt`` stores its own
handler there (so it survives every later cell) and wraps ``post_handler_hook`` to put it back
should anything reset the idle handler to ``SIG_IGN`` or ``default_int_handler``. While a cell
runs, the kernel's own handlers apply (an awaiting cell is cancelled, and an agent call it awaits
ends gracefully with ``interrupted_by == "cancelled"``). Subshells run without signals.

The handler itself does no work inside the signal: it hops onto the kernel's event loop with
``call_soon_threadsafe`` (which also wakes a sleeping loop) and interrupts there.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from nb_hitl.agent import live_agents

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

KERNEL_CAUSE = "kernel"
"""``metadata["interrupted_by"]`` of replies stopped by Kernel ▸ Interrupt."""


def interrupt_on_its_loop(agent: AgentBase, cause: str) -> bool:
    """Interrupt ``agent``'s running reply gracefully; ``False`` when nothing runs.

    An agent replying on another loop (another thread) is interrupted on that loop,
    thread-safely (and counted as interrupted: the hop cannot report back).
    """
    future = agent.interrupt_threadsafe(cause=cause)  # on the agent's own loop: done at once
    return future.result() if future.done() else True


def interrupt_running(cause: str = KERNEL_CAUSE) -> list[str]:
    """Interrupt every running agent reply gracefully; returns the agents' names.

    Call on the kernel's event loop (see ``interrupt_on_its_loop`` for agents on other loops).
    """
    running = [agent for agent in live_agents() if agent.is_replying]
    return [agent.name for agent in running if interrupt_on_its_loop(agent, cause)]


def _idle_handler_reset(handler: Any) -> bool:
    return handler in (signal.SIG_IGN, signal.SIG_DFL, None, signal.default_int_handler)


class KernelInterrupt:
    """The idle-time SIGINT handler of one kernel; ``install()`` / ``uninstall()``.

    Args:
        kernel: the ipykernel ``Kernel`` (``get_ipython().kernel``).
        loop: the kernel's event loop.
        on_interrupt: called on the loop after each interrupt with the interrupted names.
    """

    def __init__(
        self,
        kernel: Any,
        loop: asyncio.AbstractEventLoop,
        on_interrupt: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.kernel = kernel
        self.loop = loop
        self.on_interrupt = on_interrupt
        self.installed = False
        self.interrupts = 0
        """How many idle-time interrupts arrived (tests and ``%agents`` read it)."""
        self._idle_before: Any = signal.SIG_IGN
        self._post_hook_before: Any = None
        self._had_post_attr = False

    def install(self) -> None:
        """Make SIGINT between requests interrupt the running agents."""
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError(
                "%load_ext nb_hitl must run on the kernel's main thread: run it in an ordinary "
                "cell, not on a subshell."
            )
        kernel = self.kernel
        self._idle_before = getattr(kernel, "saved_sigint_handler", signal.SIG_IGN)
        kernel.saved_sigint_handler = self.handle
        self._had_post_attr = "post_handler_hook" in vars(kernel)
        self._post_hook_before = vars(kernel).get("post_handler_hook")
        original = kernel.post_handler_hook

        def post_handler_hook(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            self._keep_installed()
            return result

        kernel.post_handler_hook = post_handler_hook
        self.installed = True

    def uninstall(self) -> None:
        """Put back the kernel's own idle handler and ``post_handler_hook``."""
        if not self.installed:
            return
        self.installed = False
        kernel = self.kernel
        if self._had_post_attr:
            kernel.post_handler_hook = self._post_hook_before
        else:
            vars(kernel).pop("post_handler_hook", None)
        if getattr(kernel, "saved_sigint_handler", None) == self.handle:
            kernel.saved_sigint_handler = self._idle_before
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) == self.handle
        ):
            signal.signal(signal.SIGINT, self._idle_before)

    def _keep_installed(self) -> None:
        # Runs right after the kernel restored its idle handler; only on the main thread
        # (on a subshell the kernel's own hook already failed and raised).
        if not self.installed or threading.current_thread() is not threading.main_thread():
            return
        current = signal.getsignal(signal.SIGINT)
        if current != self.handle and _idle_handler_reset(current):
            self.kernel.saved_sigint_handler = self.handle
            signal.signal(signal.SIGINT, self.handle)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The SIGINT handler: schedule the interrupt on the loop, do nothing else here."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self._interrupt)

    def _interrupt(self) -> None:
        self.interrupts += 1
        names = interrupt_running(KERNEL_CAUSE)
        if self.on_interrupt is not None:
            self.on_interrupt(names)


__all__ = ["KERNEL_CAUSE", "KernelInterrupt", "interrupt_on_its_loop", "interrupt_running"]
