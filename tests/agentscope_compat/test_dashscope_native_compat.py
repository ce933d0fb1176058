"""``DashScopeChatModel`` on DashScope's own API (the ``dashscope`` SDK), as AgentScope 1.x code
uses it.

Two ways, as an AgentScope user's own tests would: patching the SDK's call
(``dashscope.aigc.generation.AioGeneration.call``, the target AgentScope's tests patch), and
the real SDK over real HTTP against the local fake server, which speaks DashScope's HTTP API
(``base_http_api_url``), for streaming, interrupts, retries and secrets.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from unittest.mock import AsyncMock, Mock, patch

import pytest
from fake_dashscope import native_answer, native_chunks, native_url
from fake_openai_server import Completion, FakeOpenAIServer, Scenario, Sse, Status
from pydantic import BaseModel

from nb_hitl.agent import ReActAgent
from nb_hitl.events import MessageUpdated
from nb_hitl.exceptions import ModelAuthError, ModelError
from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.message import Msg, TextBlock, ThinkingBlock, ToolUseBlock
from nb_hitl.model import ChatResponse, DashScopeChatModel
from nb_hitl.testing import wait_for_event

KEY = "sk-native-dashscope-test-key-0123456789"
USER = [{"role": "user", "content": "Hello"}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


class Person(BaseModel):
    """A person."""

    name: str
    age: int


class Message(dict):  # the SDK's messages are dicts with attribute access
    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.__dict__.update(data)


def answer(content: str = "", tool_calls: list[dict[str, Any]] | None = None) -> Mock:
    """An SDK answer as AgentScope's tests build one."""
    response = Mock()
    response.status_code = 200
    response.request_id = "req-1"
    response.output.choices = [Mock()]
    response.output.choices[0].message = Message(
        {"content": content, **({"tool_calls": tool_calls} if tool_calls else {})}
    )
    response.output.choices[0].finish_reason = "tool_calls" if tool_calls else "stop"
    response.usage.input_tokens = 11
    response.usage.output_tokens = 4
    return response


@pytest.fixture(autouse=True)
def _sdk_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DASHSCOPE_BASE_URL", raising=False)  # no OpenAI-style endpoint chosen
    monkeypatch.delenv("DASHSCOPE_API_HEADERS", raising=False)


# -- the SDK patched, as AgentScope's tests and its users' do --------------------------------------
async def test_a_call_goes_to_the_sdk_as_agentscope_sends_it() -> None:
    model = DashScopeChatModel(model_name="qwen-turbo", api_key=KEY, stream=False)
    assert model.api == "dashscope" and model.api_key == KEY
    # AgentScope's attribute, but the key stays out of vars(), the repr and the agent's state
    assert KEY not in repr(model) and KEY not in repr(vars(model))
    agent = ReActAgent("Friday", "Be brief.", model)
    assert KEY not in json.dumps(agent.state_dict(), default=str)
    with patch("dashscope.aigc.generation.AioGeneration.call") as call:
        call.return_value = answer("Hello! How can I help?")
        result = await model(USER)
    sent = call.call_args.kwargs
    assert sent["api_key"] == KEY and sent["model"] == "qwen-turbo"
    assert sent["messages"] == USER
    assert sent["stream"] is False and sent["incremental_output"] is False
    assert sent["result_format"] == "message"
    assert isinstance(result, ChatResponse)
    assert result.content == [TextBlock(type="text", text="Hello! How can I help?")]
    assert result.id == "req-1" and result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (11, 4)


