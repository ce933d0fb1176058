"""The database memories on real servers: SQLite (aiosqlite), PostgreSQL (asyncpg), Redis.

Each test runs on every backend (``stored_backend``): what one memory object writes, a new
object on the same session reads back; users and sessions stay apart; a ``ReActAgent``'s
replies, interrupts and compressions leave the store equal to what the agent holds; nothing
secret-looking reaches a stored row.
"""

from __future__ import annotations

import asyncio

import pytest
from stored_backends import Backend, held

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.memory import COMPRESSED, AsyncSQLAlchemyMemory, InMemoryMemory, RedisMemory
from nb_hitl.message import Msg, TextBlock, ToolUseBlock
from nb_hitl.model import ScriptedModel
from nb_hitl.model._scripted import ScriptedToolCall, ScriptedTurn
from nb_hitl.token import TokenCounter
from nb_hitl.tool import Toolkit


@pytest.fixture
async def backend(stored_backend: Backend):
    await stored_backend.wipe()
    yield stored_backend
    await stored_backend.close()


def msgs(*texts: str) -> list[Msg]:
    out = [Msg("user" if i % 2 == 0 else "assistant", t, "user") for i, t in enumerate(texts)]
    for i, m in enumerate(out):
        m.id = f"m{i}"
    return out


async def test_what_one_object_writes_another_reads(backend: Backend) -> None:
    first = await backend.open()
    await first.add(msgs("a", "b", "c"), marks="todo")
    await first.update_messages_mark(new_mark="done", old_mark="todo", msg_ids=["m1"])
    await first.update_compressed_summary("earlier: nothing much")
    await first.delete(["m2"])
    second = await backend.open()
    got = await second.get_memory(prepend_summary=False)
    assert [m.id for m in got] == ["m0", "m1"]
    assert [m.get_text_content() for m in got] == ["a", "b"]
    assert [m.id for m in await second.get_memory(mark="todo", prepend_summary=False)] == ["m0"]
    assert [m.id for m in await second.get_memory(mark="done", prepend_summary=False)] == ["m1"]
    assert second.summary == "earlier: nothing much"
    assert await second.size() == 2
    assert held(second) == held(first)


async def test_a_message_changed_in_place_is_written_again(backend: Backend) -> None:
    memory = await backend.open()
    (msg,) = msgs("a")
    await memory.add(msg)
    await memory.flush()
    msg.metadata["regenerates"] = "m9"  # the same object, changed after it was stored
    await memory.flush()
    fresh = await backend.open()
    await fresh.reload()
    assert fresh.messages[0].metadata == {"regenerates": "m9"}


async def test_regenerate_returns_with_its_tag_stored(backend: Backend) -> None:
    memory = await backend.open()
    agent = ReActAgent("Friday", "Be brief.", ScriptedModel(["One.", "Two."]), memory=memory)
    first = await agent(Msg("user", "Say a number.", "user"))
    again = await agent.regenerate(first.id)
    fresh = await backend.open()
    await fresh.reload()
    assert fresh.messages[-1].id == again.id
    assert fresh.messages[-1].metadata["regenerates"] == first.id
    assert held(fresh) == held(memory)


async def test_users_and_sessions_stay_apart(backend: Backend) -> None:
    mine = await backend.open("s1", "u1")
    other_session = await backend.open("s2", "u1")
    other_user = await backend.open("s1", "u2")
    await mine.add(msgs("mine"))
    await other_session.add(msgs("other session"))
    await other_user.add(msgs("other user"), marks="x")
    assert [m.get_text_content() for m in await mine.get_memory()] == ["mine"]
    assert [m.get_text_content() for m in await other_session.get_memory()] == ["other session"]
    assert [m.get_text_content() for m in await other_user.get_memory()] == ["other user"]
    await mine.clear()
    assert await other_user.size() == 1 and await other_session.size() == 1


async def test_messages_held_before_first_use_are_appended_to_the_store(backend: Backend) -> None:
    earlier = await backend.open()
    await earlier.add(msgs("stored"))
    later = await backend.open()
    later.add_sync(Msg("user", "held", "user"))  # synchronous, as the agent adds
    await later.flush()
    again = await backend.open()
    assert [m.get_text_content() for m in await again.get_memory()] == ["stored", "held"]


