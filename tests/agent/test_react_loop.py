"""ReActAgent without interrupts: tool loop, bad tool calls as observations, errors, state."""

from __future__ import annotations

import asyncio
import json

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit


def weather(city: str) -> str:
    """Weather for a city.

    Args:
        city: the city.
    """
    return f"sunny in {city}"


def toolkit() -> Toolkit:
    tk = Toolkit()
    tk.register_tool_function(weather)
    return tk


async def test_reason_act_repeat_until_a_plain_answer(make_agent) -> None:
    agent = make_agent(
        [
            ScriptedTurn(
                text="Checking.", tool_calls=[ScriptedToolCall("weather", {"city": "Oslo"})]
            ),
            "It is sunny in Oslo.",
        ],
        toolkit=toolkit(),
    )
    reply = await agent(user("Weather in Oslo?"))
    assert reply.get_text_content() == "It is sunny in Oslo."
    roles = [m.role for m in agent.memory.messages]
    assert roles == ["user", "assistant", "system", "assistant"]
    result = agent.memory.messages[2].get_content_blocks("tool_result")[0]
    assert result.output_text() == "sunny in Oslo" and not result.is_error
    second_prompt = agent.model.calls[1].messages
    assert second_prompt[0] == {"role": "system", "content": "You are a test agent."}
    assert second_prompt[-1]["role"] == "tool"
    assert agent.model.calls[0].tools[0]["function"]["name"] == "weather"
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (ScriptedToolCall("nosuch", {}), "Unknown tool 'nosuch'"),
        (ScriptedToolCall("weather", {"town": "x"}), "Invalid arguments for 'weather'"),
        (ScriptedToolCall("weather", raw_arguments='{"city": "Os'), "not valid JSON"),
    ],
)
async def test_bad_tool_calls_are_observations_and_the_loop_goes_on(
    make_agent, call: ScriptedToolCall, expected: str
) -> None:
    agent = make_agent(
        [ScriptedTurn(tool_calls=[call]), "Sorry, let me answer directly."], toolkit=toolkit()
    )
    reply = await agent(user("go"))
    assert reply.get_text_content() == "Sorry, let me answer directly."
    result = agent.memory.messages[2].get_content_blocks("tool_result")[0]
    assert result.is_error and expected in result.output_text()
    tool_msg = agent.model.calls[1].messages[-1]
    assert tool_msg["role"] == "tool" and expected in tool_msg["content"]
    assert_history_valid(agent.memory.messages)


async def test_max_iters_ends_with_a_summarising_reply(make_agent) -> None:
    def loop_call() -> ScriptedTurn:
        return ScriptedTurn(tool_calls=[ScriptedToolCall("weather", {"city": "x"})])

    agent = make_agent(
        [loop_call(), loop_call(), "Summary: I kept checking."], toolkit=toolkit(), max_iters=2
    )
    reply = await agent(user("go"))
    assert reply.metadata["max_iters_reached"] is True
    assert reply.get_text_content() == "Summary: I kept checking."
    assert agent.model.calls[-1].tools is None
    assert "maximum number of reasoning steps" in agent.model.calls[-1].messages[-1]["content"]
    assert_history_valid(agent.memory.messages)


async def test_model_error_propagates_and_memory_stays_valid(make_agent) -> None:
    agent = make_agent(
        [
            ScriptedTurn(
                text="Half an answer before",
                error=RuntimeError("server went away"),
                error_after_tokens=3,
            ),
            "Recovered.",
        ]
    )
    with pytest.raises(RuntimeError, match="server went away"):
        await agent(user("go"))
    partial = agent.memory.messages[-1]
    assert partial.metadata["_partial"] is True
    assert "server went away" in partial.metadata["_error"]
    assert_history_valid(agent.memory.messages)
    assert not agent.is_replying
    reply = await agent(user("again"))
    assert reply.get_text_content() == "Recovered."


async def test_error_after_tool_calls_closes_them(make_agent) -> None:
    agent = make_agent(
        [
            ScriptedTurn(
                tool_calls=[
                    ScriptedToolCall("weather", {"city": "a"}),
                    ScriptedToolCall("weather", {"city": "b"}),
                ]
            ),
            RuntimeError("model crashed"),
        ],
        toolkit=toolkit(),
    )
    with pytest.raises(RuntimeError, match="model crashed"):
        await agent(user("go"))
    assert_history_valid(agent.memory.messages)


async def test_constructor_validation() -> None:
    with pytest.raises(TypeError, match="ChatModelBase"):
        ReActAgent("a", "s", model="gpt-4o")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_iters"):
        ReActAgent("a", "s", ScriptedModel([]), max_iters=0)
    with pytest.raises(ValueError, match="non-empty name"):
        ReActAgent("  ", "s", ScriptedModel([]))


async def test_state_dict_round_trip_without_secrets(make_agent) -> None:
    agent = make_agent(["hello"], max_iters=4, parallel_tool_calls=True)
    await agent(user("hi"))
    state = json.loads(json.dumps(agent.state_dict()))
    assert state["max_iters"] == 4 and state["parallel_tool_calls"] is True
    other = ReActAgent("Friday", "different", ScriptedModel([]))
    other.load_state_dict(state)
    assert other.memory.messages == agent.memory.messages
    assert other.sys_prompt == "You are a test agent." and other.max_iters == 4
    assert "model" not in state


async def test_observe_adds_without_replying_and_refuses_while_busy(make_agent) -> None:
    agent = make_agent(["a long answer " * 50], tokens_per_second=200)
    await agent.observe([Msg("Bob", "note 1", "user"), Msg("Bob", "note 2", "user")])
    assert len(agent.memory) == 2 and agent.model.calls == []
    task = asyncio.create_task(agent(user("go")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    with pytest.raises(AgentBusyError):
        await agent.observe(Msg("Bob", "x", "user"))
    await agent.interrupt()
    await task
    assert all(m.get_text_content() != "x" for m in agent.memory.messages)


async def test_repeated_tool_call_ids_in_one_turn_each_get_a_result(make_agent) -> None:
    calls = [ScriptedToolCall("weather", {"city": c}, id="call_0") for c in ("a", "b")]
    agent = make_agent([ScriptedTurn(tool_calls=calls), "Both done."], toolkit=toolkit())
    reply = await agent(user("two cities"))
    assert reply.get_text_content() == "Both done."
    uses = agent.memory.messages[1].get_content_blocks("tool_use")
    assert len({u.id for u in uses}) == 2
    results = [
        b.output_text() for m in agent.memory.messages for b in m.get_content_blocks("tool_result")
    ]
    assert results == ["sunny in a", "sunny in b"]
    assert_history_valid(agent.memory.messages)
