"""Steering: agent.steer(msg) is taken in at the next step boundary; nothing is cancelled."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.events import Event, Steered
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.model._scripted import structured_summary
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.token import TokenCounter
from nb_hitl.tool import Toolkit


def text_of(m: Msg) -> str:
    results = m.get_content_blocks("tool_result")
    if results:
        return results[0].output_text()
    return m.get_text_content() or m.get_content_blocks()[0].type


def texts(agent: ReActAgent) -> list[str]:
    return [f"{m.role}:{text_of(m)}" for m in agent.memory.messages]


def steered_ids(agent: ReActAgent) -> list[str]:
    return [m.id for m in agent.memory.messages if m.metadata.get("_steered")]


class Recorder:
    def __init__(self, agent: ReActAgent) -> None:
        self.events: list[Event] = []
        agent.subscribe(self.events.append)

    async def steered(self) -> list[Steered]:
        for _ in range(5):
            await asyncio.sleep(0)
        return [e for e in self.events if isinstance(e, Steered)]


def agent_with(script: list[Any], toolkit: Toolkit | None = None, **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "You steer well.", model, toolkit=toolkit, **kwargs)


def call(name: str, **args: Any) -> ScriptedToolCall:
    return ScriptedToolCall(name, args)


async def test_steer_during_a_tool_is_taken_in_after_the_batch_and_nothing_is_cancelled() -> None:
    tk = Toolkit()
    steer = user("also check Bergen")
    box: dict[str, ReActAgent] = {}

    async def lookup(city: str) -> str:
        """Look up.

        Args:
            city: the city.
        """
        assert box["agent"].steer_nowait(steer) is True
        await asyncio.sleep(0.01)  # the tool goes on: nothing is cancelled
        return f"sunny in {city}"

    tk.register_tool_function(lookup)
    agent = agent_with(
        [
            ScriptedTurn(text="Looking.", tool_calls=[call("lookup", city="Oslo")]),
            "Oslo and Bergen are sunny.",
        ],
        tk,
    )
    box["agent"] = agent
    rec = Recorder(agent)
    reply = await agent(user("weather in Oslo?"))
    assert not reply.is_interrupted and reply.get_text_content() == "Oslo and Bergen are sunny."
    assert texts(agent) == [
        "user:weather in Oslo?",
        "assistant:Looking.",
        "system:sunny in Oslo",
        "user:also check Bergen",
        "assistant:Oslo and Bergen are sunny.",
    ]
    assert steer.metadata["_steered"] is True and steer.metadata["steered_at"] == "step boundary"
    # the second model call saw the steering message, after the tool result
    second = agent.model.calls[1].messages
    assert (second[-1]["role"], second[-1]["content"]) == ("user", "also check Bergen")
    events = await rec.steered()
    assert [(e.msg.id, e.where) for e in events] == [(steer.id, "step boundary")]
    assert events[0].reply_id is not None
    assert agent.pending_steering == []
    assert_history_valid(agent.memory.messages)


async def test_steer_during_a_model_turn_waits_for_its_tool_batch() -> None:
    tk = Toolkit()

    def noop(x: int) -> str:
        """No-op.

        Args:
            x: a number.
        """
        return f"ok {x}"

    tk.register_tool_function(noop)
    steer = user("switch to plan B")
    agent: ReActAgent

    def responder(messages: list[dict[str, Any]], tools: Any) -> ScriptedTurn:
        if len(agent.model.calls) == 1:
            agent.steer_nowait(steer)  # mid model turn: this turn asks for two tools
            return ScriptedTurn(
                text="Two calls.", tool_calls=[call("noop", x=1), call("noop", x=2)]
            )
        return ScriptedTurn(text="Plan B it is.")

    model = ScriptedModel(responder=responder, tokens_per_second=1e6)
    agent = ReActAgent("Friday", "s", model, toolkit=tk, parallel_tool_calls=True)
    await agent(user("go"))
    roles = [m.role for m in agent.memory.messages]
    assert roles == ["user", "assistant", "system", "system", "user", "assistant"]
    assert agent.memory.messages[4] is steer
    assert_history_valid(agent.memory.messages)


async def test_parallel_tools_all_finish_and_the_steer_follows_every_result() -> None:
    tk = Toolkit()
    agent: ReActAgent
    started = asyncio.Event()

    async def slow(ms: int) -> str:
        """Slow.

        Args:
            ms: milliseconds.
        """
        started.set()
        await asyncio.sleep(ms / 1000)
        return f"slept {ms}"

    tk.register_tool_function(slow)
    agent = agent_with(
        [
            ScriptedTurn(tool_calls=[call("slow", ms=30), call("slow", ms=5), call("slow", ms=15)]),
            "done",
        ],
        tk,
        parallel_tool_calls=True,
    )
    task = asyncio.create_task(agent(user("go")))
    await started.wait()
    assert await agent.steer("and hurry") is True
    await task
    msgs = agent.memory.messages
    results = [m for m in msgs if m.role == "system"]
    assert sorted(r.content[0].output_text() for r in results) == [
        "slept 15",
        "slept 30",
        "slept 5",
    ]
    assert not any(r.content[0].is_interrupted for r in results)
    assert msgs[-2].get_text_content() == "and hurry" and msgs[-2].role == "user"
    assert msgs.index(msgs[-2]) > max(msgs.index(r) for r in results)
    assert_history_valid(msgs)


async def test_a_reply_that_ends_before_a_boundary_leaves_it_for_the_next_reply() -> None:
    agent: ReActAgent
    steer = user("one more thing: in French")

    def responder(messages: list[dict[str, Any]], tools: Any) -> ScriptedTurn:
        if len(agent.model.calls) == 1:
            agent.steer_nowait(steer)  # the final answer is streaming: no boundary follows
            return ScriptedTurn(text="Hello.")
        return ScriptedTurn(text="Bonjour.")

    agent = ReActAgent("Friday", "s", ScriptedModel(responder=responder, tokens_per_second=1e6))
    rec = Recorder(agent)
    first = await agent(user("greet me"))
    assert first.get_text_content() == "Hello."
    assert steer.id not in [m.id for m in agent.memory.messages]
    assert agent.pending_steering == [steer]
    second = await agent()  # no new message: it answers the steering
    assert second.get_text_content() == "Bonjour."
    assert texts(agent) == [
        "user:greet me",
        "assistant:Hello.",
        "user:one more thing: in French",
        "assistant:Bonjour.",
    ]
    assert steer.metadata["steered_at"] == "reply start"
    assert [e.where for e in await rec.steered()] == ["reply start"]
    assert agent.pending_steering == []


async def test_queued_steering_comes_before_the_next_message_and_is_recorded_once() -> None:
    agent = agent_with(["a", "b"])
    steer = user("steered while idle")
    assert agent.steer_nowait(steer) is False  # nothing running: the next reply takes it
    assert agent.steer_nowait(steer) is False  # the same message twice: queued once
    await agent(user("question"))
    assert texts(agent)[:3] == ["user:steered while idle", "user:question", "assistant:a"]
    await agent(user("again"))
    assert steered_ids(agent) == [steer.id]


async def test_steering_then_sending_the_same_message_records_it_once() -> None:
    agent = agent_with(["a"])
    m = user("same")
    agent.steer_nowait(m)
    await agent(m)
    assert [x.id for x in agent.memory.messages].count(m.id) == 1
    assert agent.pending_steering == []


async def test_an_interrupted_reply_keeps_its_steering_for_the_next_reply() -> None:
    agent = agent_with([" ".join(["word"] * 400), "answered"])
    agent.model.tokens_per_second = 50.0
    task = asyncio.create_task(agent(user("long one")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    agent.steer_nowait(user("steer"))
    assert await agent.interrupt(user("stop, redirect")) is True
    assert (await task).is_interrupted
    tail = texts(agent)[-1]
    assert tail == "user:stop, redirect"  # the interrupt's message; the steer still waits
    assert [m.get_text_content() for m in agent.pending_steering] == ["steer"]
    agent.model.tokens_per_second = 1e6
    await agent()
    assert texts(agent)[-2:] == ["user:steer", "assistant:answered"]
    assert_history_valid(agent.memory.messages)


async def test_steering_while_parked_on_an_approval_is_taken_in_when_the_reply_continues() -> None:
    tk = Toolkit()

    def write(text: str) -> str:
        """Write.

        Args:
            text: what to write.
        """
        return f"wrote {text}"

    tk.register_tool_function(write, needs_approval=True)
    agent = agent_with([ScriptedTurn(tool_calls=[call("write", text="hi")]), "written"], tk)
    task = asyncio.create_task(agent(user("write hi")))
    await wait_for_event(agent, lambda e: e.kind == "approval_requested")
    assert agent.steer_nowait(user("and sign it")) is True
    await asyncio.sleep(0.01)
    assert "user:and sign it" not in texts(agent)  # parked: not taken in yet
    agent.approve(agent.pending_approvals[0].call_id)
    await task
    assert texts(agent) == [
        "user:write hi",
        "assistant:tool_use",
        "system:wrote hi",
        "user:and sign it",
        "assistant:written",
    ]
    assert_history_valid(agent.memory.messages)


async def test_steering_sent_while_compression_summarises_is_in_the_next_prompt() -> None:
    agent: ReActAgent
    steer = user("steer during compression")

    def summarise(messages: list[dict[str, Any]], schema: Any) -> str:
        agent.steer_nowait(steer)
        return json.dumps(structured_summary(messages, schema))

    summariser = ScriptedModel(structured_responder=summarise, tokens_per_second=1e6)
    config = CompressionConfig(
        agent_token_counter=TokenCounter(),
        trigger_threshold=60,
        keep_recent=1,
        compression_model=summariser,
    )
    agent = agent_with(["ok"], compression_config=config)
    for i in range(6):
        await agent.observe([user(f"old fact number {i} " * 5)])
    await agent(user("now"))
    assert agent.memory.summary  # compression ran
    assert steer.metadata["steered_at"] == "step boundary"
    prompt = agent.model.calls[0].messages
    assert (prompt[-1]["role"], prompt[-1]["content"]) == ("user", "steer during compression")
    assert_history_valid(agent.memory.messages)


async def test_steer_threadsafe_from_a_thread() -> None:
    tk = Toolkit()
    agent: ReActAgent
    results: list[bool] = []

    async def wait(ms: int) -> str:
        """Wait.

        Args:
            ms: milliseconds.
        """

        def from_thread() -> None:
            results.append(agent.steer_threadsafe("hi").result(5))

        await asyncio.to_thread(from_thread)
        return "waited"

    tk.register_tool_function(wait)
    agent = agent_with([ScriptedTurn(tool_calls=[call("wait", ms=1)]), "fine"], tk)
    await agent(user("go"))
    assert results == [True]
    assert texts(agent)[-2:] == ["user:hi", "assistant:fine"]
    assert agent.steer_threadsafe("later").result(5) is False


def test_steer_refuses_what_is_not_a_message() -> None:
    agent = agent_with([])
    with pytest.raises(TypeError, match="takes a Msg or a str"):
        agent.steer_nowait(42)  # type: ignore[arg-type]
    assert agent.pending_steering == []


async def test_max_iters_boundary_takes_steering_before_the_summary() -> None:
    tk = Toolkit()
    agent: ReActAgent

    async def step(n: int) -> str:
        """Step.

        Args:
            n: a number.
        """
        agent.steer_nowait(Msg("user", f"steer {n}", "user"))
        return f"step {n}"

    tk.register_tool_function(step)
    agent = agent_with([ScriptedTurn(tool_calls=[call("step", n=1)]), "summary"], tk, max_iters=1)
    reply = await agent(user("go"))
    assert reply.metadata.get("max_iters_reached")
    assert texts(agent)[-2:] == ["user:steer 1", "assistant:summary"]
