"""Interrupts landing anywhere leave a valid history, and the next reply works."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

import pytest

from nb_hitl.agent import DEFAULT_INTERRUPT_TEXT, ReActAgent
from nb_hitl.events import (
    Event,
    Interrupted,
    MessageAdded,
    MessageUpdated,
    ReplyFinished,
    ToolCallStarted,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit

LONG_TEXT = " ".join(f"word{i}" for i in range(400))


def check_after_interrupt(agent: ReActAgent, result: Msg) -> None:
    """The invariants every interrupt must leave behind."""
    assert result.metadata["_is_interrupted"] is True
    assert result.get_text_content() == DEFAULT_INTERRUPT_TEXT
    msgs = agent.memory.messages
    assert msgs[-1].id == result.id
    assert sum(m.is_interrupted for m in msgs) >= 1
    assert_history_valid(msgs)
    assert not agent.is_replying
    assert agent._reply_task is None


async def resume_works(agent: ReActAgent) -> None:
    assert isinstance(agent.model, ScriptedModel)
    agent.model.script.append(ScriptedTurn(text="Resumed fine."))
    reply = await agent(user("Please continue where you left off."))
    assert reply.get_text_content() == "Resumed fine."
    assert not reply.is_interrupted
    assert_history_valid(agent.memory.messages)
    # the resumed prompt carried the earlier context
    prompt = agent.model.calls[-1].messages
    assert any(m.get("content") == DEFAULT_INTERRUPT_TEXT for m in prompt)


def tools_with_gates(names: list[str]) -> tuple[Toolkit, dict[str, asyncio.Event]]:
    toolkit = Toolkit()
    started: dict[str, asyncio.Event] = {}
    for name in names:
        event = asyncio.Event()
        started[name] = event

        def make(ev: asyncio.Event, label: str):
            async def tool(x: int = 0) -> str:
                """A slow async tool.

                Args:
                    x: a number.
                """
                ev.set()
                await asyncio.sleep(30)
                return f"{label} done"

            return tool

        toolkit.register_tool_function(make(event, name), name=name)
    return toolkit, started


async def test_interrupt_during_streamed_text(make_agent) -> None:
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    task = asyncio.create_task(agent(user("Tell me a long story.")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated) and e.tokens >= 10)
    assert await agent.interrupt() is True
    result = await task
    check_after_interrupt(agent, result)
    partial = agent.memory.messages[1]
    assert partial.metadata["_partial"] is True
    text = partial.get_text_content() or ""
    assert text and LONG_TEXT.startswith(text) and len(text) < len(LONG_TEXT)
    assert result.metadata["interrupted_at"] == "streaming"
    assert result.metadata["partial_msg_id"] == partial.id
    await resume_works(agent)


async def test_interrupt_before_reply_task_starts(make_agent) -> None:
    agent = make_agent(["never streamed"])
    task = asyncio.create_task(agent(user("hi")))
    await asyncio.sleep(0)  # agent() ran up to awaiting its reply task, which has not stepped
    assert agent.is_replying and agent.reply_state == "starting"
    assert await agent.interrupt() is True
    result = await task
    check_after_interrupt(agent, result)
    assert len(agent.model.calls) == 0  # the model was never called
    assert result.metadata["interrupted_at"] == "before start"
    agent.model.script.clear()
    await resume_works(agent)


async def test_interrupt_when_idle_returns_false(make_agent) -> None:
    agent = make_agent(["hello"])
    assert await agent.interrupt() is False
    await agent(user("hi"))
    assert await agent.interrupt() is False
    assert agent.interrupt_threadsafe().result(timeout=1) is False
    assert [m.role for m in agent.memory.messages] == ["user", "assistant"]


async def test_interrupt_during_streamed_tool_call_arguments(make_agent) -> None:
    call = ScriptedToolCall("lookup", {"query": "x" * 400})
    toolkit, _ = tools_with_gates(["lookup"])
    agent = make_agent(
        [ScriptedTurn(text="Looking it up.", tool_calls=[call])],
        toolkit=toolkit,
        tokens_per_second=300,
    )
    task = asyncio.create_task(agent(user("find x")))

    def mid_arguments(e: object) -> bool:
        if not isinstance(e, MessageUpdated) or e.msg is None:
            return False
        uses = e.msg.get_content_blocks("tool_use")
        return bool(uses) and len(uses[0].raw_input or "") > 40

    await wait_for_event(agent, mid_arguments)
    await agent.interrupt()
    result = await task
    check_after_interrupt(agent, result)
    assert result.metadata["interrupted_at"] == "streaming tool-call arguments"
    partial = agent.memory.messages[1]
    assert partial.get_text_content() == "Looking it up."
    assert partial.get_content_blocks("tool_use") == []  # half-sent arguments dropped
    assert partial.metadata["dropped_tool_calls"] == 1
    await resume_works(agent)


async def test_interrupt_between_reasoning_and_acting(make_agent) -> None:
    toolkit, started = tools_with_gates(["lookup"])
    agent = make_agent(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("lookup", {"x": 1})])], toolkit=toolkit
    )

    def on_event(e: object) -> None:
        if isinstance(e, MessageAdded) and e.msg and e.msg.has_content_blocks("tool_use"):
            agent.interrupt_nowait()

    agent.subscribe(on_event)
    result = await agent(user("go"))
    check_after_interrupt(agent, result)
    assert result.metadata["interrupted_at"] == "between reasoning and acting"
    assert not started["lookup"].is_set()
    tool_result = agent.memory.messages[2].get_content_blocks("tool_result")[0]
    assert tool_result.is_interrupted and "not run" in tool_result.output_text()
    await resume_works(agent)


@pytest.mark.parametrize("which", [0, 1, 2])
async def test_interrupt_inside_sequential_tool(make_agent, which: int) -> None:
    names = ["first", "second", "third"]
    toolkit, started = tools_with_gates(names)

    async def quick(x: int = 0) -> str:
        return "quick"

    # Tools before the interrupted one finish quickly.
    for name in names[:which]:
        toolkit.remove_tool_function(name)
        toolkit.register_tool_function(quick, name=name)
    calls = [ScriptedToolCall(n, {"x": i}) for i, n in enumerate(names)]
    agent = make_agent([ScriptedTurn(text="Three steps.", tool_calls=calls)], toolkit=toolkit)
    task = asyncio.create_task(agent(user("do three things")))
    await asyncio.wait_for(started[names[which]].wait(), 10)
    await agent.interrupt()
    result = await task
    check_after_interrupt(agent, result)
    assert result.metadata["interrupted_at"] == f"tool {names[which]}"
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert [r.id for r in results] == [c.id for c in calls]
    for i, r in enumerate(results):
        if i < which:
            assert r.output_text() == "quick" and not r.is_interrupted
        elif i == which:
            assert r.is_interrupted and "before it finished" in r.output_text()
        else:
            assert r.is_interrupted and "not run" in r.output_text()
    await resume_works(agent)


async def test_interrupt_inside_parallel_tools(make_agent) -> None:
    toolkit, started = tools_with_gates(["slow_a", "slow_b"])

    async def fast(x: int = 0) -> str:
        return "fast result"

    toolkit.register_tool_function(fast)
    calls = [ScriptedToolCall(n, {"x": 1}) for n in ("slow_a", "fast", "slow_b")]
    agent = make_agent([ScriptedTurn(tool_calls=calls)], toolkit=toolkit, parallel_tool_calls=True)
    task = asyncio.create_task(agent(user("parallel please")))
    await asyncio.wait_for(asyncio.gather(started["slow_a"].wait(), started["slow_b"].wait()), 10)
    await asyncio.sleep(0.05)
    await agent.interrupt()
    result = await task
    check_after_interrupt(agent, result)
    results = {
        b.name: b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")
    }
    assert results["fast"].output_text() == "fast result"
    assert results["slow_a"].is_interrupted and results["slow_b"].is_interrupted
    await resume_works(agent)


async def test_interrupt_inside_sync_tool_does_not_wait_for_thread(make_agent) -> None:
    release = threading.Event()
    entered = threading.Event()
    finished = threading.Event()

    def blocking(seconds: float) -> str:
        """A sync tool that blocks its thread.

        Args:
            seconds: ignored; the test releases it.
        """
        entered.set()
        release.wait(20)
        finished.set()
        return "late result"

    toolkit = Toolkit()
    toolkit.register_tool_function(blocking)
    agent = make_agent(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("blocking", {"seconds": 5})])],
        toolkit=toolkit,
    )
    task = asyncio.create_task(agent(user("block")))
    assert await asyncio.to_thread(entered.wait, 10)
    # The loop kept running while the sync tool blocked its thread: other tasks progress.
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.1)
    ticking.cancel()
    assert ticks >= 3 and agent.is_replying and not finished.is_set()
    await agent.interrupt()
    result = await task
    assert not finished.is_set()  # returned without waiting for the thread
    check_after_interrupt(agent, result)
    release.set()
    await asyncio.sleep(0.05)
    # The late result is discarded: still one result for the call, the interrupted one.
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert len(results) == 1 and results[0].is_interrupted
    await resume_works(agent)


async def test_double_interrupt_during_handle_interrupt(make_agent) -> None:
    class SlowHandler(ReActAgent):
        calls = 0

        async def handle_interrupt(self, msg: Msg | None = None, **kwargs: object) -> Msg:
            type(self).calls += 1
            await asyncio.sleep(0.1)  # a second interrupt arrives while this runs
            return await super().handle_interrupt(msg)

    agent = SlowHandler("Friday", "sys", ScriptedModel([LONG_TEXT], tokens_per_second=500))
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    assert await agent.interrupt() is True
    await asyncio.sleep(0.02)
    assert agent.reply_state == "interrupting" and agent._reply.stopped  # type: ignore[union-attr]
    assert await agent.interrupt() is True  # absorbed
    agent._reply_task.cancel()  # even a raw cancel of the task is absorbed  # type: ignore[union-attr]
    result = await task
    assert SlowHandler.calls == 1
    check_after_interrupt(agent, result)
    assert sum(m.is_interrupted for m in agent.memory.messages) == 1
    await resume_works(agent)


async def streaming_caller(make_agent) -> tuple[Any, asyncio.Task[Any], asyncio.Task[Any]]:
    """An agent streaming a long answer, the task awaiting ``agent()``, and its reply task."""
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    caller = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    reply_task = agent._reply_task
    assert reply_task is not None
    return agent, caller, reply_task


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the direct-await path is Python 3.11+")
async def test_the_caller_returns_in_the_loop_iteration_the_reply_task_ends(make_agent) -> None:
    # The reply runs in a task of its own, yet after interrupt() the caller of agent() resumes
    # right behind that task, in the same loop iteration, not one iteration later.
    agent, caller, reply_task = await streaming_caller(make_agent)
    assert await agent.interrupt() is True
    await asyncio.sleep(0)  # one iteration: the reply task ends, and the caller with it
    assert reply_task.done() and caller.done()
    check_after_interrupt(agent, caller.result())
    await resume_works(agent)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is Python 3.11+")
async def test_a_cancel_of_the_caller_reaches_the_reply_task_at_once(make_agent) -> None:
    agent, caller, reply_task = await streaming_caller(make_agent)
    caller.cancel()  # as when the caller awaited the reply task itself
    assert reply_task.cancelling() == 1  # type: ignore[attr-defined,unused-ignore]
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert agent.memory.messages[-1].metadata["interrupted_by"] == "cancelled"
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize("direct_await", [True, False], ids=["direct", "shielded-3.10-path"])
async def test_cancelling_the_awaiting_caller_interrupts_gracefully(
    make_agent, monkeypatch: pytest.MonkeyPatch, direct_await: bool
) -> None:
    import nb_hitl.agent._base as base

    if direct_await and not base._DIRECT_AWAIT:
        pytest.skip("direct await needs Python 3.11")
    monkeypatch.setattr(base, "_DIRECT_AWAIT", direct_await)
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    finished: list[ReplyFinished] = []
    agent.subscribe(lambda e: finished.append(e) if isinstance(e, ReplyFinished) else None)
    caller = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert caller.cancelled()  # the caller still sees its cancellation
    await asyncio.sleep(0)
    assert finished and finished[0].interrupted
    interrupted = agent.memory.messages[-1]
    assert interrupted.is_interrupted
    assert interrupted.metadata["interrupted_at"] == "streaming"
    assert interrupted.metadata["interrupted_by"] == "cancelled"
    assert_history_valid(agent.memory.messages)
    await resume_works(agent)


async def test_interrupt_does_not_cancel_or_confuse_the_caller(make_agent) -> None:
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    me = asyncio.current_task()
    assert me is not None

    async def interrupt_soon() -> None:
        await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
        await agent.interrupt()

    helper = asyncio.create_task(interrupt_soon())
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(20):
            result = await agent(user("talk"))
        assert me.cancelling() == 0
        # TaskGroup in the caller still works after the interrupt
        async with asyncio.TaskGroup() as tg:
            tg.create_task(asyncio.sleep(0))
    else:
        result = await asyncio.wait_for(agent(user("talk")), 20)
    await helper
    check_after_interrupt(agent, result)


async def test_concurrent_call_raises_agent_busy_and_leaves_memory(make_agent) -> None:
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    task = asyncio.create_task(agent(user("first")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    before = [m.id for m in agent.memory.messages]
    with pytest.raises(AgentBusyError, match="already replying"):
        await agent(user("second"))
    assert [m.id for m in agent.memory.messages] == before
    await agent.interrupt()
    await task
    assert all(m.get_text_content() != "second" for m in agent.memory.messages)


async def test_interrupt_msg_is_recorded_and_answered_next(make_agent) -> None:
    agent = make_agent([LONG_TEXT, "Switching to French."], tokens_per_second=500)
    task = asyncio.create_task(agent(user("talk in English")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    redirect = user("Actually, answer in French.")
    await agent.interrupt(redirect)
    result = await task
    assert result.is_interrupted
    msgs = agent.memory.messages
    assert msgs[-1].id == redirect.id and msgs[-2].id == result.id
    assert_history_valid(msgs)
    reply = await agent()  # no message: answers the recorded one
    assert reply.get_text_content() == "Switching to French."
    last_prompt = agent.model.calls[-1].messages
    assert last_prompt[-1]["content"] == "Actually, answer in French."


async def test_interrupt_threadsafe_from_another_thread(make_agent) -> None:
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    outcome: list[bool] = []
    thread = threading.Thread(target=lambda: outcome.append(agent.interrupt_threadsafe().result(5)))
    thread.start()
    result = await task
    await asyncio.to_thread(thread.join)
    assert outcome == [True]
    check_after_interrupt(agent, result)


async def test_interrupted_event_and_reply_finished_are_emitted(make_agent) -> None:
    agent = make_agent([LONG_TEXT], tokens_per_second=500)
    seen: list[object] = []
    agent.subscribe(seen.append)
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated))
    await agent.interrupt()
    result = await task
    await asyncio.sleep(0)
    kinds = [type(e).__name__ for e in seen]
    assert kinds[0] == "ReplyStarted"
    assert "Interrupted" in kinds and kinds[-1] == "ReplyFinished"
    interrupted = next(e for e in seen if isinstance(e, Interrupted))
    assert interrupted.msg is not None and interrupted.msg.id == result.id
    assert not any(isinstance(e, ToolCallStarted) for e in seen)


async def test_with_nobody_listening_the_interrupt_builds_no_events(
    make_agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Events are built for listeners only (the interrupt path runs cold, see _reply_ended);
    # what used to ride on them still happens: the reply's own rules end with it, and its
    # record notes what it said (what a hub's participants observe of it).
    toolkit, _ = tools_with_gates(["send_mail"])
    agent = make_agent([LONG_TEXT], toolkit=toolkit, tokens_per_second=500)
    rule = agent.permissions.allow("send_mail", scope="reply")
    task = asyncio.create_task(agent(user("talk")))
    await wait_for_event(agent, lambda e: isinstance(e, MessageUpdated) and e.tokens >= 5)
    assert not agent._listened()  # wait_for_event has unsubscribed
    built: list[str] = []
    real = Event.__setattr__

    def counted(event: Event, name: str, value: object) -> None:
        built.append(type(event).__name__)
        real(event, name, value)

    monkeypatch.setattr(Event, "__setattr__", counted)
    assert await agent.interrupt() is True
    result = await task
    monkeypatch.undo()
    assert built == []
    check_after_interrupt(agent, result)
    partial = agent.memory.messages[1]
    assert partial.metadata["_partial"] is True
    assert rule not in agent.permissions.rules
    assert agent._reply is not None and agent._reply.said == [partial]


async def test_seed_walkthrough_flow() -> None:
    """The flow of the AgentScope walkthrough, unchanged apart from the package name."""
    from nb_hitl.demo import demo_toolkit

    agent = ReActAgent(
        name="Friday",
        sys_prompt="You are a helpful assistant named Friday.",
        model=ScriptedModel.demo(tokens_per_second=50),
        toolkit=demo_toolkit(),
    )
    await agent.memory.add(Msg("User", "Explain how interrupting an agent works.", "user"))
    task = asyncio.create_task(agent())
    await asyncio.sleep(1.5)
    await agent.interrupt()
    result = await task
    assert "[Interrupted]" in (result.get_text_content() or "")
    assert result.metadata.get("_is_interrupted") is True
    assert_history_valid(agent.memory.messages)
    resumed = await agent(Msg("User", "Please continue where you left off.", "user"))
    assert not resumed.metadata.get("_is_interrupted")
    assert "Picking up where I left off" in (resumed.get_text_content() or "")
    assert_history_valid(agent.memory.messages)


async def test_interrupt_inside_a_streaming_tool_keeps_its_partial_output(make_agent) -> None:
    from collections.abc import AsyncGenerator

    from nb_hitl.tool import ToolResponse

    halfway = asyncio.Event()

    async def download(pages: int) -> AsyncGenerator[ToolResponse, None]:
        """Stream pages.

        Args:
            pages: how many.
        """
        text = ""
        for i in range(pages):
            text += f"page {i}\n"
            yield ToolResponse.text(text)
            if i == 1:
                halfway.set()
            await asyncio.sleep(0.05 if i < 1 else 30)

    toolkit = Toolkit()
    toolkit.register_tool_function(download)
    agent = make_agent(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("download", {"pages": 5})])], toolkit=toolkit
    )
    task = asyncio.create_task(agent(user("download")))
    await asyncio.wait_for(halfway.wait(), 10)
    await agent.interrupt()
    result = await task
    check_after_interrupt(agent, result)
    (tool_result,) = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert tool_result.is_interrupted
    assert tool_result.output_text().endswith("Partial output:\npage 0\npage 1\n")
    await resume_works(agent)