async def test_tools_tool_choice_and_structured_output_as_agentscope() -> None:
    model = DashScopeChatModel("qwen-max", KEY, stream=False)
    calls = [{"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]
    with patch("dashscope.aigc.generation.AioGeneration.call") as call:
        call.return_value = answer("Checking.", calls)
        result = await model(USER, tools=[WEATHER], tool_choice="required")
        # DashScope's API has no "required": AgentScope sends "auto", and so does nb_hitl
        assert call.call_args.kwargs["tool_choice"] == "auto"
        assert call.call_args.kwargs["tools"] == [WEATHER]
        assert result.content == [
            TextBlock(type="text", text="Checking."),
            ToolUseBlock(type="tool_use", id="c1", name="get_weather", input={"city": "Oslo"}),
        ]
        await model(USER, tools=[WEATHER], tool_choice="get_weather")
        forced = {"type": "function", "function": {"name": "get_weather"}}
        assert call.call_args.kwargs["tool_choice"] == forced

        person = [{"id": "c2", "function": {"name": "generate_structured_output",
                                            "arguments": '{"name": "Ann", "age": 7}'}}]  # fmt: skip
        call.return_value = answer("", person)
        result = await model(USER, structured_model=Person)
    assert result.metadata == {"name": "Ann", "age": 7}
    (tool,) = call.call_args.kwargs["tools"]
    assert tool["function"]["name"] == "generate_structured_output"
    assert tool["function"]["description"] == (
        "Generate the required structured output with this function"
    )


async def test_vision_models_use_the_multimodal_api_and_openai_parts_become_dashscope_parts() -> (
    None
):
    model = DashScopeChatModel("qwen-vl-max", KEY, stream=False)  # "-vl": multimodal API
    image = "data:image/png;base64,iVBORw0KGgo="
    messages = await OpenAIChatFormatter().format(
        [Msg("user", [TextBlock(type="text", text="What is it?")], "user")]
    )
    messages[0]["content"].append({"type": "image_url", "image_url": {"url": image}})
    with patch("dashscope.AioMultiModalConversation.call", new_callable=AsyncMock) as call:
        call.return_value = answer("A cat.")
        result = await model(messages)
    call.assert_called_once()
    sent = call.call_args.kwargs["messages"]
    assert sent[0]["content"] == [{"text": "What is it?"}, {"image": image}]
    assert result.content == [TextBlock(type="text", text="A cat.")]


async def test_a_refusal_is_a_runtime_error_that_names_the_problem_without_the_key() -> None:
    model = DashScopeChatModel("qwen-turbo", KEY, stream=False)
    refusal = Mock(status_code=400, code="InvalidParameter", request_id="r")
    refusal.message = f"bad request from key {KEY}"
    with patch("dashscope.aigc.generation.AioGeneration.call") as call:
        call.return_value = refusal
        with pytest.raises(RuntimeError) as info:  # AgentScope raises RuntimeError too
            await model(USER)
    assert isinstance(info.value, ModelError)
    assert "HTTP 400" in str(info.value) and "sending it again would not help" in str(info.value)
    assert KEY[:8] not in str(info.value)
    assert call.call_count == 1  # a refused shape is not retried


def test_thinking_forces_streaming_and_says_so() -> None:
    with patch("nb_hitl.model._dashscope_model.logger") as logger:
        model = DashScopeChatModel("qwen-plus", KEY, stream=False, enable_thinking=True)
    assert model.stream is True and model.enable_thinking is True
    logger.info.assert_called_once()


# -- the real SDK over HTTP, against the local server ---------------------------------------------
async def test_a_stream_through_the_sdk_with_reasoning(fake_server: FakeOpenAIServer) -> None:
    name = fake_server.add(
        Scenario([Sse(native_chunks(["4", "2"], reasoning=["Let me ", "think."]))], api_key=KEY)
    )
    model = DashScopeChatModel(
        name, KEY, enable_thinking=True, base_http_api_url=native_url(fake_server)
    )
    try:
        chunks = [c async for c in await model(USER)]
    finally:
        await model.aclose()
    assert chunks[0].content == [ThinkingBlock(type="thinking", thinking="Let me ")]
    assert chunks[-1].is_last and chunks[-1].content == [
        ThinkingBlock(type="thinking", thinking="Let me think."),
        TextBlock(type="text", text="42"),
    ]
    assert chunks[-1].metadata["finish_reason"] == "stop"
    (request,) = fake_server.requests_for(name)
    assert request.path.endswith("/services/aigc/text-generation/generation")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["input"]["messages"] == USER
    assert request.body["parameters"]["incremental_output"] is True
    assert request.body["parameters"]["enable_thinking"] is True


async def test_an_interrupt_closes_the_sdk_stream(fake_server: FakeOpenAIServer) -> None:
    pieces = [f"word{i} " for i in range(40)]
    name = fake_server.add(Scenario([Sse(native_chunks(pieces), delay=0.05, ending="stall")]))
    model = DashScopeChatModel(name, KEY, base_http_api_url=native_url(fake_server))
    agent = ReActAgent("Friday", "Be brief.", model)
    try:
        reply = asyncio.ensure_future(agent(Msg("User", "Talk.", "user")))
        await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
        await agent.interrupt()
        interrupted = await reply
    finally:
        await model.aclose()
    assert interrupted.metadata.get("_is_interrupted") is True
    (request,) = fake_server.requests_for(name)
    assert await asyncio.to_thread(request.disconnected.wait, 10)
    assert request.events_sent < len(pieces)
    partial = agent.memory.messages[-2]  # what had streamed in is kept, marked partial
    assert partial.metadata.get("_partial") is True
    assert (partial.get_text_content() or "").startswith("word0")


async def test_a_rejected_key_is_redacted_in_the_error_and_in_the_sdks_log(
    fake_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    name = fake_server.add(Scenario([Sse(native_chunks(["hi"]))], api_key="sk-the-right-one-42"))
    model = DashScopeChatModel(name, KEY, base_http_api_url=native_url(fake_server))
    try:
        with pytest.raises(ModelAuthError) as info:
            await model(USER)
    finally:
        await model.aclose()
    assert "DASHSCOPE_API_KEY" in str(info.value)
    seen = [str(info.value), *(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)]
    assert any("Incorrect API key" in s for s in seen)  # the SDK logged the server's words
    assert not [s for s in seen if KEY[:8] in s]


async def test_a_rate_limit_is_retried_before_the_first_token(
    fake_server: FakeOpenAIServer,
) -> None:
    throttled = Status(429, "Requests throttled", error_code="Throttling")
    name = fake_server.add(Scenario([throttled, Completion(native_answer("ok", finish="stop"))]))
    model = DashScopeChatModel(
        name, KEY, stream=False, retry_base_delay=0.01, base_http_api_url=native_url(fake_server)
    )
    try:
        result = await model(USER)
    finally:
        await model.aclose()
    assert result.content == [TextBlock(type="text", text="ok")]
    assert len(fake_server.requests_for(name)) == 2
