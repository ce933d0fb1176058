"""Cancellations that code inside a reply makes for itself are not user interrupts."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from typing import Any

import anyio
import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.message import TextBlock
from nb_hitl.model import ChatModelBase, ChatResponse, ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, user_msg, wait_for_event
from nb_hitl.tool import Toolkit


class TimeoutUsingModel(ChatModelBase):
    """A model whose transport times out once inside a cancel scope (as httpx does)."""

    model_name = "scoped"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(
        self, messages: list[dict[str, Any]], tools: Any = None, tool_choice: Any = None, **kw: Any
    ) -> AsyncGenerator[ChatResponse, None]:
        return self._gen()

    async def _gen(self) -> AsyncGenerator[ChatResponse, None]:
        if self.kind == "anyio":
            with anyio.move_on_after(0.01):
                await anyio.sleep(1)
        else:
            try:
                async with asyncio.timeout(0.01):  # type: ignore[attr-defined,unused-ignore]
                    await asyncio.sleep(1)
            except TimeoutError:
                pass
        yield ChatResponse(content=[TextBlock(text="hello")], is_last=True)


@pytest.mark.parametrize("kind", ["anyio", "asyncio"])
async def test_timeouts_inside_the_reply_are_not_interrupts(kind: str) -> None:
    if kind == "asyncio" and sys.version_info < (3, 11):
        pytest.skip("asyncio.timeout needs Python 3.11")
    agent = ReActAgent("Friday", "", TimeoutUsingModel(kind))
    reply = await agent(user_msg("go"))
    assert reply.get_text_content() == "hello"
    assert not reply.is_interrupted


async def test_a_tool_that_swallows_the_cancellation_is_still_interrupted() -> None:
    started = asyncio.Event()

    async def stubborn() -> str:
        """Ignores cancellation once."""
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "swallowed"
        return "done"

    toolkit = Toolkit()
    toolkit.register_tool_function(stubborn)
    model = ScriptedModel(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("stubborn", {})]), "never reached"],
        tokens_per_second=1e5,
    )
    agent = ReActAgent("Friday", "", model, toolkit=toolkit)
    task = asyncio.create_task(agent(user_msg("go")))
    await asyncio.wait_for(started.wait(), 10)
    await agent.interrupt()
    result = await task
    assert result.is_interrupted
    assert len(model.calls) == 1  # the model was not called again after the interrupt
    assert_history_valid(agent.memory.messages)


async def test_wait_for_event_helper_times_out_cleanly() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel([]))
    with pytest.raises(TimeoutError):
        await wait_for_event(agent, lambda e: True, timeout=0.01)


class CancelToErrorModel(ChatModelBase):
    """A transport that reports its cancellation as its own error (as some HTTP clients do)."""

    model_name = "converts"

    def __init__(self) -> None:
        self.streaming = asyncio.Event()

    def __call__(
        self, messages: list[dict[str, Any]], tools: Any = None, tool_choice: Any = None, **kw: Any
    ) -> AsyncGenerator[ChatResponse, None]:
        return self._gen()

    async def _gen(self) -> AsyncGenerator[ChatResponse, None]:
        yield ChatResponse(content=[TextBlock(text="partial")])
        self.streaming.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise ConnectionError("stream closed") from None
        yield ChatResponse(content=[TextBlock(text="partial and more")], is_last=True)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is 3.11+")
async def test_a_cancel_turned_into_an_error_inside_the_reply_still_ends_it_interrupted() -> None:
    model = CancelToErrorModel()
    agent = ReActAgent("Friday", "", model)
    task = asyncio.create_task(agent(user_msg("go")))
    await asyncio.wait_for(model.streaming.wait(), 10)
    agent._reply_task.cancel()  # type: ignore[union-attr]
    result = await task  # not an error: the cancel was the cause
    assert result.is_interrupted and result.metadata["interrupted_by"] == "cancelled"
    assert_history_valid(agent.memory.messages)
