"""The kernel-wide budget's redraws: fair turns among streaming messages, final text intact.

``RedrawBudget`` / ``redraw_budget`` are the former names of the one budget
(``_budget.IopubBudget``), whose one token bucket also paces every panel's batches."""

from __future__ import annotations

import asyncio
import html as html_lib
import re
import time

import ipywidgets as w
import pytest
from widget_helpers import until

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.pipeline import FanoutPipeline, MsgHub
from nb_hitl.widgets import ChatWidget, HubPanel
from nb_hitl.widgets._live_rows import LiveRow
from nb_hitl.widgets._redraw import REDRAWS_PER_SECOND, RedrawBudget, redraw_budget
from nb_hitl.widgets._transcript import Entry


class Stream:
    """A streamer that always has another delta: asks again right after each redraw."""

    def __init__(self, budget: RedrawBudget, interval: float = 0.0) -> None:
        self.budget = budget
        self.interval = interval
        self.last_flush = 0.0
        self.draws = 0
        self.open = True

    def flush(self) -> None:
        self.draws += 1
        self.last_flush = time.monotonic()
        if self.open:
            self.budget.request(self, self.last_flush + self.interval)


async def test_streams_share_the_budget_in_fair_turns() -> None:
    budget = RedrawBudget(asyncio.get_running_loop(), per_second=400)
    streams = [Stream(budget) for _ in range(12)]
    for s in streams:
        budget.request(s, 0.0)
    await until(lambda: budget.granted >= 240, what="240 redraws")
    for s in streams:
        s.open = False
    draws = [s.draws for s in streams]
    # least recently drawn first: nobody is more than one turn ahead of anybody else
    assert max(draws) - min(draws) <= 1, draws
    assert sum(draws) == budget.granted


async def test_a_slow_streamer_is_not_starved_by_fast_ones() -> None:
    budget = RedrawBudget(asyncio.get_running_loop(), per_second=200)
    fast = [Stream(budget) for _ in range(20)]
    late = Stream(budget)
    for s in fast:
        budget.request(s, 0.0)
    await until(lambda: budget.granted >= 60)
    budget.request(late, 0.0)  # joins while the others use the whole budget
    granted = budget.granted
    await until(lambda: late.draws >= 1, what="the late stream's first redraw")
    # it is served before any stream gets a second turn after it joined
    assert budget.granted - granted <= len(fast) + 1
    for s in [*fast, late]:
        s.open = False


async def test_no_shared_limit_redraws_each_stream_at_its_own_rate() -> None:
    budget = RedrawBudget(asyncio.get_running_loop(), per_second=None)
    streams = [Stream(budget) for _ in range(5)]
    for s in streams:
        budget.request(s, 0.0)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert all(s.draws >= 1 for s in streams)  # nobody waited for a token
    for s in streams:
        s.open = False
    await asyncio.sleep(0)


async def test_cancel_drops_a_waiting_redraw_and_a_repeat_request_keeps_its_place() -> None:
    budget = RedrawBudget(asyncio.get_running_loop(), per_second=100)
    a, b = Stream(budget), Stream(budget)
    a.open = b.open = False
    budget.request(a, 0.0)
    budget.request(a, 0.0)  # already waiting: one redraw, not two
    budget.request(b, 0.0)
    budget.cancel(b)
    assert budget.waiting == 1
    await until(lambda: a.draws == 1)
    await asyncio.sleep(0.05)
    assert (a.draws, b.draws) == (1, 0)


def test_a_bad_rate_says_what_to_pass() -> None:
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(ValueError, match="or None for no budget"):
            RedrawBudget(loop, per_second=0)
        with pytest.raises(ValueError, match="or None for no budget"):
            RedrawBudget(loop).set_rate(-1)
    finally:
        loop.close()


def in_order(widget: w.Widget) -> list[str]:
    """The HTML values under ``widget`` in page order."""
    if isinstance(widget, w.HTML):
        return [widget.value]
    return [v for child in getattr(widget, "children", ()) for v in in_order(child)]


