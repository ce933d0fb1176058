"""MsgHub and pipelines with scripted agents: broadcast, pause on interrupt, resume choices."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent import QueueInput, ReActAgent, UserAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import (
    FanoutPipeline,
    MsgHub,
    SequentialPipeline,
    fanout_pipeline,
    resume,
    sequential_pipeline,
)
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit

LONG = " ".join(f"word{i}" for i in range(300))


def speaker(
    name: str, script: list[Any], tps: float = 1e6, toolkit: Toolkit | None = None
) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=tps)
    return ReActAgent(name, f"You are {name}.", model, toolkit=toolkit)


def seen(agent: ReActAgent) -> list[tuple[str, str]]:
    return [(m.name, m.get_text_content() or "") for m in agent.memory.messages]


async def stop_when_streaming(agent: ReActAgent) -> None:
    await wait_for_event(agent, lambda e: e.kind == "message_updated" and bool(e.delta))
    assert await agent.interrupt() is True


async def test_msghub_broadcasts_every_reply_to_the_others() -> None:
    alice, bob, carol = (
        speaker("Alice", ["I say A."]),
        speaker("Bob", ["I say B."]),
        speaker("Carol", ["I say C."]),
    )
    topic = Msg("Moderator", "Topic: tabs or spaces?", "user")
    async with MsgHub([alice, bob, carol], announcement=topic) as hub:
        await alice()
        await bob()
        await carol()
        assert "Alice" in repr(hub)
    assert seen(alice) == [
        ("Moderator", "Topic: tabs or spaces?"),
        ("Alice", "I say A."),
        ("Bob", "I say B."),
        ("Carol", "I say C."),
    ]
    assert seen(bob) == seen(alice) == seen(carol)
    # the second model call of Bob saw Alice's reply
    assert bob.model.calls[0].messages[-1]["content"] == "I say A."
    # outside the hub nothing is broadcast any more
    alice.model.script.append(ScriptedTurn(text="After."))
    await alice()
    assert seen(bob)[-1] == ("Carol", "I say C.")


async def test_add_delete_broadcast_and_auto_broadcast_off() -> None:
    alice, bob, carol = speaker("Alice", ["a1", "a2"]), speaker("Bob", ["b1"]), speaker("Carol", [])
    async with MsgHub([alice, bob]) as hub:
        await alice()
        hub.add(carol)
        hub.delete(bob)
        await alice()
        await hub.broadcast(Msg("Host", "time is up", "user"))
    assert [t for _, t in seen(bob)] == ["a1"]  # deleted before a2
    assert [t for _, t in seen(carol)] == ["a2", "time is up"]
    dave, erin = speaker("Dave", ["d", "d2"]), speaker("Erin", [])
    async with MsgHub([dave, erin], enable_auto_broadcast=False) as hub:
        await dave()
        assert seen(erin) == []
        hub.set_auto_broadcast(True)
        await dave()
    assert seen(erin) == [("Dave", "d2")]
    with pytest.raises(TypeError, match="must be agents"):
        MsgHub([dave, "not an agent"])  # type: ignore[list-item]


async def test_sequential_pipeline_passes_outputs_on() -> None:
    a, b = speaker("A", ["from A"]), speaker("B", ["from B"])
    out = await sequential_pipeline([a, b], Msg("user", "start", "user"))
    assert isinstance(out, Msg) and out.get_text_content() == "from B"
    assert b.model.calls[0].messages[-1]["content"] == "from A"


@pytest.mark.parametrize("position", [0, 1, 2])
async def test_interrupt_each_position_pauses_the_pipeline_in_a_hub(position: int) -> None:
    agents = [
        speaker(n, [LONG if i == position else f"{n} speaks."], tps=30.0 if i == position else 1e6)
        for i, n in enumerate(["Alice", "Bob", "Carol"])
    ]
    async with MsgHub(agents, announcement=Msg("Mod", "debate", "user")):
        pipe = SequentialPipeline(agents)
        run = asyncio.create_task(pipe())
        await stop_when_streaming(agents[position])
        out = await run
    assert isinstance(out, Msg) and out.is_interrupted
    info = out.metadata["pipeline"]
    assert info["position"] == position and info["agent"] == agents[position].name
    assert info["kind"] == "sequential" and pipe.paused is not None
    for later in agents[position + 1 :]:
        assert later.model.calls == []  # the interrupted message was not passed on
    for other in agents:
        if other is agents[position]:
            continue
        last = other.memory.messages[-1]
        assert last.name == agents[position].name and last.is_interrupted
        assert last.metadata["_partial"] is True
        assert last.get_text_content().startswith("word0")  # the partial text, not the marker
        assert not last.get_content_blocks("tool_use")


def interrupted_trio(position: int = 1) -> list[ReActAgent]:
    return [
        speaker(
            n,
            [LONG if i == position else f"{n} speaks.", f"{n} again."],
            tps=30.0 if i == position else 1e6,
        )
        for i, n in enumerate(["Alice", "Bob", "Carol"])
    ]


async def paused(agents: list[ReActAgent], position: int = 1) -> tuple[SequentialPipeline, Msg]:
    pipe = SequentialPipeline(agents)
    run = asyncio.create_task(pipe(Msg("user", "go", "user")))
    await stop_when_streaming(agents[position])
    out = await run
    assert isinstance(out, Msg)
    agents[position].model.tokens_per_second = 1e6
    return pipe, out


async def test_resume_retry_asks_the_same_agent_with_the_instruction() -> None:
    agents = interrupted_trio()
    async with MsgHub(agents):
        pipe, _ = await paused(agents)
        out = await pipe.resume("retry", "Be brief, Bob.")
    assert isinstance(out, Msg) and out.get_text_content() == "Carol speaks."
    bob = agents[1]
    assert [m.get_text_content() for m in bob.memory.messages][-3:] == [
        "Be brief, Bob.",
        "Bob again.",
        "Carol speaks.",
    ]
    assert_history_valid(bob.memory.messages)
    # Carol observed Bob's interrupted partial, then Bob's new reply, then answered
    carol_names = [(m.name, m.is_interrupted) for m in agents[2].memory.messages]
    assert carol_names[-3:] == [("Bob", True), ("Bob", False), ("Carol", False)]
    assert pipe.paused is None


async def test_resume_skip_goes_on_with_the_next_agent() -> None:
    agents = interrupted_trio()
    pipe, _ = await paused(agents)
    out = await pipe.resume("skip", "Carol, take over.")
    assert isinstance(out, Msg) and out.get_text_content() == "Carol speaks."
    assert agents[2].memory.messages[0].get_text_content() == "Carol, take over."
    assert len(agents[1].model.calls) == 1  # Bob was not asked again
    agents2 = interrupted_trio()
    pipe2, _ = await paused(agents2)
    await pipe2.resume("skip")  # without an instruction Carol gets Bob's input (Alice's reply)
    assert agents2[2].memory.messages[0].get_text_content() == "Alice speaks."


async def test_resume_stop_ends_it_and_a_second_resume_is_refused() -> None:
    agents = interrupted_trio()
    pipe, first = await paused(agents)
    out = await pipe.resume("stop")
    assert out is first and agents[2].model.calls == []
    with pytest.raises(RuntimeError, match="not paused"):
        await pipe.resume("retry")
    with pytest.raises(ValueError, match="'retry', 'skip' or 'stop'"):
        await pipe.resume("again")  # type: ignore[arg-type]


async def test_functional_resume_by_message() -> None:
    agents = interrupted_trio(0)
    run = asyncio.create_task(sequential_pipeline(agents, Msg("user", "go", "user")))
    await stop_when_streaming(agents[0])
    out = await run
    assert isinstance(out, Msg) and out.metadata["pipeline"]["position"] == 0
    agents[0].model.tokens_per_second = 1e6
    final = await resume(out, "retry")
    assert isinstance(final, Msg) and final.get_text_content() == "Carol speaks."
    with pytest.raises(ValueError, match="paused pipeline"):
        await resume(out, "retry")
    with pytest.raises(ValueError, match="paused pipeline"):
        await resume(Msg("x", "y", "user"))


async def test_pause_off_passes_the_interrupted_message_on_like_agentscope() -> None:
    agents = interrupted_trio(0)
    run = asyncio.create_task(sequential_pipeline(agents, None, pause_on_interrupt=False))
    await stop_when_streaming(agents[0])
    out = await run
    assert isinstance(out, Msg) and out.get_text_content() == "Carol speaks."
    assert agents[1].memory.messages[0].is_interrupted


async def test_an_interrupt_in_a_tool_is_observed_as_text_never_a_half_tool_call() -> None:
    tk = Toolkit()
    box: dict[str, ReActAgent] = {}

    async def ask_human(question: str) -> str:
        """Pause for the human.

        Args:
            question: the question.
        """
        box["bob"].interrupt_nowait()
        await asyncio.sleep(1)
        return "never"

    tk.register_tool_function(ask_human)
    alice = speaker("Alice", ["Alice opens."])
    bob = speaker(
        "Bob",
        [
            ScriptedTurn(
                text="Let me ask.", tool_calls=[ScriptedToolCall("ask_human", {"question": "ok?"})]
            )
        ],
        toolkit=tk,
    )
    box["bob"] = bob
    carol = speaker("Carol", [])
    async with MsgHub([alice, bob, carol]):
        out = await SequentialPipeline([alice, bob, carol])()
    assert isinstance(out, Msg) and out.metadata["pipeline"]["agent"] == "Bob"
    assert bob.memory.messages[-3].get_content_blocks("tool_use")  # Bob's own history has it
    for other in (alice, carol):
        last = other.memory.messages[-1]
        assert (last.name, last.get_text_content(), last.is_interrupted) == (
            "Bob",
            "Let me ask.",
            True,
        )
        for m in other.memory.messages:
            assert not m.get_content_blocks("tool_use") and not m.get_content_blocks("tool_result")
        assert_history_valid(other.memory.messages)


async def test_a_user_agent_in_the_loop_pauses_and_resumes() -> None:
    source = QueueInput()
    human = UserAgent("Human", source)
    a, b = speaker("A", ["question for you"]), speaker("B", ["thanks"])
    async with MsgHub([a, human, b]):
        pipe = SequentialPipeline([a, human, b])
        run = asyncio.create_task(pipe())
        await wait_for_event(human, lambda e: e.kind == "reply_started")
        await asyncio.sleep(0.01)
        assert await human.interrupt() is True
        out = await run
        assert (
            isinstance(out, Msg)
            and out.role == "user"
            and out.metadata["pipeline"]["position"] == 1
        )
        source.put("my answer")
        final = await pipe.resume("retry")
    assert isinstance(final, Msg) and final.get_text_content() == "thanks"
    assert [t for _, t in seen(b)][-2:] == ["my answer", "thanks"]
    assert (seen(b)[-3][0], b.memory.messages[-3].is_interrupted) == ("Human", True)


async def test_fanout_pipeline_marks_interrupted_replies_and_resumes() -> None:
    agents = interrupted_trio(2)
    pipe = FanoutPipeline(agents)
    run = asyncio.create_task(pipe(Msg("user", "everyone answer", "user")))
    await stop_when_streaming(agents[2])
    results = await run
    assert [m.is_interrupted for m in results] == [False, False, True]
    assert results[2].metadata["pipeline"] == {
        "id": pipe.id,
        "kind": "fanout",
        "position": 2,
        "agent": "Carol",
    }
    agents[2].model.tokens_per_second = 1e6
    again = await pipe.resume("retry", "Carol, in one line.")
    assert [m.get_text_content() for m in again] == ["Alice speaks.", "Bob speaks.", "Carol again."]
    # skip drops the interrupted replies; each agent got its own copy of the input
    agents = interrupted_trio(0)
    run = asyncio.create_task(fanout_pipeline(agents, Msg("user", "q", "user"), enable_gather=True))
    await stop_when_streaming(agents[0])
    results = await run
    assert [m.get_text_content() for m in await resume(results[0], "skip")] == [
        "Bob speaks.",
        "Carol speaks.",
    ]  # type: ignore[union-attr]


async def test_fanout_sequential_mode_with_no_interrupt() -> None:
    agents = [speaker("A", ["a"]), speaker("B", ["b"])]
    results = await fanout_pipeline(agents, Msg("user", "q", "user"), enable_gather=False)
    assert [m.get_text_content() for m in results] == ["a", "b"]
    first, second = agents[0].memory.messages[0], agents[1].memory.messages[0]
    assert first.id == second.id and first is not second  # deep copies of the same message


async def test_running_a_paused_pipeline_again_drops_the_old_pause() -> None:
    agents = interrupted_trio()
    pipe, first = await paused(agents)
    again = await pipe(Msg("user", "start over", "user"))  # Bob is fast now: no pause
    assert isinstance(again, Msg) and not again.is_interrupted and pipe.paused is None
    with pytest.raises(ValueError, match="already resumed"):
        await resume(first, "retry")  # the old pause is gone, and nothing keeps the pipeline
