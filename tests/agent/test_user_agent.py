"""UserAgent: awaits input without blocking, interruptible, in a loop with an agent."""

from __future__ import annotations

import asyncio
import threading

import pytest

from nb_hitl.agent import QueueInput, ReActAgent, ScriptedInput, UserAgent
from nb_hitl.exceptions import NbHitlError
from nb_hitl.model import ScriptedModel


async def test_queue_input_fed_from_the_loop_and_from_a_thread() -> None:
    source = QueueInput(["early"])
    person = UserAgent("Ann", source)
    assert (await person()).get_text_content() == "early"
    waiting = asyncio.create_task(person())
    await asyncio.sleep(0.01)
    assert not waiting.done()  # waits without blocking the loop
    threading.Thread(target=source.put_threadsafe, args=("from thread",)).start()
    msg = await asyncio.wait_for(waiting, 5)
    assert msg.get_text_content() == "from thread" and msg.role == "user" and msg.name == "Ann"


async def test_interrupting_a_waiting_user_agent() -> None:
    person = UserAgent("Ann", QueueInput())
    waiting = asyncio.create_task(person())
    await asyncio.sleep(0.01)
    assert await person.interrupt() is True
    msg = await waiting
    assert msg.is_interrupted and msg.role == "user"
    assert msg.metadata["interrupted_at"] == "waiting for input"


async def test_conversation_loop_user_then_agent() -> None:
    person = UserAgent("Ann", ScriptedInput(["hi", "bye"]))
    agent = ReActAgent("Friday", "s", ScriptedModel(["hello!", "goodbye!"], tokens_per_second=1e5))
    msg = None
    replies = []
    for _ in range(2):
        msg = await person(msg)
        msg = await agent(msg)
        replies.append(msg.get_text_content())
    assert replies == ["hello!", "goodbye!"]
    with pytest.raises(NbHitlError, match="no input left"):
        await person(msg)
