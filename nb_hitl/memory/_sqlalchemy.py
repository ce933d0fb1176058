"""AsyncSQLAlchemyMemory: memory in any SQL database SQLAlchemy's asyncio support reaches.

SQLite through ``aiosqlite`` is the embedded default (``sqlite+aiosqlite:///memory.db``);
PostgreSQL works through ``asyncpg`` (``postgresql+asyncpg://user@host/db``), and so does any
other async driver. The tables are AgentScope 1.x's (``users``, ``session``, ``message`` with the
message as JSON and its position, ``message_mark``), so a database AgentScope wrote is read as
it is; the compressed summary, which AgentScope keeps only in the session state, is stored
too, in ``nb_hitl_memory_summary``. ``pip install "nb-hitl[sql]"`` installs SQLAlchemy and
aiosqlite (add ``asyncpg`` for PostgreSQL).
"""

from __future__ import annotations

import asyncio
from typing import Any

from nb_hitl.message import Msg

from ._stored import Changes, StoredMemory

__all__ = ["AsyncSQLAlchemyMemory"]

INSTALL_HINT = (
    'AsyncSQLAlchemyMemory needs SQLAlchemy and an async driver: pip install "nb-hitl[sql]" '
    "(SQLite through aiosqlite; add asyncpg for PostgreSQL)."
)

try:
    from sqlalchemy import JSON, BigInteger, Column, ForeignKey, String, Text, delete, select
    from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
    from sqlalchemy.orm import declarative_base
except ImportError:  # pragma: no cover - exercised without the sql extra
    Base: Any = None
else:
    Base = declarative_base()

    class UserTable(Base):
        """A user (AgentScope's ``users`` table)."""

        __tablename__ = "users"
        id = Column(String(255), primary_key=True)

    class SessionTable(Base):
        """A session of a user (AgentScope's ``session`` table)."""

        __tablename__ = "session"
        id = Column(String(255), primary_key=True)
        user_id = Column(String(255), ForeignKey("users.id"), nullable=False)

    class MessageTable(Base):
        """One message: ``{user}-{session}-{msg id}``, its ``to_dict()`` and its position."""

        __tablename__ = "message"
        id = Column(String(255), primary_key=True)
        msg = Column(JSON, nullable=False)
        session_id = Column(String(255), ForeignKey("session.id"), nullable=False)
        index = Column(BigInteger, nullable=False, index=True)

    class MessageMarkTable(Base):
        """One mark on one message."""

        __tablename__ = "message_mark"
        msg_id = Column(String(255), ForeignKey("message.id", ondelete="CASCADE"), primary_key=True)
        mark = Column(String(255), primary_key=True)

    class SummaryTable(Base):
        """The compressed summary of one user's session (nb_hitl's addition)."""

        __tablename__ = "nb_hitl_memory_summary"
        user_id = Column(String(255), primary_key=True)
        session_id = Column(String(255), primary_key=True)
        summary = Column(Text, nullable=False)


