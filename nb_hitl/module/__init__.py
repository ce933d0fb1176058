"""State modules: AgentScope's ``agentscope.module`` (nested, JSON-able object state).

Part of the foundation: imports no other nb_hitl module.
"""

from ._state_module import StateModule

__all__ = ["StateModule"]
