"""AgentScope 1.x streaming-print code (``agent.set_msg_queue_enabled``, ``agent.msg_queue``,
``agentscope.pipeline.stream_printing_messages``) run after renaming the imports.

Written from AgentScope 1.0.21's documented behaviour: what an agent ``print``s also goes into
its message queue as ``(copy of msg, last, speech)``; the pipeline yields those while a
coroutine runs. Differences kept on purpose are marked ``# differs on purpose:``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent, ScriptedInput, UserAgent
from nb_hitl.events import MessageUpdated
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.pipeline import sequential_pipeline, stream_printing_messages
from nb_hitl.tool import Toolkit


def get_weather(city: str) -> str:
    """Get the weather of a city.

    Args:
        city: the city.
    """
    return f"Sunny in {city}."


def weather_agent(*turns: Any) -> ReActAgent:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel(list(turns), tokens_per_second=1e6),
        toolkit=toolkit,
    )
    agent.set_console_output_enabled(False)  # the queue is fed with the console off too
    return agent


WEATHER = (
    {"text": "Let me check.", "tool_calls": [{"name": "get_weather", "input": {"city": "Paris"}}]},
    "It is sunny in Paris today.",
)


def drain(queue: asyncio.Queue[Any]) -> list[Any]:
    items = []
    while not queue.empty():
        items.append(queue.get_nowait())
    return items


def test_set_msg_queue_enabled() -> None:
    agent = weather_agent()
    assert agent.msg_queue is None
    agent.set_msg_queue_enabled(True)
    default = agent.msg_queue
    assert isinstance(default, asyncio.Queue) and default.maxsize == 100
    agent.set_msg_queue_enabled(True)
    assert agent.msg_queue is default  # enabling again keeps the queue
    mine: asyncio.Queue[Any] = asyncio.Queue()
    agent.set_msg_queue_enabled(True, mine)
    assert agent.msg_queue is mine
    agent.set_msg_queue_enabled(False)
    assert agent.msg_queue is None


async def test_print_puts_copies_of_chunks_and_messages_into_the_queue() -> None:
    agent = weather_agent(*WEATHER)
    agent.set_msg_queue_enabled(True, asyncio.Queue())
    queue = agent.msg_queue
    assert queue is not None
    reply = await agent(Msg("user", "Weather in Paris?", "user"))
    items = drain(queue)
    assert all(len(item) == 3 and item[2] is None for item in items)  # (msg, last, speech)
    finals = [msg for msg, last, _ in items if last]
    # the model's first message, the tool result, the answer
    assert [m.get_content_blocks()[-1].type for m in finals] == ["tool_use", "tool_result", "text"]
    assert finals[-1].id == reply.id and finals[-1].get_text_content() == reply.get_text_content()
    chunks = [msg for msg, last, _ in items if not last and msg.id == reply.id]
    texts = [m.get_text_content() or "" for m in chunks]
    assert len(texts) > 1 and texts == sorted(texts, key=len)  # cumulative chunks
    assert all(reply.get_text_content().startswith(t) for t in texts)  # type: ignore[union-attr]
    assert len({id(m) for m in chunks}) == len(chunks)  # copies, not the live message


async def test_a_pre_print_hook_changes_what_is_queued() -> None:
    agent = weather_agent("hello")
    agent.set_msg_queue_enabled(True, asyncio.Queue())

    def shout(self: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs["msg"].content = (kwargs["msg"].get_text_content() or "").upper()
        return kwargs

    agent.register_instance_hook("pre_print", "shout", shout)
    await agent(Msg("user", "Hi", "user"))
    assert agent.msg_queue is not None
    last = [m for m, is_last, _ in drain(agent.msg_queue) if is_last]
    assert last[-1].get_text_content() == "HELLO"


async def test_stream_printing_messages_yields_what_the_agent_prints() -> None:
    agent = weather_agent(*WEATHER)
    seen: list[tuple[Msg, bool]] = []
    async for msg, last in stream_printing_messages(
        agents=[agent], coroutine_task=agent(Msg("user", "Weather in Paris?", "user"))
    ):
        seen.append((msg, last))
    complete = [m.get_text_content() for m, last in seen if last]
    assert complete[0] == "Let me check." and complete[-1] == "It is sunny in Paris today."
    assert any(not last for _, last in seen)
    # differs on purpose: AgentScope leaves the agent's queue on after the stream ends, so it
    # keeps filling a queue nobody reads; nb_hitl puts the previous setting back.
    assert agent.msg_queue is None


async def test_several_agents_share_one_stream_and_speech_can_be_yielded() -> None:
    alice = weather_agent("Hi, I'm Alice.")
    bob = weather_agent("Hi Alice, Bob here.")
    alice.name, bob.name = "Alice", "Bob"
    user = UserAgent(name="user", input_source=ScriptedInput(["Introduce yourselves."]))
    names = []
    async for item in stream_printing_messages(
        agents=[user, alice, bob],
        coroutine_task=sequential_pipeline([user, alice, bob]),
        yield_speech=True,
    ):
        msg, last, speech = item
        assert speech is None
        if last:
            names.append(msg.name)
    assert names == ["user", "Alice", "Bob"]


async def test_an_error_in_the_coroutine_is_raised_after_the_messages() -> None:
    agent = weather_agent("first answer")

    async def run() -> None:
        await agent(Msg("user", "Hi", "user"))
        raise RuntimeError("the workflow failed")

    got = []
    with pytest.raises(RuntimeError, match="the workflow failed"):
        async for msg, last in stream_printing_messages([agent], run()):
            if last:
                got.append(msg.get_text_content())
    assert got == ["first answer"]


async def test_an_interrupted_reply_is_streamed_too() -> None:
    agent = weather_agent("a long answer " * 50)
    agent.model.tokens_per_second = 200.0  # type: ignore[attr-defined]

    streaming = asyncio.Event()
    agent.subscribe(lambda event: streaming.set() if isinstance(event, MessageUpdated) else None)

    async def run() -> Msg:
        task = asyncio.create_task(agent(Msg("user", "Talk.", "user")))
        await streaming.wait()
        await agent.interrupt()
        return await task

    finals = [m async for m, last in stream_printing_messages([agent], run()) if last]
    assert finals[-1].metadata.get("_is_interrupted") is True


async def test_a_bounded_queue_of_ones_own_works() -> None:
    agent = weather_agent(*WEATHER)
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)
    # differs on purpose: AgentScope signals the end with put_nowait(end_signal) from a done
    # callback, which raises QueueFull when a bounded queue is full; nb_hitl watches the task.
    count = 0
    async for _msg, _last in stream_printing_messages(
        [agent], agent(Msg("user", "Weather?", "user")), queue=queue
    ):
        count += 1
        await asyncio.sleep(0)  # a slow consumer: the agent waits for room in the queue
    assert count > 3


async def test_the_end_signal_ends_the_stream_early() -> None:
    agent = weather_agent(*WEATHER)
    queue: asyncio.Queue[Any] = asyncio.Queue()
    queue.put_nowait("[STOP]")
    reply = asyncio.create_task(agent(Msg("user", "Weather?", "user")))
    items = [
        item
        async for item in stream_printing_messages([agent], reply, queue=queue, end_signal="[STOP]")
    ]
    assert items == []
    # the reply keeps running after the stream ended, as in AgentScope
    assert (await reply).get_text_content() == "It is sunny in Paris today."
