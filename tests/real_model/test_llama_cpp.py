"""End to end against a real model: llama.cpp serving SmolLM2-135M-Instruct, via the openai SDK.

A streamed reply, an interrupt during real generation (the server logs the disconnect and
memory stays valid), a resume, and a forced tool call through ReActAgent.
"""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest
from llama_server import LlamaServer

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated
from nb_hitl.exceptions import ModelConnectionError
from nb_hitl.message import Msg, TextBlock
from nb_hitl.model import OpenAIChatModel
from nb_hitl.testing import assert_history_valid, assert_prompt_valid, wait_for_event
from nb_hitl.tool import Toolkit, ToolResponse

pytestmark = pytest.mark.real_model

DISCONNECTED = "Disconnected from client"


def get_weather(city: str) -> ToolResponse:
    """Get the current weather of a city.

    Args:
        city: the name of the city.
    """
    return ToolResponse(content=[TextBlock(text=f"It is sunny and 21 C in {city}.")])


def several_pieces(event: Event) -> bool:
    return isinstance(event, MessageUpdated) and event.tokens >= 8


async def wait_for_log(server: LlamaServer, text: str, count: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.log_text().count(text) >= count:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_a_real_model_streams_a_reply(smol: OpenAIChatModel) -> None:
    responses = [r async for r in smol([{"role": "user", "content": "Say hello in one line."}])]
    assert len(responses) > 3  # streamed, not one block
    texts = ["".join(b.text for b in r.content if isinstance(b, TextBlock)) for r in responses]
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(texts))
    last = responses[-1]
    assert last.is_last and texts[-1].strip()
    assert last.metadata["finish_reason"] in ("stop", "length")
    assert last.usage is None  # llama-cpp-python ignores stream_options.include_usage


async def test_interrupting_real_generation_closes_the_stream_and_memory_stays_valid(
    llama_server: LlamaServer, smol: OpenAIChatModel
) -> None:
    before = llama_server.log_text().count(DISCONNECTED)
    agent = ReActAgent("Friday", "You are a storyteller.", smol)
    task = asyncio.create_task(
        agent(
            Msg("User", "Tell me a very long story about a lighthouse keeper.", "user"),
            max_tokens=400,
        )
    )
    await wait_for_event(agent, several_pieces, timeout=60)
    assert await agent.interrupt()
    result = await task
    assert result.is_interrupted
    assert await wait_for_log(llama_server, DISCONNECTED, before + 1)  # the server saw it
    messages = agent.memory.messages
    assert [m.role for m in messages] == ["user", "assistant", "assistant"]
    assert messages[1].metadata["_partial"] is True and messages[1].get_text_content()
    assert messages[2].is_interrupted
    assert_history_valid(messages)

    # Resume: the same agent answers a new message with the interrupted turn in context.
    reply = await agent(Msg("User", "Please finish the story in one sentence.", "user"))
    assert not reply.is_interrupted and reply.get_text_content()
    assert [m.role for m in agent.memory.messages] == [
        "user",
        "assistant",
        "assistant",
        "user",
        "assistant",
    ]
    assert_history_valid(agent.memory.messages)
    prompt = await agent.format_prompt()
    assert_prompt_valid(prompt)


async def test_a_forced_tool_call_runs_the_tool_and_the_model_answers_from_it(
    llama_server: LlamaServer,
) -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    # llama.cpp's chatml-function-calling calls tools only when one is forced by name.
    model = OpenAIChatModel(
        "smollm2",
        base_url=llama_server.base_url,
        tool_choice="get_weather",
        generate_kwargs={"max_tokens": 48, "temperature": 0.0, "seed": 1},
    )
    agent = ReActAgent(
        "Friday", "You answer weather questions.", model, toolkit=toolkit, max_iters=1
    )
    try:
        reply = await agent(Msg("User", "What is the weather in Paris?", "user"))
    finally:
        await model.aclose()
    calls = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert len(calls) == 1 and calls[0].name == "get_weather"
    assert calls[0].raw_input is None and isinstance(calls[0].input.get("city"), str)
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert len(results) == 1 and results[0].id == calls[0].id and not results[0].is_error
    assert "sunny" in results[0].output_text()
    assert reply.get_text_content()  # after max_iters the model answers in text
    assert_history_valid(agent.memory.messages)


async def test_a_server_that_is_gone_is_a_connection_error(llama_server: LlamaServer) -> None:
    url = llama_server.base_url.replace(str(llama_server.port), "9")  # the discard port
    model = OpenAIChatModel("smollm2", base_url=url, max_retries=0)
    try:
        with pytest.raises(ModelConnectionError, match="Is the server running"):
            async for _ in model([{"role": "user", "content": "hi"}]):
                pass
    finally:
        await model.aclose()
