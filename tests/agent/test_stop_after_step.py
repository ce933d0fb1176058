"""agent.stop_after_step(): the step in flight finishes, then the reply ends cleanly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent, UserAgent
from nb_hitl.agent._user import ScriptedInput
from nb_hitl.events import Event, StoppedAfterStep, StopRequested
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit


def looking_agent(gate: asyncio.Event, ran: list[str], script: list[Any]) -> ReActAgent:
    tk = Toolkit()

    async def look(city: str) -> str:
        """Look a city up.

        Args:
            city: the city.
        """
        ran.append(city)
        await gate.wait()
        return f"{city}: sunny"

    tk.register_tool_function(look)
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "sys", model, toolkit=tk)


def look(*cities: str) -> ScriptedTurn:
    return ScriptedTurn(
        text="Looking.", tool_calls=[ScriptedToolCall("look", {"city": c}) for c in cities]
    )


async def test_the_tool_batch_in_flight_finishes_then_the_reply_ends_at_the_boundary() -> None:
    gate, ran = asyncio.Event(), []
    agent = looking_agent(gate, ran, [look("Oslo", "Bergen"), look("Tromso"), "Never said."])
    events: list[Event] = []
    agent.subscribe(events.append)
    task = asyncio.create_task(agent(user("Weather?")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    assert await agent.stop_after_step()
    assert agent.stop_pending and agent.is_replying
    steer = user("and Trondheim")
    await agent.steer(steer)
    gate.set()
    result = await task

    assert ran == ["Oslo", "Bergen"]  # the batch finished; the next step never ran
    assert result.metadata["stopped_after_step"] is True
    assert not result.is_interrupted and not agent.stop_pending
    assert [m.role for m in agent.memory.messages] == [
        "user", "assistant", "system", "system", "assistant"
    ]  # fmt: skip
    results = [m for m in agent.memory.messages if m.get_content_blocks("tool_result")]
    assert all(not b.is_interrupted for m in results for b in m.get_content_blocks("tool_result"))
    assert_history_valid(agent.memory.messages)
    assert [m.id for m in agent.pending_steering] == [steer.id]  # left for the next reply
    await asyncio.sleep(0)
    kinds = [e.kind for e in events]
    assert kinds.count("stop_requested") == 1 and kinds.count("stopped_after_step") == 1
    assert kinds.index("stopped_after_step") < kinds.index("reply_finished")
    finished = [e for e in events if e.kind == "reply_finished"][-1]
    assert finished.interrupted is False  # type: ignore[attr-defined]
    stopped = next(e for e in events if isinstance(e, StoppedAfterStep))
    assert stopped.msg is result
    assert isinstance(next(e for e in events if e.kind == "stop_requested"), StopRequested)


async def test_interrupt_when_step_is_stop_after_step_and_records_its_message_after() -> None:
    gate, ran = asyncio.Event(), []
    agent = looking_agent(gate, ran, [look("Oslo"), "Never said."])
    task = asyncio.create_task(agent(user("Weather?")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    note = user("we will talk later")
    assert await agent.interrupt(note, when="step")
    gate.set()
    result = await task
    assert result.metadata["stopped_after_step"] and agent.memory.messages[-1].id == note.id
    with pytest.raises(ValueError, match="when must be"):
        await agent.interrupt(when="later")


async def test_resume_after_a_stop_goes_on_with_the_next_step() -> None:
    gate, ran = asyncio.Event(), []
    agent = looking_agent(gate, ran, [look("Oslo"), "Oslo is sunny."])
    task = asyncio.create_task(agent(user("Weather?")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    agent.stop_after_step_nowait()
    gate.set()
    stopped = await task
    reply = await agent.resume()
    assert reply.get_text_content() == "Oslo is sunny."
    assert reply.metadata["continued_by"] == "next_step"
    assert reply.metadata["continues"] == stopped.id
    assert_history_valid(agent.memory.messages)


async def test_a_reply_that_finishes_first_just_finishes() -> None:
    answer = " ".join(f"word{i}" for i in range(40))
    agent = ReActAgent("Friday", "sys", ScriptedModel([answer], tokens_per_second=100))
    task = asyncio.create_task(agent(user("Hi")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    assert agent.stop_after_step_nowait()  # asked while the one model call streams
    result = await task
    assert result.get_text_content() == answer
    assert "stopped_after_step" not in result.metadata
    assert not await agent.stop_after_step()  # nothing runs now


async def test_interrupt_after_a_stop_request_still_interrupts_at_once() -> None:
    gate, ran = asyncio.Event(), []
    agent = looking_agent(gate, ran, [look("Oslo"), "Never said."])
    task = asyncio.create_task(agent(user("Weather?")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    agent.stop_after_step_nowait()
    await agent.interrupt()
    result = await task
    assert result.is_interrupted and "stopped_after_step" not in result.metadata
    assert_history_valid(agent.memory.messages)


async def test_stop_after_step_from_another_thread() -> None:
    gate, ran = asyncio.Event(), []
    agent = looking_agent(gate, ran, [look("Oslo"), "Never said."])
    task = asyncio.create_task(agent(user("Weather?")))
    await wait_for_event(agent, lambda e: e.kind == "tool_call_started")
    future = await asyncio.to_thread(agent.stop_after_step_threadsafe)
    assert await asyncio.wrap_future(future)
    gate.set()
    assert (await task).metadata["stopped_after_step"]


async def test_agents_without_steps_say_to_interrupt_instead() -> None:
    person = UserAgent("Ann", input_source=ScriptedInput(["hello"]))
    with pytest.raises(TypeError, match="interrupt"):
        await person.stop_after_step()
    with pytest.raises(TypeError, match="interrupt"):
        person.stop_after_step_threadsafe()
