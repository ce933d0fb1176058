"""The live agents of this process, weakly held (for the notebook extension's kernel interrupt).

``AgentBase.__init__`` registers every agent here; an agent that is no longer referenced
anywhere else disappears from the set on its own. This module imports no agent code, so the
base agent can register itself; reading the set (typed) is ``_registry.py``.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

_AGENTS: weakref.WeakSet[Any] = weakref.WeakSet()
_ORDER = itertools.count()


def register(agent: Any) -> None:
    """Track ``agent`` while it lives (called by ``AgentBase.__init__``)."""
    agent._registry_order = next(_ORDER)
    _AGENTS.add(agent)


def tracked() -> list[Any]:
    """Every agent still alive, oldest first."""
    return sorted(_AGENTS, key=lambda a: getattr(a, "_registry_order", 0))


__all__ = ["register", "tracked"]
