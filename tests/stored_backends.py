"""Open the database memories on each real backend, and read back what they stored."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from nb_hitl.memory import AsyncSQLAlchemyMemory, RedisMemory, StoredMemory

BACKENDS = ["sqlite", "postgres", "redis"]

Opener = Callable[..., Awaitable[StoredMemory]]


class Backend:
    """Makes memories on one backend (engines and clients are closed by ``close``)."""

    def __init__(self, kind: str, where: str) -> None:
        self.kind = kind
        self.where = where
        self._opened: list[StoredMemory] = []
        self._engines: list[Any] = []

    async def open(self, session_id: str = "s1", user_id: str = "u1") -> StoredMemory:
        """A new memory object on this backend's ``session_id`` of ``user_id``."""
        memory: StoredMemory
        if self.kind == "redis":
            memory = RedisMemory(session_id, user_id, connection_pool=self._pool())
        else:
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(self.where)
            self._engines.append(engine)
            memory = AsyncSQLAlchemyMemory(engine, session_id=session_id, user_id=user_id)
        self._opened.append(memory)
        return memory

    def _pool(self) -> Any:
        import redis.asyncio as redis

        return redis.ConnectionPool.from_url(self.where)

    async def raw_rows(self, memory: StoredMemory) -> list[str]:
        """The stored message rows, as the database holds them (JSON text)."""
        if isinstance(memory, RedisMemory):
            client = memory.get_client()
            keys = await client.keys(f"*{memory.session_id}:msg:*")
            return [str(await client.get(k)) for k in keys]
        assert isinstance(memory, AsyncSQLAlchemyMemory)
        from sqlalchemy import select

        rows = (await memory.session.execute(select(memory.MessageTable.msg))).scalars()
        out = [json.dumps(row) for row in rows]
        await memory.session.commit()
        return out

    async def wipe(self) -> None:
        """Remove everything stored (between tests sharing one server)."""
        if self.kind == "redis":
            import redis.asyncio as redis

            client = redis.Redis.from_url(self.where)
            await client.flushdb()
            await client.aclose()
        else:
            from sqlalchemy.ext.asyncio import create_async_engine

            from nb_hitl.memory._sqlalchemy import Base

            engine = create_async_engine(self.where)
            async with engine.begin() as conn:
                await conn.run_sync(Base.metadata.drop_all)
            await engine.dispose()

    async def close(self) -> None:
        """Close every memory opened here (each writes what it holds first)."""
        for memory in self._opened:
            await memory.close()
            if isinstance(memory, RedisMemory):
                await memory.get_client().connection_pool.disconnect()
        for engine in self._engines:
            await engine.dispose()
        self._opened.clear()
        self._engines.clear()


def held(memory: StoredMemory) -> tuple[list[dict[str, Any]], dict[str, frozenset[str]], str]:
    """What a memory holds, comparable across objects (the stored form of each message)."""
    from nb_hitl.memory._stored import redact_row

    messages = [redact_row(m.to_dict()) for m in memory.messages]
    marks = {m.id: memory.marks_of(m.id) for m in memory.messages}
    return messages, marks, memory.summary
