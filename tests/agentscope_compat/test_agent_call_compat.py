"""AgentScope calling styles: ``reply()`` without a message, ``ReActAgent.CompressionConfig``,
AgentScope-style token counters and a formatter written with only ``async format()``.

Written from AgentScope 1.0.21's documented behaviour: ``AgentBase.__call__(*args, **kwargs)``
forwards its arguments to ``reply`` as given; ``CharTokenCounter`` counts the characters of the
messages' ``str()``; any ``TokenCounterBase`` (``async count(messages, **kwargs)``) and any
``FormatterBase`` subclass that implements ``format`` serve compression.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent import AgentBase, CompressionConfig, ReActAgent
from nb_hitl.exceptions import ConfigError
from nb_hitl.formatter import FormatterBase
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.token import CharTokenCounter, TokenCounterBase


class Countdown(AgentBase):
    """An agent whose reply takes no message, as AgentScope allows."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "Counter"
        self.calls: list[tuple[Any, ...]] = []

    async def reply(self) -> Msg:
        self.calls.append(())
        await asyncio.sleep(0)
        return Msg(self.name, "3, 2, 1", "assistant")


class Keyworded(AgentBase):
    """An agent whose reply takes its own keyword arguments, and no message."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "Echo"

    async def reply(self, text: str = "", times: int = 1) -> Msg:
        return Msg(self.name, " ".join([text] * times), "assistant")


async def test_reply_without_a_message_parameter_is_called_without_one() -> None:
    agent = Countdown()
    reply = await agent()
    assert reply.get_text_content() == "3, 2, 1"
    assert agent.calls == [()]
    with pytest.raises(TypeError):
        await agent(Msg("user", "hi", "user"))  # as in AgentScope: reply() takes no message


async def test_call_forwards_keyword_arguments_as_given() -> None:
    agent = Keyworded()
    assert (await agent(text="la", times=3)).get_text_content() == "la la la"
    assert (await agent()).get_text_content() == ""


async def test_an_interrupt_still_works_without_a_message() -> None:
    started = asyncio.Event()

    class Slow(AgentBase):
        def __init__(self) -> None:
            super().__init__()
            self.name = "Slow"

        async def reply(self) -> Msg:
            started.set()
            await asyncio.sleep(30)
            return Msg(self.name, "never", "assistant")

    agent = Slow()
    task = asyncio.create_task(agent())
    await started.wait()
    assert await agent.interrupt()
    interrupted = await task
    assert interrupted.metadata["_is_interrupted"]


def test_react_agent_compression_config_is_the_same_class() -> None:
    assert ReActAgent.CompressionConfig is CompressionConfig
    config = ReActAgent.CompressionConfig(
        enable=True, agent_token_counter=CharTokenCounter(), trigger_threshold=100, keep_recent=1
    )
    assert config.agent_token_counter.counter.__class__ is CharTokenCounter


async def test_char_token_counter_counts_characters_of_str() -> None:
    counter = CharTokenCounter()
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    assert await counter.count(messages) == len(f"{messages[0]}\n{messages[1]}")
    assert await counter.count([]) == 0
    tools = [{"type": "function", "function": {"name": "f"}}]
    assert await counter.count([], tools=tools) == len(str(tools))


class WordCounter(TokenCounterBase):
    """A counter written to AgentScope's interface: one token per word."""

    async def count(self, messages: list[dict[str, Any]], **kwargs: Any) -> int:
        return sum(len(str(m.get("content", "")).split()) for m in messages)


class NameContent(FormatterBase):
    """A formatter written the AgentScope way: ``async format()`` only."""

    async def format(self, msgs: list[Msg], **kwargs: Any) -> list[dict[str, Any]]:
        return [{"role": m.role, "content": m.get_text_content() or ""} for m in msgs]


async def test_a_custom_counter_and_format_only_formatter_drive_compression() -> None:
    model = ScriptedModel(["First answer.", "Second answer."])
    agent = ReActAgent(
        "Friday",
        "Be brief.",
        model,
        formatter=NameContent(),
        compression_config=ReActAgent.CompressionConfig(
            enable=True, agent_token_counter=WordCounter(), trigger_threshold=40, keep_recent=1
        ),
    )
    await agent(Msg("user", "word " * 30, "user"))
    plan = agent.compression_plan()
    assert plan.total_tokens >= 30  # counted by WordCounter through the format-only formatter
    await agent(Msg("user", "and again " * 10, "user"))
    assert agent.memory.summary  # compressed: the counter said the prompt passed 40 words
    # the format-only formatter formats single messages too (what the counts need)
    assert NameContent().format_msg(Msg("user", "x", "user")) == [{"role": "user", "content": "x"}]


async def test_a_counter_that_waits_for_io_is_refused_clearly() -> None:
    class Remote(TokenCounterBase):
        async def count(self, messages: list[dict[str, Any]], **kwargs: Any) -> int:
            await asyncio.sleep(0.01)  # a remote counting API
            return 1

    config = CompressionConfig(agent_token_counter=Remote(), trigger_threshold=10)
    with pytest.raises(ConfigError, match="counts locally"):
        config.agent_token_counter.count_sync([{"role": "user", "content": "x"}])


def test_something_without_count_is_refused() -> None:
    with pytest.raises(ConfigError, match="agent_token_counter"):
        CompressionConfig(agent_token_counter=object(), trigger_threshold=10)
