"""The live agents of this process, for the notebook extension's kernel interrupt.

Every agent registers itself when it is made (``_live.py``, weakly held: an agent no longer
referenced anywhere else disappears on its own). Only the notebook extension reads them
(``%agents``, ``%stop`` and Kernel ▸ Interrupt), so agents never know a kernel exists.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ._base import AgentBase
from ._live import register, tracked


def live_agents() -> list[AgentBase]:
    """Every agent still alive, oldest first."""
    return tracked()


def running_agents() -> list[AgentBase]:
    """The agents whose reply task is running now."""
    return [a for a in live_agents() if a.is_replying]


def interrupt_agent(agent: AgentBase, cause: str = "interrupt") -> bool:
    """Interrupt ``agent``'s running reply gracefully, recording ``cause`` as
    ``metadata["interrupted_by"]``; ``False`` when nothing runs. Call on the agent's loop."""
    if not agent.is_replying:
        return False
    if _accepts_cause(type(agent).interrupt_nowait):
        return bool(agent.interrupt_nowait(cause=cause))
    return AgentBase.interrupt_nowait(agent, cause=cause)  # its own takes no cause


def _accepts_cause(fn: Callable[..., Any]) -> bool:
    try:
        return "cause" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


__all__ = ["interrupt_agent", "live_agents", "register", "running_agents"]
