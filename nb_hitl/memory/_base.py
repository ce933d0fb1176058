"""MemoryBase: AgentScope 1.x's base class of working memories.

A memory written for AgentScope subclasses it and implements the async methods below;
``InMemoryMemory`` is nb_hitl's implementation (with the sync twins the widgets and the
compression planner use). The method names, arguments and the ``_compressed_summary`` state
are AgentScope's.

Differs on purpose: a method a subclass did not implement raises ``NotImplementedError``
naming the class and the method; in AgentScope 1.0.21 the abstract methods of ``MemoryBase``
silently return ``None`` (it is not an ``ABC``), so ``await memory.size()`` gives ``None``.
"""

from __future__ import annotations

from typing import Any

from nb_hitl.message import Msg
from nb_hitl.module import StateModule


class MemoryBase(StateModule):
    """The base class of memories: AgentScope 1.x's ``agentscope.memory.MemoryBase``.

    Subclasses implement ``add``, ``delete``, ``size``, ``clear`` and ``get_memory``, and may
    implement ``delete_by_mark`` and ``update_messages_mark``. The compressed summary is kept
    in ``self._compressed_summary`` and saved in the state.
    """

    def __init__(self) -> None:
        super().__init__()
        self._compressed_summary: str = ""
        self.register_state("_compressed_summary")

    def _missing(self, method: str) -> NotImplementedError:
        return NotImplementedError(
            f"{type(self).__name__} does not implement {method}(); a MemoryBase subclass "
            f"must define `async def {method}(...)`."
        )

    async def update_compressed_summary(self, summary: str) -> None:
        """Replace the compressed summary of the memory."""
        self._compressed_summary = summary

    async def add(
        self, memories: Msg | list[Msg] | None, marks: str | list[str] | None = None, **kwargs: Any
    ) -> None:
        """Add message(s), each with the given mark(s) (a string is one mark)."""
        raise self._missing("add")

    async def delete(self, msg_ids: list[str], **kwargs: Any) -> int:
        """Remove the messages with these ids; return how many were removed."""
        raise self._missing("delete")

    async def delete_by_mark(self, mark: str | list[str], *args: Any, **kwargs: Any) -> int:
        """Remove the messages with this mark (or any of these marks); return how many."""
        raise self._missing("delete_by_mark")

    async def size(self) -> int:
        """The number of messages held."""
        raise self._missing("size")

    async def clear(self) -> None:
        """Remove every message."""
        raise self._missing("clear")

    async def get_memory(
        self,
        mark: str | None = None,
        exclude_mark: str | None = None,
        prepend_summary: bool = True,
        **kwargs: Any,
    ) -> list[Msg]:
        """The messages (with ``mark``, without ``exclude_mark``), the summary first."""
        raise self._missing("get_memory")

    async def update_messages_mark(
        self,
        new_mark: str | None,
        old_mark: str | None = None,
        msg_ids: list[str] | None = None,
    ) -> int:
        """Add, change (``old_mark`` -> ``new_mark``) or remove (``new_mark=None``) marks, on
        all messages or those in ``msg_ids``; return how many messages changed."""
        raise self._missing("update_messages_mark")


__all__ = ["MemoryBase"]
