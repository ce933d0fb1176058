"""Events: every subscriber gets every event; slow or failing ones never hurt the agent."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import pickle

import pytest

from nb_hitl.events import Event, EventBus, MessageUpdated, ReplyStarted
from nb_hitl.testing import user_msg as user


async def test_sync_and_async_subscribers_receive_events_in_order(make_agent) -> None:
    agent = make_agent(["one two three"])
    sync_seen: list[str] = []
    async_seen: list[str] = []

    async def slow(event: Event) -> None:
        await asyncio.sleep(0.01)
        async_seen.append(event.kind)

    agent.subscribe(lambda e: sync_seen.append(e.kind))
    agent.subscribe(slow)
    await agent(user("hi"))
    await asyncio.sleep(0)
    assert sync_seen[0] == "reply_started" and sync_seen[-1] == "reply_finished"
    assert sync_seen.count("message_updated") == 4
    for _ in range(200):
        if len(async_seen) == len(sync_seen):
            break
        await asyncio.sleep(0.01)
    assert async_seen == sync_seen


async def test_failing_subscriber_does_not_break_the_agent(
    make_agent, caplog: pytest.LogCaptureFixture
) -> None:
    agent = make_agent(["fine"])

    def broken(event: Event) -> None:
        raise ValueError("subscriber bug")

    sub = agent.subscribe(broken)
    with caplog.at_level(logging.WARNING, logger="nb_hitl.events"):
        reply = await agent(user("hi"))
        await asyncio.sleep(0)
    assert reply.get_text_content() == "fine"
    assert sub.failures > 3
    assert len([r for r in caplog.records if "subscriber bug" in r.getMessage()]) == 3


async def test_backlog_sheds_oldest_message_updates_first() -> None:
    bus = EventBus()
    blocker = asyncio.Event()
    got: list[Event] = []

    async def stuck(event: Event) -> None:
        await blocker.wait()
        got.append(event)

    sub = bus.subscribe(stuck, max_pending=5)
    bus.emit(ReplyStarted("a", "r"))
    await asyncio.sleep(0)  # the first event is now being handled
    for i in range(20):
        bus.emit(MessageUpdated("a", "r", None, str(i)))
    assert len(sub.pending) == 5 and sub.dropped == 15
    blocker.set()
    await asyncio.sleep(0.01)
    assert [getattr(e, "delta", None) for e in got[1:]] == ["15", "16", "17", "18", "19"]


async def test_events_iterator(make_agent) -> None:
    agent = make_agent(["a b"])
    kinds: list[str] = []

    async def consume() -> None:
        async for event in agent.events():
            kinds.append(event.kind)
            if event.kind == "reply_finished":
                return

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0)
    await agent(user("x"))
    await asyncio.wait_for(consumer, 5)
    assert kinds[0] == "reply_started" and kinds[-1] == "reply_finished"


def test_events_stay_frozen_like_a_frozen_dataclass() -> None:
    event = MessageUpdated("a", "r1", user("hi"), delta="x")
    for name in ("delta", "agent_name", "kind", "not_a_field"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(event, name, "changed")
    with pytest.raises(dataclasses.FrozenInstanceError):
        del event.delta
    assert event.delta == "x"
    assert vars(event) == {
        "agent_name": "a",
        "reply_id": "r1",
        "msg": event.msg,
        "delta": "x",
        "tokens": 0,
    }
    copied = dataclasses.replace(event, delta="y")
    assert (copied.delta, copied.msg) == ("y", event.msg)
    assert copy.deepcopy(event) == event
    assert pickle.loads(pickle.dumps(ReplyStarted("a", None))) == ReplyStarted("a", None)
