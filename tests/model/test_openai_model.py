"""OpenAIChatModel through the real openai SDK against a real local HTTP server: the happy paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from fake_openai_server import (
    Completion,
    FakeOpenAIServer,
    Scenario,
    Sse,
    text_chunks,
    tool_call_chunks,
    usage_chunk,
)

from nb_hitl.exceptions import ConfigError, ModelAuthError
from nb_hitl.formatter import DashScopeChatFormatter
from nb_hitl.message import Msg, TextBlock, ThinkingBlock, ToolUseBlock
from nb_hitl.model import ChatResponse, DashScopeChatModel, OpenAIChatModel

MakeModel = Callable[..., OpenAIChatModel]
USER = [{"role": "user", "content": "hi"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


async def collect(model: OpenAIChatModel, *args: Any, **kwargs: Any) -> list[ChatResponse]:
    return [r async for r in model(*args, **kwargs)]


async def test_text_streams_cumulatively_and_the_last_chunk_carries_usage(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario([Sse([*text_chunks(["Hel", "lo", " world"]), usage_chunk(12, 3)])])
    )
    responses = await collect(make_model(name), USER)
    texts = [r.content[0].text for r in responses if r.content]  # type: ignore[union-attr]
    assert texts == ["Hel", "Hello", "Hello world", "Hello world"]
    last = responses[-1]
    assert last.is_last and not any(r.is_last for r in responses[:-1])
    assert last.usage is not None
    assert (last.usage.input_tokens, last.usage.output_tokens) == (12, 3)
    assert last.metadata["finish_reason"] == "stop"
    body = fake_server.requests_for(name)[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == USER


async def test_missing_usage_is_fine_and_stream_usage_false_omits_the_option(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    responses = await collect(make_model(name, stream_usage=False), USER)
    assert responses[-1].usage is None
    assert responses[-1].content == [TextBlock(text="ok")]
    assert "stream_options" not in fake_server.requests_for(name)[0].body


async def test_content_sent_as_a_list_of_parts_is_joined(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    parts = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
                },
            }
        ]
    }
    name = fake_server.add(Scenario([Sse([*text_chunks(["x"], finish=None), parts])]))
    last = (await collect(make_model(name), USER))[-1]
    assert last.content == [TextBlock(text="xab")]


async def test_reasoning_content_becomes_a_thinking_block_before_the_text(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    events = text_chunks(["42"], reasoning=["Let me ", "think."])
    events.insert(2, {"choices": [{"index": 0, "delta": {"reasoning": " (ollama)"}}]})
    name = fake_server.add(Scenario([Sse(events)]))
    last = (await collect(make_model(name), USER))[-1]
    assert last.content == [
        ThinkingBlock(thinking="Let me  (ollama)think."),
        TextBlock(text="42"),
    ]


async def test_tool_call_deltas_accumulate_by_index_and_parse_once_complete(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    calls = [
        ("call_a", "get_weather", ['{"ci', 'ty": "Par', 'is"}']),
        ("call_b", "get_weather", ['{"city":', ' "Oslo"}']),
    ]
    name = fake_server.add(Scenario([Sse(tool_call_chunks(calls))]))
    responses = await collect(make_model(name), USER, tools=[WEATHER_TOOL])
    # While call_a streams, its arguments are raw (the agent would drop it on interrupt).
    first = [r for r in responses if r.content and len(r.content) == 1]
    assert first[-1].content[0].raw_input == '{"city": "Paris"}'  # type: ignore[union-attr]
    # Once call_b starts, call_a is complete and parsed; call_b is still raw.
    second = [r for r in responses if len(r.content) == 2 and not r.is_last]
    assert second[0].content[0] == ToolUseBlock(
        id="call_a", name="get_weather", input={"city": "Paris"}
    )
    assert second[0].content[1].raw_input is not None  # type: ignore[union-attr]
    last = responses[-1]
    assert last.content == [
        ToolUseBlock(id="call_a", name="get_weather", input={"city": "Paris"}),
        ToolUseBlock(id="call_b", name="get_weather", input={"city": "Oslo"}),
    ]
    assert last.metadata["finish_reason"] == "tool_calls"


async def test_invalid_tool_arguments_stay_raw_for_the_toolkit_to_report(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    events = tool_call_chunks([("call_x", "get_weather", ['{"city": ', "Paris}"])])
    name = fake_server.add(Scenario([Sse(events)]))
    last = (await collect(make_model(name), USER, tools=[WEATHER_TOOL]))[-1]
    assert last.content == [
        ToolUseBlock(id="call_x", name="get_weather", input={}, raw_input='{"city": Paris}')
    ]


async def test_llama_cpp_style_deltas_repeat_id_and_name_without_duplicating(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    def delta(arguments: str) -> dict[str, Any]:
        function = {"name": "get_weather", "arguments": arguments}
        call = {"index": 0, "id": "call__0_get_weather", "type": "function", "function": function}
        return {
            "choices": [{"index": 0, "delta": {"function_call": function, "tool_calls": [call]}}]
        }

    events: list[dict[str, Any] | str] = [delta("{"), delta('"city": "Rome"'), delta(" }")]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    name = fake_server.add(Scenario([Sse(events)]))
    last = (await collect(make_model(name), USER, tools=[WEATHER_TOOL]))[-1]
    assert last.content == [
        ToolUseBlock(id="call__0_get_weather", name="get_weather", input={"city": "Rome"})
    ]


async def test_tool_choice_is_sent_only_with_tools_and_a_name_forces_that_function(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    model = make_model(name, tool_choice="get_weather")
    await collect(model, USER, tools=[WEATHER_TOOL])
    await collect(model, USER)  # no tools: no tool_choice (OpenAI would answer HTTP 400)
    await collect(model, USER, tools=[WEATHER_TOOL], tool_choice="required")
    bodies = [r.body for r in fake_server.requests_for(name)]
    assert bodies[0]["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert bodies[0]["tools"] == [WEATHER_TOOL]
    assert "tool_choice" not in bodies[1] and "tools" not in bodies[1]
    assert bodies[2]["tool_choice"] == "required"


async def test_generate_kwargs_are_sent_and_unknown_fields_go_in_the_body(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    model = make_model(name, generate_kwargs={"temperature": 0.2, "top_k": 5})
    await collect(model, USER, max_tokens=7)
    body = fake_server.requests_for(name)[0].body
    assert (body["temperature"], body["top_k"], body["max_tokens"]) == (0.2, 5, 7)


async def test_non_streaming_mode_yields_one_final_response(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    message = {
        "role": "assistant",
        "content": "Sunny.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Nice"}'},
            }
        ],
    }
    payload = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29},
    }
    name = fake_server.add(Scenario([Completion(payload)]))
    responses = await collect(make_model(name, stream=False), USER, tools=[WEATHER_TOOL])
    assert len(responses) == 1 and responses[0].is_last
    assert responses[0].content == [
        TextBlock(text="Sunny."),
        ToolUseBlock(id="c1", name="get_weather", input={"city": "Nice"}),
    ]
    assert responses[0].usage is not None and responses[0].usage.input_tokens == 20
    assert fake_server.requests_for(name)[0].body["stream"] is False


async def test_dashscope_model_and_formatter_as_agentscope_code_uses_them(
    fake_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["你好"]))]))
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-dashscope-test-key-123456")
    monkeypatch.setenv("DASHSCOPE_BASE_URL", fake_server.base_url)
    model = DashScopeChatModel(
        model_name=name,
        api_key=os.getenv("DASHSCOPE_API_KEY"),
        stream=True,
        enable_thinking=True,
    )
    try:
        prompt = await DashScopeChatFormatter().format([Msg("User", "hi", "user")])
        last = (await collect(model, prompt))[-1]
    finally:
        await model.aclose()
    assert last.content == [TextBlock(text="你好")]
    request = fake_server.requests_for(name)[0]
    assert request.body["enable_thinking"] is True
    assert request.body["messages"] == [{"role": "user", "content": "hi"}]  # no "name"
    assert request.headers["authorization"] == "Bearer sk-dashscope-test-key-123456"
    assert model.provider == "DashScope"


def test_openai_without_a_key_names_the_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        OpenAIChatModel(model_name="gpt-4o-mini")
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    monkeypatch.delenv("DASHSCOPE_BASE_URL", raising=False)
    with pytest.raises(ModelAuthError, match="DASHSCOPE_API_KEY"):
        DashScopeChatModel(model_name="qwen-max", api_key=os.getenv("DASHSCOPE_API_KEY"))


def test_local_servers_need_no_key_and_base_url_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/")
    model = OpenAIChatModel(model_name="llama3.2")
    assert model.base_url == "http://localhost:11434/v1"
    ollama = OpenAIChatModel(model_name="llama3.2", base_url="http://127.0.0.1:8080/v1")
    assert ollama.provider == "the server at http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"model_name": ""}, "model_name"),
        ({"model_name": "m", "timeout": 0}, "timeout"),
        ({"model_name": "m", "max_retries": -1}, "max_retries"),
        ({"model_name": "m", "retry_base_delay": -1}, "retry_base_delay"),
    ],
)
def test_bad_settings_raise_config_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        OpenAIChatModel(base_url="http://127.0.0.1:9/v1", **kwargs)


async def test_bad_tool_choice_is_refused_before_any_request(make_model: MakeModel) -> None:
    model = make_model("never-called", tool_choice="")
    with pytest.raises(ConfigError, match="tool_choice"):
        await collect(model, USER, tools=[WEATHER_TOOL])


def test_missing_openai_package_gives_the_install_command() -> None:
    code = (
        "import sys; sys.modules['openai'] = None\n"
        "import nb_hitl.model\n"
        "try:\n    from nb_hitl.model import OpenAIChatModel\n"
        "except ImportError as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'pip install "nb-hitl[openai]"' in out.stdout


def test_repr_shows_no_key_and_no_url_credentials() -> None:
    model = OpenAIChatModel(
        "m", api_key="sk-very-secret-key-000111222", base_url="http://bob:pw123@host:1/v1"
    )
    text = repr(model) + str(vars(model)) + json.dumps(model.generate_kwargs)
    assert "sk-very-secret-key-000111222" not in text
    assert "pw123" not in repr(model)
    assert repr(model) == (
        "OpenAIChatModel(model_name='m', base_url='http://host:1/v1', stream=True)"
    )


async def test_tool_deltas_without_an_index_are_placed_by_id(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    def delta(call: dict[str, Any]) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}

    events: list[dict[str, Any] | str] = [
        delta({"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": '}}),
        delta({"function": {"arguments": '"Lima"}'}}),  # continues c1
        delta({"id": "c2", "function": {"name": "get_weather", "arguments": '{"city": "Kyiv"}'}}),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    name = fake_server.add(Scenario([Sse(events)]))
    last = (await collect(make_model(name), USER, tools=[WEATHER_TOOL]))[-1]
    assert last.content == [
        ToolUseBlock(id="c1", name="get_weather", input={"city": "Lima"}),
        ToolUseBlock(id="c2", name="get_weather", input={"city": "Kyiv"}),
    ]


async def test_agentscope_spellings_any_and_organization(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    model = make_model(name, organization="org-123")
    await collect(model, USER, tools=[WEATHER_TOOL], tool_choice="any")
    request = fake_server.requests_for(name)[0]
    assert request.body["tool_choice"] == "required"
    assert request.headers["openai-organization"] == "org-123"
