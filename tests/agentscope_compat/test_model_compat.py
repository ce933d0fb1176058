"""AgentScope 1.x model code, ported by renaming the import, runs on nb_hitl's models.

Written from AgentScope's documented ``ChatModelBase`` / ``ChatResponse`` / ``OpenAIChatModel``
/ ``DashScopeChatModel`` behaviour. The OpenAI-protocol models talk to a real local HTTP server
(``tests/model/fake_openai_server.py``), never a patched client. Deliberate differences are
marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from fake_openai_server import (
    Completion,
    FakeOpenAIServer,
    Scenario,
    Sse,
    Status,
    text_chunks,
    tool_call_chunks,
    usage_chunk,
)
from pydantic import BaseModel, Field

from nb_hitl.agent import ReActAgent
from nb_hitl.events import MessageUpdated
from nb_hitl.formatter import DashScopeChatFormatter
from nb_hitl.message import (
    AudioBlock,
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)
from nb_hitl.model import (
    ChatModelBase,
    ChatResponse,
    ChatUsage,
    DashScopeChatModel,
    OpenAIChatModel,
    ScriptedModel,
)
from nb_hitl.testing import wait_for_event
from nb_hitl.tool import Toolkit, ToolResponse

KEY = "sk-compat-test-key-0123456789"
USER = [{"role": "user", "content": "hi"}]


# -- ChatModelBase subclasses written the AgentScope way ----------------------------------------
class EchoModel(ChatModelBase):
    """A custom model as AgentScope users write one: ``async def __call__``."""

    def __init__(self, stream: bool) -> None:
        super().__init__("echo-1", stream)
        self.seen: list[dict[str, Any]] = []

    async def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> ChatResponse | AsyncGenerator[ChatResponse, None]:
        self.seen.append({"messages": messages, "tools": tools, **kwargs})
        has_result = any(m.get("role") == "tool" for m in messages)
        if tools and not has_result:
            call = ToolUseBlock(type="tool_use", id="c1", name="double", input={"x": 21})
            return ChatResponse(content=[call])
        answer = "The answer is 42." if has_result else "Hello there, friend."
        if not self.stream:
            usage = ChatUsage(input_tokens=3, output_tokens=5, time=0.1)
            return ChatResponse(content=[TextBlock(type="text", text=answer)], usage=usage)

        async def chunks() -> AsyncGenerator[ChatResponse, None]:
            words = answer.split(" ")
            for i in range(1, len(words) + 1):  # cumulative, as AgentScope streams
                yield ChatResponse(content=[TextBlock(type="text", text=" ".join(words[:i]))])

        return chunks()


async def test_init_sets_model_name_and_stream() -> None:
    model = EchoModel(stream=False)
    assert (model.model_name, model.stream) == ("echo-1", False)


async def test_awaiting_a_non_streaming_custom_model_gives_its_response() -> None:
    model = EchoModel(stream=False)
    response = await model(USER)
    assert isinstance(response, ChatResponse)
    assert response.content == [TextBlock(type="text", text="Hello there, friend.")]
    assert response.usage is not None and response.usage.output_tokens == 5


async def test_awaiting_a_streaming_custom_model_gives_cumulative_chunks() -> None:
    model = EchoModel(stream=True)
    stream = await model(USER, temperature=0.5)
    texts = [chunk.content[0].text async for chunk in stream]  # type: ignore[union-attr]
    assert texts == ["Hello", "Hello there,", "Hello there, friend."]
    assert model.seen[-1]["temperature"] == 0.5


@pytest.mark.parametrize("stream", [False, True])
async def test_a_custom_model_drives_react_agent_with_tools(stream: bool) -> None:
    def double(x: int) -> ToolResponse:
        """Double a number.

        Args:
            x (`int`): The number.
        """
        return ToolResponse(content=[TextBlock(type="text", text=str(2 * x))])

    toolkit = Toolkit()
    toolkit.register_tool_function(double)
    model = EchoModel(stream=stream)
    agent = ReActAgent("Friday", "You are helpful.", model, toolkit=toolkit)
    streamed = asyncio.create_task(
        wait_for_event(agent, lambda e: isinstance(e, MessageUpdated) and e.delta == " 42.")
    )
    await asyncio.sleep(0)  # subscribed before the reply starts
    reply = await agent(Msg("user", "What is double 21?", "user"))
    assert reply.get_text_content() == "The answer is 42."
    tool_msg = next(m for m in model.seen[-1]["messages"] if m["role"] == "tool")
    assert "42" in str(tool_msg["content"])
    if stream:  # the agent turned the cumulative chunks into deltas for the widgets
        await streamed
    else:
        streamed.cancel()


async def test_chat_response_fields_as_agentscope() -> None:
    usage = ChatUsage(input_tokens=10, output_tokens=2, time=0.5)
    response = ChatResponse(content=[TextBlock(type="text", text="hi")], usage=usage)
    assert response.type == "chat" and response.id and response.created_at
    assert response["content"] == response.content and response.get("usage") is usage
    assert (usage.input_tokens, usage.output_tokens, usage.time, usage.type) == (10, 2, 0.5, "chat")
    # differs on purpose: metadata is {} rather than None (pydantic keeps it a dict)
    assert ChatResponse(content=[], metadata=None).metadata == {}


# -- ScriptedModel (nb_hitl's offline model) the AgentScope way ---------------------------------
async def test_scripted_model_awaited_both_ways() -> None:
    streaming = ScriptedModel(["one two three"], tokens_per_second=1e6)
    chunks = [c async for c in await streaming(USER)]
    assert [c.content[0].text for c in chunks][-1] == "one two three"  # type: ignore[union-attr]
    assert len(chunks) > 1

    whole = ScriptedModel(["done"], tokens_per_second=1e6)
    whole.stream = False
    response = await whole(USER)
    assert isinstance(response, ChatResponse) and response.content[0].text == "done"  # type: ignore[union-attr]


class Person(BaseModel):
    name: str = Field(description="The person's name.")
    age: int


async def test_scripted_structured_output_lands_in_metadata() -> None:
    model = ScriptedModel(
        structured_responder=lambda messages, schema: '{"name": "Ada", "age": 36}',
        tokens_per_second=1e6,
    )
    model.stream = False
    response = await model(USER, structured_model=Person)
    assert response.metadata == {"name": "Ada", "age": 36}


# -- OpenAIChatModel against a real local server ------------------------------------------------
async def test_openai_model_awaited_streaming_and_not(fake_server: FakeOpenAIServer) -> None:
    name = fake_server.add(Scenario([Sse([*text_chunks(["Hel", "lo"]), usage_chunk(7, 2)])]))
    model = OpenAIChatModel(
        name,
        api_key=KEY,
        stream=True,
        client_kwargs={"base_url": fake_server.base_url, "default_headers": {"X-Trace": "abc"}},
        generate_kwargs={"temperature": 0.25, "seed": 7},
        reasoning_effort="low",
        organization="org-123",
    )
    try:
        assert (model.model_name, model.stream) == (name, True)
        assert KEY not in repr(model) and KEY[:12] not in repr(model)
        stream = await model(USER)
        chunks = [c async for c in stream]
        assert chunks[-1].content == [TextBlock(type="text", text="Hello")]
        assert chunks[-1].usage is not None and chunks[-1].usage.input_tokens == 7
        request = fake_server.requests_for(name)[0]
        assert request.body["temperature"] == 0.25 and request.body["seed"] == 7
        assert request.body["reasoning_effort"] == "low"
        assert request.body["stream"] is True
        assert request.headers["x-trace"] == "abc"
        assert request.headers["openai-organization"] == "org-123"
    finally:
        await model.aclose()

    payload = {
        "id": "chatcmpl-2",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Whole."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5},
    }
    name = fake_server.add(Scenario([Completion(payload)]))
    model = OpenAIChatModel(
        name, api_key=KEY, stream=False, client_kwargs={"base_url": fake_server.base_url}
    )
    try:
        response = await model(USER)
        assert isinstance(response, ChatResponse)
        assert response.content == [TextBlock(type="text", text="Whole.")]
        assert response.usage is not None and response.usage.output_tokens == 1
        assert fake_server.requests_for(name)[0].body["stream"] is False
    finally:
        await model.aclose()


async def test_client_args_is_a_deprecated_alias(fake_server: FakeOpenAIServer) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    with pytest.warns(DeprecationWarning, match="client_kwargs"):
        model = OpenAIChatModel(name, api_key=KEY, client_args={"base_url": fake_server.base_url})
    try:
        assert [c async for c in await model(USER)][-1].content[0].text == "ok"  # type: ignore[union-attr]
    finally:
        await model.aclose()
    with pytest.raises(ValueError, match="client_kwargs only"):
        OpenAIChatModel(name, api_key=KEY, client_args={}, client_kwargs={})


async def test_tool_choice_by_name_and_invalid_choice(fake_server: FakeOpenAIServer) -> None:
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    }
    name = fake_server.add(
        Scenario([Sse(tool_call_chunks([("c1", "get_weather", ['{"ci', 'ty": "Nice"}'])]))])
    )
    model = OpenAIChatModel(name, api_key=KEY, client_kwargs={"base_url": fake_server.base_url})
    try:
        chunks = [c async for c in await model(USER, tools=[tool], tool_choice="get_weather")]
        (call,) = chunks[-1].content
        assert isinstance(call, ToolUseBlock) and call.input == {"city": "Nice"}
        body = fake_server.requests_for(name)[0].body
        assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
        with pytest.raises(ValueError, match="Invalid tool_choice"):
            await model(USER, tools=[tool], tool_choice="nope")
        with pytest.raises(ValueError, match="messages must be a list"):
            await model("not a list")  # type: ignore[arg-type]
    finally:
        await model.aclose()


async def test_structured_model_forces_one_tool_and_fills_metadata(
    fake_server: FakeOpenAIServer,
) -> None:
    events = tool_call_chunks(
        [("s1", "generate_structured_output", ['{"name": "Ada", ', '"age": 36}'])]
    )
    name = fake_server.add(Scenario([Sse(events)]))
    model = OpenAIChatModel(
        name, api_key=KEY, stream=True, client_kwargs={"base_url": fake_server.base_url}
    )
    try:
        chunks = [c async for c in await model(USER, structured_model=Person)]
    finally:
        await model.aclose()
    assert chunks[-1].metadata == {"name": "Ada", "age": 36}
    body = fake_server.requests_for(name)[0].body
    (tool,) = body["tools"]
    assert tool["function"]["name"] == "generate_structured_output"
    assert tool["function"]["parameters"]["required"] == ["name", "age"]
    assert "title" not in tool["function"]["parameters"]
    assert body["tool_choice"] == {
        "type": "function",
        "function": {"name": "generate_structured_output"},
    }
    # differs on purpose: AgentScope tries the response_format API first; nb_hitl always uses
    # the forced tool call, which every OpenAI-compatible server with tools understands
    assert "response_format" not in body


def test_unknown_client_type_is_refused() -> None:
    with pytest.raises(ValueError, match="base_url"):
        OpenAIChatModel("m", api_key=KEY, client_type="azure")


# -- DashScopeChatModel -------------------------------------------------------------------------
async def test_dashscope_thinking_forces_streaming(
    fake_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["42"], reasoning=["Let me ", "think."]))]))
    monkeypatch.setenv("DASHSCOPE_BASE_URL", fake_server.base_url)
    model = DashScopeChatModel(
        name,
        KEY,
        stream=False,
        enable_thinking=True,
        multimodality=False,
        generate_kwargs={"top_p": 0.5},
    )
    try:
        assert model.stream is True and model.enable_thinking is True
        assert model.multimodality is False
        assert model.generate_kwargs == {"top_p": 0.5}  # kept as passed, as AgentScope's
        assert model.api == "openai"  # DASHSCOPE_BASE_URL names an OpenAI-style endpoint
        # AgentScope's attribute, kept out of vars(), the repr and saved state
        assert model.api_key == KEY and KEY not in repr(model) and KEY not in repr(vars(model))
        chunks = [c async for c in await model(USER)]
        assert chunks[-1].content == [
            ThinkingBlock(type="thinking", thinking="Let me think."),
            TextBlock(type="text", text="42"),
        ]
        body = fake_server.requests_for(name)[0].body
        assert body["stream"] is True and body["enable_thinking"] is True and body["top_p"] == 0.5
    finally:
        await model.aclose()


async def test_dashscope_native_media_parts_reach_the_compatible_endpoint(
    fake_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["A cat."]))]))
    monkeypatch.setenv("DASHSCOPE_BASE_URL", fake_server.base_url)
    msg = Msg(
        "user",
        [
            TextBlock(type="text", text="What is this?"),
            ImageBlock(type="image", source=URLSource(type="url", url="https://x/cat.png")),
            AudioBlock(
                type="audio",
                source=Base64Source(type="base64", media_type="audio/mp3", data="QUJD"),
            ),
            VideoBlock(type="video", source=URLSource(type="url", url="https://x/cat.mp4")),
        ],
        "user",
    )
    messages = await DashScopeChatFormatter().format([Msg("system", "Be brief.", "system"), msg])
    assert messages[1]["content"][1] == {"image": "https://x/cat.png"}  # DashScope's own parts
    model = DashScopeChatModel(name, KEY, multimodality=True)
    try:
        chunks = [c async for c in await model(messages)]
        assert chunks[-1].content == [TextBlock(type="text", text="A cat.")]
    finally:
        await model.aclose()
    sent = fake_server.requests_for(name)[0].body["messages"]
    assert sent[0] == {"role": "system", "content": "Be brief."}
    # With api="openai" (DASHSCOPE_BASE_URL set) DashScope's own parts become the
    # OpenAI-compatible protocol's; api="dashscope" sends them as they are (test_dashscope_native).
    assert sent[1]["content"] == [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://x/cat.png"}},
        {
            "type": "input_audio",
            "input_audio": {"data": "data:audio/mp3;base64,QUJD", "format": "mp3"},
        },
        {"type": "video_url", "video_url": {"url": "https://x/cat.mp4"}},
    ]


# -- stream_tool_parsing, and structured output in compression ----------------------------------
WEATHER_TOOL = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
}


@pytest.mark.parametrize("parsing", [True, False])
async def test_stream_tool_parsing(fake_server: FakeOpenAIServer, parsing: bool) -> None:
    pieces = ['{"city": "Pa', 'ris", "days": 3', ', "unit": "cel', 'sius"}']
    name = fake_server.add(Scenario([Sse(tool_call_chunks([("c1", "get_weather", pieces)]))]))
    model = OpenAIChatModel(
        name,
        api_key=KEY,
        client_kwargs={"base_url": fake_server.base_url},
        stream_tool_parsing=parsing,
    )
    try:
        chunks = [c async for c in await model(USER, tools=[WEATHER_TOOL])]
    finally:
        await model.aclose()
    streaming = [c.content[0] for c in chunks[:-1] if c.content]
    assert all(isinstance(b, ToolUseBlock) and b.raw_input is not None for b in streaming)
    inputs = [b.input for b in streaming]  # type: ignore[union-attr]
    if parsing:  # the arguments so far, repaired into an object, as AgentScope's
        assert {"city": "Pa"} in inputs and {"city": "Paris", "days": 3} in inputs
        assert {"city": "Paris", "days": 3, "unit": "cel"} in inputs
    else:  # {} until the call is complete
        assert all(i == {} for i in inputs)
    assert chunks[-1].content == [
        ToolUseBlock(
            id="c1", name="get_weather", input={"city": "Paris", "days": 3, "unit": "celsius"}
        )
    ]


async def test_invalid_complete_arguments_are_not_repaired(fake_server: FakeOpenAIServer) -> None:
    events = tool_call_chunks([("c1", "get_weather", ['{"city": ', "Paris}"])])
    name = fake_server.add(Scenario([Sse(events)]))
    model = OpenAIChatModel(name, api_key=KEY, client_kwargs={"base_url": fake_server.base_url})
    try:
        chunks = [c async for c in await model(USER, tools=[WEATHER_TOOL])]
    finally:
        await model.aclose()
    # differs on purpose: AgentScope repairs the final arguments into some object and runs
    # the tool with it; nb_hitl keeps them raw, and the toolkit answers with an error result
    # the model can act on (it never runs a tool on guessed arguments).
    assert chunks[-1].content == [
        ToolUseBlock(id="c1", name="get_weather", input={}, raw_input='{"city": Paris}')
    ]


SUMMARY = (
    '{"task_overview": "remember code words", "current_state": "two noted",'
    ' "important_discoveries": "zebra0, zebra1", "next_steps": "wait",'
    ' "context_to_preserve": "zebra0 zebra1"}'
)


def _compressing_agent(model: OpenAIChatModel) -> ReActAgent:
    from nb_hitl.agent import CompressionConfig
    from nb_hitl.token import TokenCounter

    config = CompressionConfig(
        enable=True, agent_token_counter=TokenCounter(), trigger_threshold=10, keep_recent=1
    )
    agent = ReActAgent("Friday", "You're Friday.", model, compression_config=config)
    for i in range(3):
        agent.memory.add_sync(Msg("user", f"Remember: code word {i} is zebra{i}.", "user"))
        agent.memory.add_sync(Msg("Friday", f"Noted: zebra{i}.", "assistant"))
    return agent


async def test_compression_asks_an_openai_model_for_structured_output(
    fake_server: FakeOpenAIServer,
) -> None:
    events = tool_call_chunks([("s1", "generate_structured_output", [SUMMARY])])
    name = fake_server.add(Scenario([Sse(events)]))
    model = OpenAIChatModel(name, api_key=KEY, client_kwargs={"base_url": fake_server.base_url})
    assert model.supports_structured_model  # as AgentScope's compression, which always asks
    try:
        result = await _compressing_agent(model).compress_memory()
    finally:
        await model.aclose()
    assert result is not None and "remember code words" in result.summary
    body = fake_server.requests_for(name)[0].body
    assert body["tool_choice"]["function"]["name"] == "generate_structured_output"


async def test_compression_asks_again_without_tools_when_the_server_rejects_them(
    fake_server: FakeOpenAIServer,
) -> None:
    rejected = Status(400, "tools are not supported by this model", "invalid_request_error")
    name = fake_server.add(Scenario([rejected, Sse(text_chunks([SUMMARY]))]))
    model = OpenAIChatModel(name, api_key=KEY, client_kwargs={"base_url": fake_server.base_url})
    try:
        result = await _compressing_agent(model).compress_memory()
    finally:
        await model.aclose()
    assert result is not None and "remember code words" in result.summary
    first, second = fake_server.requests_for(name)
    assert "tools" in first.body and "tools" not in second.body
