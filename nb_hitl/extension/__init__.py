"""The notebook extension: ``%load_ext nb_hitl``.

What loading changes, all undone by ``%unload_ext nb_hitl``:

- **Kernel ▸ Interrupt** (■, ``I,I``) while no cell runs interrupts every running agent reply
  in this kernel, gracefully (``metadata["interrupted_by"] == "kernel"``; the panels show it).
  While a cell runs, the kernel's usual interrupt applies to that cell.
- **Magics**: ``%%ask AGENT`` sends the cell's text to AGENT as a background reply,
  ``%stop [AGENT]`` interrupts one or all running replies, ``%agents`` lists the agents.
- **``asyncio.run(main())`` in a cell** runs on the kernel's loop instead of failing (only
  when called from a cell's own code; see ``nb_hitl.extension._nested``). Such a cell blocks
  until ``main()`` ends; Kernel ▸ Interrupt then interrupts the running agent replies.

May import widgets, agent and everything below them (the kernel-interrupt part needs only
agent); only the package root imports it (``%load_ext nb_hitl``).
"""

from __future__ import annotations

import asyncio
import warnings
from dataclasses import dataclass
from typing import Any

from ._interrupt import KERNEL_CAUSE, KernelInterrupt, interrupt_running
from ._magics import AgentMagics
from ._nested import NestedRun


@dataclass
class _Loaded:
    shell: Any
    interrupt: KernelInterrupt | None
    nested: NestedRun


_LOADED: dict[int, _Loaded] = {}


def _kernel_loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return asyncio.get_event_loop_policy().get_event_loop()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext nb_hitl``: kernel interrupt, magics and the ``asyncio.run`` shim."""
    if id(ipython) in _LOADED:
        return
    loop = _kernel_loop()
    kernel = getattr(ipython, "kernel", None)
    interrupt = None
    if kernel is not None and hasattr(kernel, "post_handler_hook"):  # ipykernel, not a terminal
        interrupt = KernelInterrupt(kernel, loop)
        interrupt.install()
    nested = NestedRun(loop)
    nested.install()
    ipython.events.register("pre_run_cell", nested.pre_run_cell)
    ipython.events.register("post_run_cell", nested.post_run_cell)
    ipython.register_magics(AgentMagics)
    _LOADED[id(ipython)] = _Loaded(ipython, interrupt, nested)
    # The %load_ext cell itself is running: let the shim see it as a cell.
    nested.pre_run_cell()


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext nb_hitl``: put back everything ``%load_ext`` changed."""
    loaded = _LOADED.pop(id(ipython), None)
    if loaded is None:
        return
    if loaded.interrupt is not None:
        loaded.interrupt.uninstall()
    loaded.nested.uninstall()
    for event, fn in (
        ("pre_run_cell", loaded.nested.pre_run_cell),
        ("post_run_cell", loaded.nested.post_run_cell),
    ):
        try:
            ipython.events.unregister(event, fn)
        except ValueError:
            pass
    magics = ipython.magics_manager.magics
    for kind, names in (("line", ("stop", "agents")), ("cell", ("ask",))):
        for name in names:
            fn = magics[kind].get(name)
            if getattr(fn, "__self__", None).__class__ is AgentMagics:
                del magics[kind][name]


def is_loaded(ipython: Any) -> bool:
    """True while ``%load_ext nb_hitl`` is in effect for this shell."""
    return id(ipython) in _LOADED


__all__ = [
    "KERNEL_CAUSE",
    "AgentMagics",
    "interrupt_running",
    "is_loaded",
    "load_ipython_extension",
    "unload_ipython_extension",
]