async def test_an_agent_on_a_stored_memory_persists_replies_and_compression(
    backend: Backend,
) -> None:
    memory = await backend.open()
    script = [f"Answer number {i}, with a few more words to count." for i in range(6)]
    agent = ReActAgent(
        "Friday",
        "Be brief.",
        ScriptedModel(script, tokens_per_second=5000),
        memory=memory,
        compression_config=CompressionConfig(
            agent_token_counter=TokenCounter(), trigger_threshold=90, keep_recent=1
        ),
    )
    for i in range(4):
        await agent(Msg("User", f"question {i} " + "detail " * 8, "user"))
    assert memory.summary  # compressed at least once
    fresh = await backend.open()
    await fresh.reload()
    assert held(fresh) == held(memory)
    assert any(COMPRESSED in fresh.marks_of(m.id) for m in fresh.messages)


async def test_an_interrupt_mid_stream_leaves_the_store_equal_to_memory(
    backend: Backend,
) -> None:
    memory = await backend.open()
    model = ScriptedModel(["word " * 400], tokens_per_second=400)
    agent = ReActAgent("Friday", "Be brief.", model, memory=memory)
    task = asyncio.create_task(agent(Msg("User", "talk", "user")))
    await asyncio.sleep(0.2)
    assert await agent.interrupt()
    interrupted = await task
    assert interrupted.metadata["_is_interrupted"]
    fresh = await backend.open()
    await fresh.reload()
    assert held(fresh) == held(memory)
    assert fresh.messages[-1].metadata.get("_is_interrupted")


async def test_an_interrupted_tool_call_is_stored_closed(backend: Backend) -> None:
    started = asyncio.Event()

    async def slow(seconds: float) -> str:
        """Wait.

        Args:
            seconds: how long.
        """
        started.set()
        await asyncio.sleep(seconds)
        return "done"

    toolkit = Toolkit()
    toolkit.register_tool_function(slow)
    call = ScriptedToolCall(name="slow", input={"seconds": 30}, id="c1")
    turn = ScriptedTurn(text="Waiting.", tool_calls=[call])
    model = ScriptedModel([turn], tokens_per_second=1e5)
    memory = await backend.open()
    agent = ReActAgent("Friday", "Be brief.", model, toolkit=toolkit, memory=memory)
    task = asyncio.create_task(agent(Msg("User", "wait", "user")))
    await started.wait()
    await agent.interrupt()
    await task
    fresh = await backend.open()
    await fresh.reload()
    assert held(fresh) == held(memory)
    results = [b for m in fresh.messages for b in m.get_content_blocks("tool_result")]
    assert [r.id for r in results] == ["c1"]  # the call has its one (interrupted) result


async def test_secrets_never_reach_a_stored_row(backend: Backend) -> None:
    memory = await backend.open()
    secret = "sk-live-0123456789abcdef"
    call = ToolUseBlock(id="t1", name="login", input={"user": "ann", "password": secret})
    await memory.add(
        [
            Msg("user", "hi", "user", metadata={"api_key": secret, "note": "kept"}),
            Msg("assistant", [TextBlock(text="logging in"), call], "assistant"),
        ]
    )
    rows = await backend.raw_rows(memory)
    assert rows and not any(secret in row for row in rows)
    assert any("kept" in row for row in rows) and any("[redacted]" in row for row in rows)
    assert memory.messages[0].metadata["api_key"] == secret  # the agent still holds its own


async def test_state_dict_holds_only_the_summary(backend: Backend) -> None:
    memory = await backend.open()
    await memory.add(msgs("a"))
    await memory.update_compressed_summary("sum")
    assert memory.state_dict() == {"_compressed_summary": "sum"}
    memory.load_state_dict({"_compressed_summary": "other"})
    await memory.flush()
    fresh = await backend.open()
    await fresh.reload()
    assert fresh.summary == "other"


async def test_redis_ttl_slides_on_every_write(redis_server: object) -> None:
    backend = Backend("redis", redis_server.url)  # type: ignore[attr-defined]
    await backend.wipe()
    memory = await backend.open()
    assert isinstance(memory, RedisMemory)
    memory.key_ttl = 60
    await memory.add(msgs("a"))
    client = memory.get_client()
    ttl = await client.ttl(memory._key(memory.SESSION_KEY))
    assert 0 < ttl <= 60
    await backend.close()


def test_a_bad_engine_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="create_async_engine"):
        AsyncSQLAlchemyMemory("sqlite:///x.db")


def test_stored_memories_are_in_memory_memories() -> None:
    # ReActAgent, its compression and the widgets take them as they take InMemoryMemory.
    assert issubclass(AsyncSQLAlchemyMemory, InMemoryMemory)
    assert issubclass(RedisMemory, InMemoryMemory)