class AsyncSQLAlchemyMemory(StoredMemory):
    """Memory stored in a SQL database (AgentScope 1.x's class and tables).

    Args:
        engine_or_session: an ``AsyncEngine`` (``create_async_engine(url)``; a session of its
            own is made from it) or an ``AsyncSession`` of yours (then you close it).
        session_id: the conversation (default ``"default_session"``).
        user_id: the user it belongs to (default ``"default_user"``); messages are kept apart
            by user and session.

    Raises:
        ValueError: ``engine_or_session`` is neither an engine nor a session.
        ImportError: SQLAlchemy is not installed (with the install command).
    """

    if Base is not None:
        UserTable = UserTable
        SessionTable = SessionTable
        MessageTable = MessageTable
        MessageMarkTable = MessageMarkTable
        SummaryTable = SummaryTable

    def __init__(
        self,
        engine_or_session: Any,
        session_id: str | None = None,
        user_id: str | None = None,
    ) -> None:
        if Base is None:
            raise ImportError(INSTALL_HINT)
        super().__init__()
        self._db_session: Any = None
        self._factory: Any = None
        if isinstance(engine_or_session, AsyncEngine):
            self._factory = async_sessionmaker(bind=engine_or_session, expire_on_commit=False)
        elif isinstance(engine_or_session, AsyncSession):
            self._db_session = engine_or_session
        else:
            raise ValueError(
                "engine_or_session must be a sqlalchemy.ext.asyncio.AsyncEngine (e.g. "
                "create_async_engine('sqlite+aiosqlite:///memory.db')) or an AsyncSession, got "
                f"{type(engine_or_session).__name__}."
            )
        self.session_id = session_id or "default_session"
        self.user_id = user_id or "default_user"
        self._tables_ready = False
        self._index: dict[str, int] = {}

    def __repr__(self) -> str:
        return (
            f"AsyncSQLAlchemyMemory(user_id={self.user_id!r}, session_id={self.session_id!r}, "
            f"{len(self._messages)} messages)"
        )

    @property
    def session(self) -> Any:
        """The ``AsyncSession`` in use (yours, or one made from the engine)."""
        if self._factory is not None and (
            self._db_session is None or not self._db_session.is_active
        ):
            self._db_session = self._factory()
        return self._db_session

    def _row_id(self, msg_id: str) -> str:
        return f"{self.user_id}-{self.session_id}-{msg_id}"

    def _mine(self) -> Any:
        """The filter for this user's session's message rows."""
        prefix = f"{self.user_id}-{self.session_id}-"
        return (MessageTable.session_id == self.session_id) & MessageTable.id.startswith(
            prefix, autoescape=True
        )

    async def _ready(self) -> None:
        if self._tables_ready:
            return
        async with self.session.bind.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
        db = self.session
        try:
            if await db.get(UserTable, self.user_id) is None:
                db.add(UserTable(id=self.user_id))
                await db.flush()
            if await db.get(SessionTable, self.session_id) is None:
                db.add(SessionTable(id=self.session_id, user_id=self.user_id))
            await db.commit()
        except Exception:
            await db.rollback()
            raise
        self._tables_ready = True

    async def _read(self) -> tuple[list[Msg], dict[str, set[str]], str]:
        await self._ready()
        db = self.session
        rows = (
            await db.execute(
                select(MessageTable.id, MessageTable.msg, MessageTable.index)
                .filter(self._mine())
                .order_by(MessageTable.index)
            )
        ).all()
        prefix = len(f"{self.user_id}-{self.session_id}-")
        messages = [Msg.from_dict(row.msg) for row in rows]
        self._index = {row.id[prefix:]: row.index for row in rows}
        marks: dict[str, set[str]] = {}
        if rows:
            found = await db.execute(
                select(MessageMarkTable.msg_id, MessageMarkTable.mark).filter(
                    MessageMarkTable.msg_id.in_([row.id for row in rows])
                )
            )
            for row_id, mark in found.all():
                marks.setdefault(row_id[prefix:], set()).add(mark)
        summary_row = await db.get(SummaryTable, (self.user_id, self.session_id))
        await db.commit()  # end the read transaction: the next read sees other writers
        return messages, marks, summary_row.summary if summary_row is not None else ""

    async def _write(self, changes: Changes) -> None:
        await self._ready()
        db = self.session
        index = dict(self._index)
        try:
            if changes.deletes:
                gone = [self._row_id(i) for i in changes.deletes]
                await db.execute(delete(MessageMarkTable).filter(MessageMarkTable.msg_id.in_(gone)))
                await db.execute(delete(MessageTable).filter(MessageTable.id.in_(gone)))
                for i in changes.deletes:
                    index.pop(i, None)
            if changes.reorder:
                index = {m.id: n for n, m in enumerate(changes.messages)}
            upserts = changes.upserts
            if changes.reorder:  # every position is written again
                upserts = [
                    (m, changes.marks[m.id], m.id not in self._index) for m in changes.messages
                ]
            next_index = max(index.values(), default=-1) + 1
            for msg, marks, _new in upserts:
                if msg.id not in index:
                    index[msg.id] = next_index
                    next_index += 1
                row_id = self._row_id(msg.id)
                await db.merge(
                    MessageTable(
                        id=row_id,
                        msg=changes.row(msg),
                        session_id=self.session_id,
                        index=index[msg.id],
                    )
                )
                await db.flush()
                await db.execute(delete(MessageMarkTable).filter(MessageMarkTable.msg_id == row_id))
                db.add_all(MessageMarkTable(msg_id=row_id, mark=mark) for mark in sorted(marks))
            if changes.summary_changed:
                await db.merge(
                    SummaryTable(
                        user_id=self.user_id, session_id=self.session_id, summary=changes.summary
                    )
                )
            await db.commit()
        except BaseException:
            await asyncio.shield(db.rollback())
            raise
        self._index = index

    async def close(self) -> None:
        """Write what is pending, then close the session made from the engine (not yours)."""
        await self.flush()
        if self._factory is not None and self._db_session is not None:
            await self._db_session.close()
            self._db_session = None
