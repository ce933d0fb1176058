"""Agent memory."""

from ._base import MemoryBase
from ._in_memory import COMPRESSED, PINNED, InMemoryMemory

__all__ = ["COMPRESSED", "PINNED", "InMemoryMemory", "MemoryBase"]
