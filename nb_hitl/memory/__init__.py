"""Agent memory: ``MemoryBase`` (AgentScope's async interface), ``InMemoryMemory``, and the
database memories written through to a store.

``_base.py`` is the interface, ``_in_memory.py`` the list of messages with marks
(``COMPRESSED``, ``PINNED``...) and a compressed summary; ``_state.py`` reads a saved memory
(AgentScope's shape and nb_hitl's older one), all or nothing. ``_stored.py`` writes an
``InMemoryMemory`` through to a store, one transaction per change; ``_sqlalchemy.py``
(``AsyncSQLAlchemyMemory``: SQLite, PostgreSQL...) and ``_redis.py`` (``RedisMemory``) are the
stores, and import their client libraries only when first used.
May import message and the foundation (``module``'s ``StateModule``); nothing above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

from ._base import MemoryBase
from ._in_memory import COMPRESSED, PINNED, InMemoryMemory

if TYPE_CHECKING:
    from ._redis import RedisMemory
    from ._sqlalchemy import AsyncSQLAlchemyMemory
    from ._stored import StoredMemory

__all__ = [
    "COMPRESSED",
    "PINNED",
    "AsyncSQLAlchemyMemory",
    "InMemoryMemory",
    "MemoryBase",
    "RedisMemory",
    "StoredMemory",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._stored": ("StoredMemory",),
            "._sqlalchemy": ("AsyncSQLAlchemyMemory",),
            "._redis": ("RedisMemory",),
        },
    )