def row_matches(entry: Entry | None, text: str) -> bool:
    """The row of a finished message reads exactly ``text``, as the page holds it."""
    assert entry is not None and entry.msg is not None
    assert entry.msg.get_text_content() == text
    memory = " ".join(text.split())
    if isinstance(entry.view, LiveRow):  # still streaming: not finished
        return False
    drawn = entry.drawn
    assert drawn is not None
    body = html_lib.unescape(re.sub(r"<[^>]+>", " ", drawn.drawn_html()))
    return memory in " ".join(body.split())


def story(i: int) -> str:
    paras = [" ".join(f"c{i}p{p}w{k}" for k in range(60)) for p in range(6)]
    return "\n\n".join(paras)


async def test_many_chats_on_a_tight_budget_end_with_their_memorys_text() -> None:
    budget = redraw_budget()
    budget.set_rate(60)  # far fewer messages than 30 streams want: most deltas are skipped
    try:
        agents = [
            ReActAgent(f"A{i}", "sys", ScriptedModel([story(i)], tokens_per_second=300))
            for i in range(30)
        ]
        chats = [ChatWidget(a) for a in agents]
        granted, merged = budget.granted, budget.merged
        for chat in chats:
            chat.send("go")
        await until(lambda: all(c.state == "idle" for c in chats), timeout=60)
        assert budget.granted > granted  # the streams were drawn through the shared budget
        assert budget.merged > merged  # and the panels' waiting batches took in newer ops
        for agent, chat in zip(agents, chats, strict=True):
            final = agent.memory.messages[-1]
            assert row_matches(chat.transcript.get(final.id), final.get_text_content() or "")
        await until(lambda: budget.backlog == 0, timeout=60, what="every batch sent")
        for chat in chats:
            chat.close()
    finally:
        budget.set_rate(None)
        budget.set_rate(REDRAWS_PER_SECOND)


async def test_hub_rows_streaming_at_once_end_with_each_speakers_memory() -> None:
    budget = redraw_budget()
    budget.set_rate(10)
    try:
        agents = [
            ReActAgent(f"S{i}", "sys", ScriptedModel([story(i)], tokens_per_second=2_000))
            for i in range(12)
        ]
        panel = HubPanel(MsgHub(agents))
        panel.start(FanoutPipeline(agents), msg=Msg("Host", "Go.", "user"))
        await panel.wait()
        for agent in agents:
            final = agent.memory.messages[-1]
            assert row_matches(panel.transcript.get(final.id), final.get_text_content() or "")
        panel.close()
    finally:
        budget.set_rate(REDRAWS_PER_SECOND)


def test_the_budget_and_the_pacer_are_one_budget_with_one_token_bucket() -> None:
    from nb_hitl.widgets._budget import IopubBudget, TokenBucket, iopub_budget
    from nb_hitl.widgets._pacer import CommPacer, comm_pacer

    assert RedrawBudget is CommPacer is IopubBudget
    loop = asyncio.new_event_loop()
    try:
        budget = redraw_budget(loop)
        assert comm_pacer(loop) is budget is iopub_budget(loop)
        assert isinstance(budget._bucket, TokenBucket) and budget.per_second == REDRAWS_PER_SECOND
        budget.set_rate(None)
        assert budget.per_second is None and budget._bucket.ready()
    finally:
        loop.close()
    bucket = TokenBucket(per_second=10, burst=2)
    bucket.refill(now=bucket._refilled)
    bucket.take()
    bucket.take()
    assert not bucket.ready() and bucket.wait() == pytest.approx(0.1)
    bucket.refill(now=bucket._refilled + 0.05)
    assert bucket.wait() == pytest.approx(0.05)
    bucket.refill(now=bucket._refilled + 10)
    assert bucket.tokens == 2  # never more than the burst
    unlimited = TokenBucket(per_second=None, burst=1)
    unlimited.take()
    assert unlimited.ready() and unlimited.wait() == 0
