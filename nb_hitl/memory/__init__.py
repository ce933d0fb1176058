"""Agent memory: ``MemoryBase`` (AgentScope's async interface) and ``InMemoryMemory``.

``_base.py`` is the interface, ``_in_memory.py`` the list of messages with marks
(``COMPRESSED``, ``PINNED``...) and a compressed summary; ``_state.py`` reads a saved memory
(AgentScope's shape and nb_hitl's older one), all or nothing.
May import message and the foundation (``module``'s ``StateModule``); nothing above.
"""

from ._base import MemoryBase
from ._in_memory import COMPRESSED, PINNED, InMemoryMemory

__all__ = ["COMPRESSED", "PINNED", "InMemoryMemory", "MemoryBase"]
