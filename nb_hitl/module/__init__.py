"""State modules: AgentScope's ``agentscope.module`` (nested, JSON-able object state)."""

from ._state_module import StateModule

__all__ = ["StateModule"]
