"""AgentScope-style code, ``formatter=OpenAIChatFormatter()`` passed explicitly, on llama.cpp.

The formatter's AgentScope output (text as ``{"type": "text"}`` parts, ``content: None`` next
to tool calls) is refused by llama.cpp's server (HTTP 500 with a validation error); the model
adapter sends it as the server takes it, so the seed's flow (ask, interrupt mid-answer, resume)
runs. A request the server still refuses for its shape is not retried, and says so.
"""

from __future__ import annotations

import asyncio

import pytest
from llama_server import LlamaServer

from nb_hitl.agent import ReActAgent
from nb_hitl.events import MessageUpdated
from nb_hitl.exceptions import ModelError
from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.message import Msg
from nb_hitl.model import OpenAIChatModel
from nb_hitl.testing import assert_history_valid, wait_for_event

pytestmark = pytest.mark.real_model


async def test_the_seed_flow_with_openai_chat_formatter_runs_on_llama_cpp(
    smol: OpenAIChatModel,
) -> None:
    formatter = OpenAIChatFormatter()
    prompt = await formatter.format([Msg("system", "You are Friday.", "system")])
    assert prompt[0]["content"] == [{"type": "text", "text": "You are Friday."}]  # AgentScope's
    agent = ReActAgent("Friday", "You are a helpful assistant named Friday.", smol,
                       formatter=formatter)  # fmt: skip
    reply = await agent(Msg("user", "Say hello in one short sentence.", "user"))
    assert reply.get_text_content()
    assert not reply.metadata.get("_is_interrupted")

    smol.generate_kwargs["max_tokens"] = 200
    task = asyncio.create_task(agent(Msg("user", "Tell me a long story about a ship.", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated) and e.tokens >= 4)
    assert await agent.interrupt()
    interrupted = await task
    assert interrupted.metadata["_is_interrupted"]
    smol.generate_kwargs["max_tokens"] = 32
    resumed = await agent(Msg("user", "Please continue where you left off.", "user"))
    assert resumed.get_text_content()
    assert_history_valid(agent.memory.messages)


async def test_a_request_refused_for_its_shape_is_not_retried(llama_server: LlamaServer) -> None:
    model = OpenAIChatModel("smollm2", base_url=llama_server.base_url, max_retries=3,
                            stream=False)  # fmt: skip
    bad = [{"role": "user", "content": [{"type": "nonsense", "x": 1}]}]
    try:
        with pytest.raises(ModelError, match="refused the request's shape") as caught:
            await model(bad)
    finally:
        await model.aclose()
    assert "try again later" not in str(caught.value)
    assert "sent once" in str(caught.value)  # not retried
