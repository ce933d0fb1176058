"""The live agents of this process, weakly held (for the notebook extension's kernel interrupt).

``AgentBase.__init__`` registers every agent here; an agent that is no longer referenced
anywhere else disappears from the registry on its own. Only the notebook extension reads it
(``%agents``, ``%stop`` and Kernel ▸ Interrupt), so agents never know a kernel exists.
"""

from __future__ import annotations

import inspect
import itertools
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._base import AgentBase

_AGENTS: weakref.WeakSet[AgentBase] = weakref.WeakSet()
_ORDER = itertools.count()


def register(agent: AgentBase) -> None:
    """Track ``agent`` while it lives (called by ``AgentBase.__init__``)."""
    agent._registry_order = next(_ORDER)
    _AGENTS.add(agent)


def live_agents() -> list[AgentBase]:
    """Every agent still alive, oldest first."""
    return sorted(_AGENTS, key=lambda a: getattr(a, "_registry_order", 0))


def running_agents() -> list[AgentBase]:
    """The agents whose reply task is running now."""
    return [a for a in live_agents() if a.is_replying]


def interrupt_agent(agent: AgentBase, cause: str = "interrupt") -> bool:
    """Interrupt ``agent``'s running reply gracefully, recording ``cause`` as
    ``metadata["interrupted_by"]``; ``False`` when nothing runs. Call on the agent's loop."""
    if not agent.is_replying:
        return False
    if _accepts_cause(type(agent).interrupt_nowait):
        return bool(agent.interrupt_nowait(cause=cause))  # type: ignore[call-arg,unused-ignore]
    return agent._interrupt_reply(agent._reply, None, cause)


def _accepts_cause(fn: object) -> bool:
    try:
        return "cause" in inspect.signature(fn).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


__all__ = ["interrupt_agent", "live_agents", "register", "running_agents"]
