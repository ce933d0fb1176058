"""The database memories as async context managers, and the ``sql`` extra's requirements."""

from __future__ import annotations

import re
from pathlib import Path

from sqlalchemy.ext.asyncio import create_async_engine

from nb_hitl.memory import AsyncSQLAlchemyMemory
from nb_hitl.message import Msg

REPO = Path(__file__).resolve().parents[2]


async def test_async_with_sqlalchemy_memory_writes_and_closes(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}")
    async with AsyncSQLAlchemyMemory(engine, session_id="s1", user_id="u1") as memory:
        await memory.add(Msg("Alice", "Generate a report about AgentScope", "user"))
        assert [m.get_text_content() for m in await memory.get_memory()] == [
            "Generate a report about AgentScope"
        ]
    assert memory._db_session is None  # the session made from the engine is closed
    async with AsyncSQLAlchemyMemory(engine, session_id="s1", user_id="u1") as again:
        assert [m.name for m in await again.get_memory()] == ["Alice"]
    await engine.dispose()


def test_sql_extra_installs_greenlet() -> None:
    # SQLAlchemy 2.1 no longer depends on greenlet, which its asyncio extension needs.
    text = (REPO / "pyproject.toml").read_text()
    for extra in ("sql", "test"):
        found = re.search(rf"^{extra} = \[(.*?)\]", text, re.MULTILINE | re.DOTALL)
        assert found is not None, extra
        names = set(re.findall(r'"([A-Za-z0-9_-]+)', found.group(1)))
        assert {"sqlalchemy", "aiosqlite", "greenlet"} <= names, extra
