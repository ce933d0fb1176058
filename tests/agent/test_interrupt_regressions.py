"""Regression tests for the seven interrupt defects of issue 10 (each failed before the fix)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, MessageUpdated, ReplyFinished, ReplyStarted
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit

LONG_TEXT = " ".join(f"word{i}" for i in range(400))
needs_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is 3.11+")


def roles(agent: ReActAgent) -> list[str]:
    return [("interrupted" if m.is_interrupted else m.role) for m in agent.memory.messages]


def record_events(agent: ReActAgent) -> list[Event]:
    seen: list[Event] = []
    agent.subscribe(seen.append)
    return seen


async def resumes(agent: ReActAgent, *expected_in_prompt: str) -> None:
    model = agent.model
    assert isinstance(model, ScriptedModel)
    model.script[len(model.calls) :] = [ScriptedTurn(text="Resumed fine.")]
    reply = await agent(user("Please continue."))
    assert reply.get_text_content() == "Resumed fine." and not reply.is_interrupted
    prompt = [m.get("content") for m in model.calls[-1].messages]
    for text in expected_in_prompt:
        assert text in prompt
    assert_history_valid(agent.memory.messages)


# -- 1. interrupt before the reply task's first step ------------------------------------------
async def test_interrupt_before_first_step_keeps_the_question(make_agent) -> None:
    agent = make_agent(["never streamed"])
    task = asyncio.create_task(agent(user("What is 2+2?")))
    await asyncio.sleep(0)
    assert agent.reply_state == "starting"
    assert await agent.interrupt() is True
    result = await task
    assert result.is_interrupted and result.metadata["interrupted_at"] == "before start"
    assert roles(agent) == ["user", "interrupted"]
    assert agent.memory.messages[0].get_text_content() == "What is 2+2?"
    await resumes(agent, "What is 2+2?")


# -- 2. cancelling the caller (or the reply task) before the first step -----------------------
@needs_311
async def test_caller_cancelled_before_first_step_records_an_interrupted_reply(
    make_agent,
) -> None:
    agent = make_agent(["never streamed"])
    events = record_events(agent)
    caller = asyncio.create_task(agent(user("question")))
    await asyncio.sleep(0)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.sleep(0)
    assert roles(agent) == ["user", "interrupted"]
    assert agent.memory.messages[-1].metadata["interrupted_by"] == "cancelled"
    assert [type(e) for e in events if isinstance(e, (ReplyStarted, ReplyFinished))] == [
        ReplyStarted,
        ReplyFinished,
    ]
    assert not agent.is_replying
    await resumes(agent, "question")


@needs_311
async def test_own_cancellation_before_first_step_as_an_expiring_timeout(make_agent) -> None:
    agent = make_agent(["never streamed"])
    me = asyncio.current_task()
    assert me is not None
    # Runs once agent() has created its reply task, before that task's first step, as an
    # asyncio.timeout() expiring at that moment would.
    asyncio.get_running_loop().call_soon(me.cancel)
    with pytest.raises(asyncio.CancelledError):
        await agent(user("question"))
    me.uncancel()
    assert roles(agent) == ["user", "interrupted"]
    assert agent.memory.messages[-1].metadata["interrupted_by"] == "cancelled"
    await resumes(agent, "question")


async def test_raw_cancel_of_the_reply_task_before_first_step_is_an_interrupt(
    make_agent,
) -> None:
    agent = make_agent(["never streamed"])
    events = record_events(agent)
    task = asyncio.create_task(agent(user("question")))
    await asyncio.sleep(0)
    steer = user("Answer in French instead.")
    assert await agent.interrupt(steer) is True
    agent._reply_task.cancel()  # type: ignore[union-attr]
    result = await task  # the caller was not cancelled: it gets the interrupted message
    assert result.is_interrupted and result.metadata["interrupted_by"] == "interrupt"
    assert roles(agent) == ["user", "interrupted", "user"]
    assert agent.memory.messages[-1].id == steer.id
    await asyncio.sleep(0)
    assert any(isinstance(e, ReplyFinished) and e.interrupted for e in events)


async def test_raw_cancel_before_first_step_never_leaks_cancelled_error(make_agent) -> None:
    agent = make_agent(["never streamed"])
    task = asyncio.create_task(agent(user("question")))
    await asyncio.sleep(0)
    agent._reply_task.cancel()  # type: ignore[union-attr]
    result = await task
    assert result.is_interrupted and result.metadata["interrupted_by"] == "cancelled"
    assert roles(agent) == ["user", "interrupted"]


@needs_311
async def test_steering_message_belongs_to_the_reply_it_was_given_to(make_agent) -> None:
    agent = make_agent(["never streamed", LONG_TEXT], tokens_per_second=500)
    caller = asyncio.create_task(agent(user("first")))
    await asyncio.sleep(0)
    steer = user("steer the first reply")
    assert agent.interrupt_nowait(steer) is True
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert roles(agent) == ["user", "interrupted", "user"]
    # A later, unrelated interrupted reply does not get the message a second time.
    agent.model.script.pop(0)
    task = asyncio.create_task(agent(user("second")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    await agent.interrupt()
    await task
    texts = [m.get_text_content() for m in agent.memory.messages]
    assert texts.count("steer the first reply") == 1
    assert_history_valid(agent.memory.messages)


# -- 3. an interrupt from inside the reply ----------------------------------------------------
def pausing_toolkit(agent_box: list[ReActAgent]) -> Toolkit:
    async def ask_human(question: str) -> str:
        """Pause the agent so a person can answer.

        Args:
            question: what to ask.
        """
        agent_box[0].interrupt_nowait()
        return f"asked: {question}"

    toolkit = Toolkit()
    toolkit.register_tool_function(ask_human)
    return toolkit


async def test_a_tool_that_interrupts_its_own_reply_returns_the_interrupted_message(
    make_agent,
) -> None:
    box: list[ReActAgent] = []
    call = ScriptedToolCall("ask_human", {"question": "which file?"})
    agent = make_agent([ScriptedTurn(tool_calls=[call]), "never"], toolkit=pausing_toolkit(box))
    box.append(agent)
    result = await agent(user("edit the file"))  # not cancelled: must get a Msg, no error
    assert result.is_interrupted
    assert len(agent.model.calls) == 1
    outputs = [
        b.output_text() for m in agent.memory.messages for b in m.get_content_blocks("tool_result")
    ]
    assert "asked: which file?" in outputs
    assert roles(agent) == ["user", "assistant", "system", "interrupted"]
    await resumes(agent)


async def test_a_memory_listener_that_interrupts_returns_the_interrupted_message(
    make_agent,
) -> None:
    agent = make_agent(["hello there", "never"])

    def listener(memory: object) -> None:
        if agent.memory.messages and agent.memory.messages[-1].role == "assistant":
            agent.interrupt_nowait()

    agent.memory.add_listener(listener)
    result = await agent(user("hi"))
    assert result.is_interrupted
    assert roles(agent) == ["user", "assistant", "interrupted"]
    assert_history_valid(agent.memory.messages)


# -- 4. a late interrupt(msg) while handle_interrupt() suspends -------------------------------
async def test_late_interrupt_msg_during_a_suspending_handle_interrupt_is_recorded() -> None:
    agent = SlowHandler("Friday", "sys", ScriptedModel([LONG_TEXT], tokens_per_second=500))
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    assert await agent.interrupt() is True
    await asyncio.sleep(0.01)
    late = user("late instruction")
    assert await agent.interrupt(late) is True
    result = await task
    msgs = agent.memory.messages
    assert msgs[-2].id == result.id and msgs[-1].id == late.id
    too_late = user("after the reply")
    assert await agent.interrupt(too_late) is False
    assert all(m.id != too_late.id for m in agent.memory.messages)


class SlowHandler(ReActAgent):
    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: object) -> Msg:
        await asyncio.sleep(0.05)  # as AgentScope users write: it awaits
        return await super().handle_interrupt(msg)


async def test_interrupt_msg_after_the_interrupted_path_is_refused_not_lost() -> None:
    agent = SlowHandler("Friday", "sys", ScriptedModel([LONG_TEXT], tokens_per_second=500))
    late = user("too late?")
    outcome: list[bool] = []

    def on_event(e: Event) -> None:
        # Runs once the interrupted message is in memory, before the reply task has ended.
        if e.kind == "message_added" and e.msg is not None and e.msg.is_interrupted:
            outcome.append(agent.interrupt_nowait(late))

    agent.subscribe(on_event)
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    await agent.interrupt()
    await task
    await asyncio.sleep(0.01)
    recorded = any(m.id == late.id for m in agent.memory.messages)
    assert outcome == [recorded]  # True only if recorded in this reply; else False, not lost


# -- 5. tool-call ids unique across the whole memory ------------------------------------------
def weather_toolkit() -> Toolkit:
    def weather(city: str) -> str:
        """Weather.

        Args:
            city: the city.
        """
        return f"sunny in {city}"

    def send_email(to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        return f"sent to {to}"

    toolkit = Toolkit()
    toolkit.register_tool_function(weather)
    toolkit.register_tool_function(send_email, needs_approval=True)
    return toolkit


@pytest.mark.parametrize("call_id", ["call_0", ""], ids=["repeated", "omitted"])
async def test_tool_call_ids_are_unique_across_turns(make_agent, call_id: str) -> None:
    turn = [ScriptedTurn(tool_calls=[ScriptedToolCall("weather", {"city": "a"}, id=call_id)])]
    agent = make_agent([*turn, "one", *turn, "two"], toolkit=weather_toolkit())
    await agent(user("first"))
    await agent(user("second"))
    uses = [b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert len(uses) == 2 and len(set(uses)) == 2 and all(uses)
    assert_history_valid(agent.memory.messages)
    renamed = agent.memory.messages[-3].metadata.get("provider_tool_call_ids", {})
    assert list(renamed.values()) == [call_id]


async def test_edited_approval_rewrites_the_call_of_this_turn_not_an_older_one(
    make_agent,
) -> None:
    first = ScriptedToolCall("weather", {"city": "a"}, id="call_0")
    second = ScriptedToolCall("send_email", {"to": "x@y.z"}, id="call_0")
    agent = make_agent(
        [ScriptedTurn(tool_calls=[first]), "ok", ScriptedTurn(tool_calls=[second]), "sent"],
        toolkit=weather_toolkit(),
    )
    await agent(user("weather"))
    task = asyncio.create_task(agent(user("mail")))
    await wait_for_event(agent, lambda e: e.kind == "approval_requested")
    (pending,) = agent.pending_approvals
    agent.approve(pending.call_id, {"to": "boss@y.z"})
    await task
    calls = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert calls[0].name == "weather" and calls[0].input == {"city": "a"}
    assert calls[1].name == "send_email" and calls[1].input == {"to": "boss@y.z"}
    assert_history_valid(agent.memory.messages)


async def test_compression_never_orphans_a_result_when_providers_repeat_ids() -> None:
    from compression_helpers import make

    from nb_hitl.testing import assert_prompt_valid

    turn = ScriptedTurn(tool_calls=[ScriptedToolCall("weather", {"city": "x"}, id="call_0")])
    agent = make(
        [turn, "first answer", turn, "second answer"],
        threshold=1,
        keep_recent=6,
        enable=False,
        toolkit=weather_toolkit(),
    )
    await agent(user("question 0"))
    await agent(user("question 1"))
    # 8 messages; keeping the last 6 puts the boundary between the first call and its result.
    result = await agent.compress_memory(force=True)
    assert result is not None
    assert_prompt_valid(await agent.format_prompt())
    assert_history_valid(agent.memory.select(exclude_mark="compressed"))


# -- 6. interrupted partial messages get normalised ids too -----------------------------------
@pytest.mark.parametrize("call_id", ["call_0", ""], ids=["repeated", "omitted"])
async def test_interrupted_partial_message_ids_are_normalised(make_agent, call_id: str) -> None:
    calls = [
        ScriptedToolCall("weather", {"city": "a"}, id=call_id),
        ScriptedToolCall("weather", {"city": "b"}, id=call_id),
        ScriptedToolCall("weather", {"city": "c" * 400}, id="call_9"),
    ]
    before = ScriptedToolCall("weather", {"city": "z"}, id=call_id)
    agent = make_agent(
        [ScriptedTurn(tool_calls=[before]), "done", ScriptedTurn(tool_calls=calls)],
        toolkit=weather_toolkit(),
        tokens_per_second=400,
    )
    await agent(user("first"))
    task = asyncio.create_task(agent(user("three cities")))

    def third_call_streaming(e: Event) -> bool:
        if not isinstance(e, MessageUpdated) or e.msg is None:
            return False
        uses = e.msg.get_content_blocks("tool_use")
        return len(uses) == 3 and len(uses[2].raw_input or "") > 16

    await wait_for_event(agent, third_call_streaming)
    await agent.interrupt()
    result = await task
    assert result.metadata["interrupted_at"] == "streaming tool-call arguments"
    uses = [b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert len(uses) == 3 and len(set(uses)) == 3 and all(uses)
    assert_history_valid(agent.memory.messages)


# -- 7. a tool that swallows CancelledError ---------------------------------------------------
def stubborn_toolkit(started: asyncio.Event, ran: list[str]) -> Toolkit:
    async def stubborn() -> str:
        """Ignores cancellation."""
        started.set()
        ran.append("stubborn")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "swallowed"
        return "done"

    async def later() -> str:
        """Runs after stubborn."""
        ran.append("later")
        return "later done"

    toolkit = Toolkit()
    toolkit.register_tool_function(stubborn)
    toolkit.register_tool_function(later)
    return toolkit


def stubborn_agent(make_agent, started: asyncio.Event, ran: list[str]) -> ReActAgent:
    calls = [ScriptedToolCall("stubborn", {}), ScriptedToolCall("later", {})]
    return make_agent(
        [ScriptedTurn(tool_calls=calls), "never reached", "never either"],
        toolkit=stubborn_toolkit(started, ran),
    )


async def test_after_a_swallowed_interrupt_later_tool_calls_never_start(make_agent) -> None:
    started, ran = asyncio.Event(), []
    agent = stubborn_agent(make_agent, started, ran)
    task = asyncio.create_task(agent(user("go")))
    await asyncio.wait_for(started.wait(), 10)
    await agent.interrupt()
    result = await task
    assert result.is_interrupted
    assert ran == ["stubborn"]
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert results[0].output_text() == "swallowed"
    assert results[1].is_interrupted and "not run" in results[1].output_text()
    assert len(agent.model.calls) == 1
    assert_history_valid(agent.memory.messages)


@needs_311
async def test_a_swallowed_caller_cancellation_is_redelivered_at_the_next_checkpoint(
    make_agent,
) -> None:
    started, ran = asyncio.Event(), []
    agent = stubborn_agent(make_agent, started, ran)
    caller = asyncio.create_task(agent(user("go")))
    await asyncio.wait_for(started.wait(), 10)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert ran == ["stubborn"]
    assert len(agent.model.calls) == 1  # no further model call
    last = agent.memory.messages[-1]
    assert last.is_interrupted and last.metadata["interrupted_by"] == "cancelled"
    assert_history_valid(agent.memory.messages)
    assert not agent.is_replying


@needs_311
async def test_a_swallowed_raw_cancel_of_the_reply_task_ends_it_interrupted(make_agent) -> None:
    started, ran = asyncio.Event(), []
    agent = stubborn_agent(make_agent, started, ran)
    task = asyncio.create_task(agent(user("go")))
    await asyncio.wait_for(started.wait(), 10)
    agent._reply_task.cancel()  # type: ignore[union-attr]
    result = await task  # this caller was not cancelled: no CancelledError
    assert result.is_interrupted and result.metadata["interrupted_by"] == "cancelled"
    assert ran == ["stubborn"] and len(agent.model.calls) == 1
    assert_history_valid(agent.memory.messages)
