"""ReActAgent on OpenAIChatModel: interrupting a real HTTP stream, errors in memory, usage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fake_openai_server import (
    FakeOpenAIServer,
    Hang,
    Scenario,
    Sse,
    text_chunks,
    tool_call_chunks,
    usage_chunk,
)

from nb_hitl.agent import ReActAgent
from nb_hitl.events import ErrorOccurred, Event, MessageUpdated
from nb_hitl.exceptions import ModelStreamError
from nb_hitl.message import Msg, TextBlock, ToolUseBlock
from nb_hitl.model import OpenAIChatModel, check_prompt_tokens, reported_usage
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.token import TokenCounter
from nb_hitl.tool import Toolkit, ToolResponse

MakeModel = Callable[..., OpenAIChatModel]


def get_weather(city: str) -> ToolResponse:
    """Weather of a city.

    Args:
        city: the city.
    """
    return ToolResponse(content=[TextBlock(text=f"Sunny in {city}.")])


def weather_toolkit() -> Toolkit:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    return toolkit


def texts_of(msgs: list[Msg]) -> list[str | None]:
    return [m.get_text_content() for m in msgs]


async def test_interrupt_mid_stream_closes_the_http_stream_and_keeps_the_partial_text(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    pieces = [f"w{i} " for i in range(200)]
    name = fake_server.add(Scenario([Sse(text_chunks(pieces), delay=0.01)]))
    agent = ReActAgent("Friday", "Be brief.", make_model(name))
    task = asyncio.create_task(agent(Msg("User", "Tell me a long story.", "user")))
    await wait_for_event(
        agent, lambda e: isinstance(e, MessageUpdated) and "w3" in e.delta, timeout=10
    )
    assert await agent.interrupt()
    result = await task
    assert result.is_interrupted
    request = fake_server.requests_for(name)[0]
    assert await asyncio.to_thread(request.disconnected.wait, 5)  # the server saw the hang-up
    assert not request.completed and request.events_sent < len(pieces)
    readers = [t for t in asyncio.all_tasks() if t.get_name().startswith("http:")]
    assert readers == []  # no background read left behind
    messages = agent.memory.messages
    assert [m.role for m in messages] == ["user", "assistant", "assistant"]
    partial = messages[1]
    assert partial.metadata["_partial"] is True
    assert (partial.get_text_content() or "").startswith("w0 w1 w2 w3")
    assert messages[2].is_interrupted
    assert_history_valid(messages)


async def test_interrupt_while_tool_arguments_stream_drops_only_the_half_sent_call(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    calls = [
        ("call_done", "get_weather", ['{"city": ', '"Paris"}']),
        ("call_half", "get_weather", ['{"ci', "ty", '": "O'] + ["s"] * 200),
    ]
    name = fake_server.add(Scenario([Sse(tool_call_chunks(calls), delay=0.01)]))
    agent = ReActAgent("Friday", "", make_model(name), toolkit=weather_toolkit())
    task = asyncio.create_task(agent(Msg("User", "Weather in Paris and Oslo?", "user")))

    def second_call_streaming(event: Event) -> bool:
        if not isinstance(event, MessageUpdated) or event.msg is None:
            return False
        calls = event.msg.get_content_blocks("tool_use")
        return len(calls) == 2 and len(calls[1].raw_input or "") > 8

    await wait_for_event(agent, second_call_streaming)
    await agent.interrupt()
    await task
    request = fake_server.requests_for(name)[0]
    assert await asyncio.to_thread(request.disconnected.wait, 5)
    messages = agent.memory.messages
    partial = messages[1]
    assert partial.get_content_blocks("tool_use") == [
        ToolUseBlock(id="call_done", name="get_weather", input={"city": "Paris"})
    ]
    assert partial.metadata["dropped_tool_calls"] == 1
    result = messages[2].get_content_blocks("tool_result")[0]
    assert result.id == "call_done" and result.is_interrupted
    assert messages[-1].is_interrupted
    assert_history_valid(messages)


async def test_interrupt_before_the_first_token_hangs_up_a_silent_server(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Hang()]))
    agent = ReActAgent("Friday", "", make_model(name))
    task = asyncio.create_task(agent(Msg("User", "hello?", "user")))
    assert await asyncio.to_thread(fake_server.wait_for_requests, name)
    await agent.interrupt()
    assert (await task).is_interrupted
    assert await asyncio.to_thread(fake_server.requests_for(name)[0].disconnected.wait, 5)
    assert [m.role for m in agent.memory.messages] == ["user", "assistant"]
    assert_history_valid(agent.memory.messages)


async def test_resume_after_an_interrupt_sends_the_consistent_history(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario(
            [
                Sse(text_chunks([f"t{i} " for i in range(200)]), delay=0.01),
                Sse(text_chunks(["Resumed", " answer."])),
            ]
        )
    )
    agent = ReActAgent("Friday", "Be brief.", make_model(name))
    task = asyncio.create_task(agent(Msg("User", "Explain.", "user")))
    await wait_for_event(
        agent, lambda e: isinstance(e, MessageUpdated) and "t2" in e.delta, timeout=10
    )
    await agent.interrupt()
    await task
    reply = await agent(Msg("User", "Please continue.", "user"))
    assert reply.get_text_content() == "Resumed answer."
    second = fake_server.requests_for(name)[1].body["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "assistant", "user"]
    assert second[2]["content"].startswith("t0 t1 t2")
    assert second[3]["content"].startswith("[Interrupted]")
    assert_history_valid(agent.memory.messages)


async def test_a_tool_round_trip_sends_tool_results_back(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario(
            [
                Sse(tool_call_chunks([("c1", "get_weather", ['{"city": "Rome"}'])])),
                Sse(text_chunks(["Sunny in Rome."])),
            ]
        )
    )
    agent = ReActAgent("Friday", "", make_model(name), toolkit=weather_toolkit())
    reply = await agent(Msg("User", "Weather in Rome?", "user"))
    assert reply.get_text_content() == "Sunny in Rome."
    second = fake_server.requests_for(name)[1].body
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "Sunny in Rome.",
    }
    assert second["messages"][-2]["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Rome"}',
    }
    assert second["messages"][-2]["content"] == ""  # llama.cpp rejects null
    assert second["tools"][0]["function"]["name"] == "get_weather"


async def test_a_broken_stream_is_reported_and_memory_stays_valid(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario([Sse(text_chunks(["Half", " a"], finish=None), ending="break")])
    )
    agent = ReActAgent("Friday", "", make_model(name))
    errors: list[ErrorOccurred] = []
    agent.subscribe(lambda e: errors.append(e) if isinstance(e, ErrorOccurred) else None)
    try:
        await agent(Msg("User", "hi", "user"))
    except ModelStreamError as exc:
        assert "broke after" in str(exc)
    else:
        raise AssertionError("the broken stream was not reported")
    await asyncio.sleep(0)
    assert errors and errors[0].error_type == "ModelStreamError"
    assert "broke after" in errors[0].message
    partial = agent.memory.messages[-1]
    assert partial.get_text_content() == "Half a" and partial.metadata["_partial"]
    assert "ModelStreamError" in partial.metadata["_error"]
    assert_history_valid(agent.memory.messages)


async def test_provider_usage_lands_in_metadata_next_to_our_own_count(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse([*text_chunks(["Hi!"]), usage_chunk(31, 2)])]))
    agent = ReActAgent("Friday", "You are helpful.", make_model(name), toolkit=weather_toolkit())
    reply = await agent(Msg("User", "Say hi.", "user"))
    usage = reported_usage(reply)
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (31, 2)
    counter = TokenCounter()
    check = check_prompt_tokens(agent, reply, counter)
    assert check is not None
    prompt = agent.formatter.format_sync([agent.system_msg(), agent.memory.messages[0]])
    assert check.counted == counter.count_sync(prompt, agent.toolkit.get_json_schemas())
    assert check.reported == 31 and check.difference == check.counted - 31
    assert check.label().startswith(f"provider 31 · nb_hitl {check.counted} (")
    assert check_prompt_tokens(agent, agent.memory.messages[0], counter) is None  # no usage


async def test_agentscope_formatter_output_reaches_strict_servers(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    """AgentScope's format (content parts, ``content: None`` next to tool calls) is sent with
    ``""`` instead of ``None``, which llama.cpp's server needs; the rest goes as formatted."""
    from nb_hitl.formatter import OpenAIChatFormatter

    name = fake_server.add(
        Scenario(
            [
                Sse(tool_call_chunks([("c1", "get_weather", ['{"city": "Rome"}'])])),
                Sse(text_chunks(["Sunny in Rome."])),
            ]
        )
    )
    agent = ReActAgent(
        "Friday", "", make_model(name), toolkit=weather_toolkit(), formatter=OpenAIChatFormatter()
    )
    reply = await agent(Msg("User", "Weather in Rome?", "user"))
    assert reply.get_text_content() == "Sunny in Rome."
    second = fake_server.requests_for(name)[1].body["messages"]
    # text-only parts go as a plain string, which strict servers (llama.cpp) need
    assert second[-3] == {"role": "user", "name": "User", "content": "Weather in Rome?"}
    assert second[-2]["content"] == "" and second[-2]["tool_calls"][0]["id"] == "c1"
    assert second[-1]["name"] == "get_weather"
    formatted = await agent.formatter.format(agent.memory.messages[:-1])
    assert formatted[-2]["content"] is None  # the formatter itself keeps AgentScope's None
    assert formatted[-3]["content"] == [{"type": "text", "text": "Weather in Rome?"}]
