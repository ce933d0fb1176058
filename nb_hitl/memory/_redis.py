"""RedisMemory: memory in Redis (``redis.asyncio``), in AgentScope 1.x's key layout.

Keys (each after ``key_prefix``): ``user_id:{u}:session:{s}:messages`` lists the message ids
in order, ``...:msg:{id}`` holds each message's ``to_dict()`` as JSON, ``...:mark:{mark}`` lists
the ids carrying a mark and ``...:marks_index`` is the set of marks in use, as AgentScope
writes them, so its data is read as it is; ``...:summary`` (nb_hitl's addition) holds the
compressed summary. Every write is one ``MULTI``/``EXEC`` transaction. With ``key_ttl`` every
key of the session expires that many seconds after its last read or write (a sliding TTL).
``pip install "nb-hitl[redis]"`` installs the client.
"""

from __future__ import annotations

import json
from typing import Any

from nb_hitl.message import Msg

from ._stored import Changes, StoredMemory

__all__ = ["RedisMemory"]

INSTALL_HINT = 'RedisMemory needs the redis client: pip install "nb-hitl[redis]".'


def text(value: Any) -> str:
    """A Redis reply as text (clients made with ``decode_responses=False`` give bytes)."""
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else str(value)


class RedisMemory(StoredMemory):
    """Memory stored in Redis (AgentScope 1.x's class, arguments and keys).

    Args:
        session_id: the conversation (default ``"default_session"``).
        user_id: the user it belongs to (default ``"default_user"``).
        host, port, db, password: where the server is, when no ``connection_pool`` is given.
        connection_pool: a ``redis.asyncio.ConnectionPool`` to use instead.
        key_prefix: put before every key (``"prod:"``...), to keep applications apart.
        key_ttl: seconds until the session's keys expire unless read or written again
            (``None``: never).
        **kwargs: more ``redis.asyncio.Redis`` arguments.

    Raises:
        ImportError: the redis client is not installed (with the install command).
    """

    SESSION_KEY = "user_id:{user_id}:session:{session_id}:messages"
    MESSAGE_KEY = "user_id:{user_id}:session:{session_id}:msg:{msg_id}"
    MARK_KEY = "user_id:{user_id}:session:{session_id}:mark:{mark}"
    MARKS_INDEX_KEY = "user_id:{user_id}:session:{session_id}:marks_index"
    SUMMARY_KEY = "user_id:{user_id}:session:{session_id}:summary"

    def __init__(
        self,
        session_id: str = "default_session",
        user_id: str = "default_user",
        host: str = "localhost",
        port: int = 6379,
        db: int = 0,
        password: str | None = None,
        connection_pool: Any = None,
        key_prefix: str = "",
        key_ttl: int | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            import redis.asyncio as redis
        except ImportError as exc:  # pragma: no cover - exercised without the redis extra
            raise ImportError(INSTALL_HINT) from exc
        super().__init__()
        self.session_id = session_id
        self.user_id = user_id
        self.key_prefix = key_prefix or ""
        self.key_ttl = key_ttl
        self._client = redis.Redis(
            host=host,
            port=port,
            db=db,
            password=password,
            connection_pool=connection_pool,
            decode_responses=True,
            **kwargs,
        )

    def __repr__(self) -> str:
        return (
            f"RedisMemory(user_id={self.user_id!r}, session_id={self.session_id!r}, "
            f"{len(self._messages)} messages)"
        )

    def get_client(self) -> Any:
        """The ``redis.asyncio.Redis`` client."""
        return self._client

    def _key(self, template: str, **more: str) -> str:
        fields = {"user_id": self.user_id, "session_id": self.session_id, **more}
        return self.key_prefix + template.format(**fields)

    async def _marks_in_use(self) -> list[str]:
        return sorted(text(m) for m in await self._client.smembers(self._key(self.MARKS_INDEX_KEY)))

    def _all_keys(self, ids: list[str], marks: list[str]) -> list[str]:
        keys = [self._key(self.SESSION_KEY), self._key(self.MARKS_INDEX_KEY)]
        keys.append(self._key(self.SUMMARY_KEY))
        keys += [self._key(self.MESSAGE_KEY, msg_id=i) for i in ids]
        keys += [self._key(self.MARK_KEY, mark=m) for m in marks]
        return keys

    async def _read(self) -> tuple[list[Msg], dict[str, set[str]], str]:
        ids = [text(i) for i in await self._client.lrange(self._key(self.SESSION_KEY), 0, -1)]
        rows = (
            await self._client.mget([self._key(self.MESSAGE_KEY, msg_id=i) for i in ids])
            if ids
            else []
        )
        messages = [Msg.from_dict(json.loads(text(row))) for row in rows if row is not None]
        held = {m.id for m in messages}
        marks: dict[str, set[str]] = {}
        in_use = await self._marks_in_use()
        for mark in in_use:
            for i in await self._client.lrange(self._key(self.MARK_KEY, mark=mark), 0, -1):
                if text(i) in held:
                    marks.setdefault(text(i), set()).add(mark)
        summary = await self._client.get(self._key(self.SUMMARY_KEY))
        if self.key_ttl is not None:  # a read refreshes the sliding TTL
            async with self._client.pipeline(transaction=True) as pipe:
                for key in self._all_keys(ids, in_use):
                    pipe.expire(key, self.key_ttl)
                await pipe.execute()
        return messages, marks, text(summary) if summary is not None else ""

    async def _write(self, changes: Changes) -> None:
        in_use = set(await self._marks_in_use())
        wanted = {mark for marks in changes.marks.values() for mark in marks}
        session_key = self._key(self.SESSION_KEY)
        async with self._client.pipeline(transaction=True) as pipe:
            for msg_id in changes.deletes:
                pipe.lrem(session_key, 0, msg_id)
                pipe.delete(self._key(self.MESSAGE_KEY, msg_id=msg_id))
                for mark in in_use:
                    pipe.lrem(self._key(self.MARK_KEY, mark=mark), 0, msg_id)
            if changes.reorder:
                pipe.delete(session_key)
                ids = [m.id for m in changes.messages]
                if ids:
                    pipe.rpush(session_key, *ids)
            for msg, marks, new in changes.upserts:
                if new and not changes.reorder:
                    pipe.lrem(session_key, 0, msg.id)  # idempotent: a retried write adds it once
                    pipe.rpush(session_key, msg.id)
                pipe.set(self._key(self.MESSAGE_KEY, msg_id=msg.id), json.dumps(changes.row(msg)))
                for mark in in_use | wanted:
                    mark_key = self._key(self.MARK_KEY, mark=mark)
                    pipe.lrem(mark_key, 0, msg.id)
                    if mark in marks:
                        pipe.rpush(mark_key, msg.id)
            for mark in wanted - in_use:
                pipe.sadd(self._key(self.MARKS_INDEX_KEY), mark)
            if changes.summary_changed:
                pipe.set(self._key(self.SUMMARY_KEY), changes.summary)
            if self.key_ttl is not None:
                ids = [m.id for m in changes.messages]
                for key in self._all_keys(ids, sorted(in_use | wanted)):
                    pipe.expire(key, self.key_ttl)
            await pipe.execute()

    async def close(self) -> None:
        """Write what is pending, then close the client."""
        try:
            await self.flush()
        finally:
            await self._client.aclose()
