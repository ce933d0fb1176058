"""RedisSession on a real redis-server: AgentScope's calling style, JSONSession's guarantees."""

from __future__ import annotations

import json

import pytest
import redis.asyncio as redis

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import SessionError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.module import StateModule
from nb_hitl.session import RedisSession, SessionNotFoundError


class Keeper(StateModule):
    def __init__(self) -> None:
        super().__init__()
        self.name = "Friday"
        self.memory = InMemoryMemory()
        self.register_state("name")


@pytest.fixture
async def session(redis_server: object):
    pool = redis.ConnectionPool.from_url(redis_server.url)  # type: ignore[attr-defined]
    store = RedisSession(connection_pool=pool, key_prefix="test:")
    await store.get_client().flushdb()
    yield store
    await store.close()
    await pool.disconnect()


async def test_save_and_load_agents_and_modules(session: RedisSession) -> None:
    agent = ReActAgent("Friday", "Be brief.", ScriptedModel(["Hello there."]))
    await agent(Msg("User", "hi", "user"))
    keeper = Keeper()
    await keeper.memory.add(Msg("Alice", "Hi!", "user"))
    await session.save_session_state("user_1", agent1=agent, agent2=keeper)
    key = "test:user_id:default_user:session:user_1:state"
    stored = json.loads(await session.get_client().get(key))
    assert set(stored) == {"agent1", "agent2"}

    restored_agent = ReActAgent("Changed", "Other.", ScriptedModel([]))
    restored_keeper = Keeper()
    restored_keeper.name = "Changed"
    await session.load_session_state("user_1", agent1=restored_agent, agent2=restored_keeper)
    assert restored_keeper.name == "Friday"
    assert restored_keeper.memory.messages == keeper.memory.messages
    assert restored_agent.memory.messages == agent.memory.messages


async def test_a_missing_session_loads_nothing_or_raises(session: RedisSession) -> None:
    keeper = Keeper()
    await session.load_session_state("never", keeper=keeper)
    with pytest.raises(SessionNotFoundError):
        await session.load_session_state("never", allow_not_exist=False, keeper=keeper)


async def test_sliding_ttl(session: RedisSession) -> None:
    session.key_ttl = 120
    await session.save_session_state("s", user_id="u", keeper=Keeper())
    key = "test:user_id:u:session:s:state"
    assert 0 < await session.get_client().ttl(key) <= 120
    await session.load_session_state("s", user_id="u", keeper=Keeper())
    assert 0 < await session.get_client().ttl(key) <= 120


async def test_no_secret_is_written(session: RedisSession) -> None:
    class Leaky(StateModule):
        def __init__(self) -> None:
            super().__init__()
            self.api_key = "sk-live-abcdef0123456789"
            self.register_state("api_key")

    with pytest.raises(SessionError, match="looks like a secret"):
        await session.save_session_state("s", leaky=Leaky())
    assert await session.get_client().keys("*") == []


async def test_loading_is_all_or_nothing(session: RedisSession) -> None:
    keeper = Keeper()
    await session.save_session_state("s", first=keeper, second=keeper)
    key = "test:user_id:default_user:session:s:state"
    state = json.loads(await session.get_client().get(key))
    state["second"] = {"name": 5, "memory": "not a memory"}
    await session.get_client().set(key, json.dumps(state))
    first, second = Keeper(), Keeper()
    first.name = second.name = "before"
    with pytest.raises(SessionError, match="Nothing was changed"):
        await session.load_session_state("s", first=first, second=second)
    assert first.name == "before" and second.name == "before"


async def test_a_corrupted_value_is_a_clear_error(session: RedisSession) -> None:
    await session.get_client().set("test:user_id:default_user:session:s:state", "{not json")
    with pytest.raises(SessionError, match="no session JSON"):
        await session.load_session_state("s", keeper=Keeper())
