"""Interrupting a reply stops the background tool tasks it started, unless told to spare them."""

from __future__ import annotations

import asyncio

from nb_hitl.agent import ReActAgent
from nb_hitl.events import ToolResultReady
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import wait_for_event
from nb_hitl.tool import Toolkit


def crawler_agent(steps: list[str]) -> ReActAgent:
    toolkit = Toolkit()

    async def crawl(site: str) -> str:
        """Crawl a site for a long time.

        Args:
            site: which.
        """
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            steps.append(f"crawl {site} cancelled")
            raise
        return "crawled"

    async def index(site: str) -> str:
        """Index a site (keeps going after an interrupt).

        Args:
            site: which.
        """
        await asyncio.sleep(0.05)
        steps.append(f"index {site} done")
        return "indexed"

    toolkit.register_tool_function(crawl, async_execution=True)
    toolkit.register_tool_function(index, async_execution=True, outlive_reply=True)
    turn = ScriptedTurn(
        tool_calls=[
            ScriptedToolCall("crawl", {"site": "a"}, id="c1"),
            ScriptedToolCall("index", {"site": "a"}, id="i1"),
        ]
    )
    script = [turn, ScriptedTurn(text="waiting " * 200)]
    return ReActAgent("Friday", "T.", ScriptedModel(script, tokens_per_second=200), toolkit=toolkit)


async def test_an_interrupt_cancels_the_replys_background_tasks_but_spares_outliving_ones() -> None:
    steps: list[str] = []
    agent = crawler_agent(steps)
    task = asyncio.create_task(agent(Msg("User", "crawl", "user")))
    await wait_for_event(
        agent,
        lambda e: isinstance(e, ToolResultReady) and e.result is not None and e.result.id == "i1",
    )  # type: ignore[attr-defined]
    running = agent.toolkit.background_tasks
    assert [t.tool_name for t in running] == ["crawl", "index"]
    assert all(t.owner == agent._reply_id for t in running)
    crawl_id = running[0].task_id
    await agent.interrupt()
    await task
    assert steps == ["crawl a cancelled"]
    assert [t.tool_name for t in agent.toolkit.background_tasks] == ["index"]
    result = await agent.toolkit.view_task(crawl_id)
    assert result.is_interrupted and "cancelled" in result.get_text()
    await asyncio.sleep(0.1)
    assert steps == ["crawl a cancelled", "index a done"]
    assert agent.toolkit.background_tasks == []


async def test_each_background_task_can_be_stopped_on_its_own() -> None:
    steps: list[str] = []
    agent = crawler_agent(steps)
    changes: list[int] = []
    unwatch = agent.toolkit.watch_background(
        lambda: changes.append(len(agent.toolkit.background_tasks))
    )
    task = asyncio.create_task(agent(Msg("User", "crawl", "user")))
    await wait_for_event(
        agent,
        lambda e: isinstance(e, ToolResultReady) and e.result is not None and e.result.id == "i1",
    )  # type: ignore[attr-defined]
    crawl = agent.toolkit.background_tasks[0]
    assert agent.toolkit.stop_background(crawl.task_id)
    await asyncio.sleep(0.01)
    assert steps == ["crawl a cancelled"] and agent.is_replying  # the reply goes on
    assert not agent.toolkit.stop_background(crawl.task_id)  # not running any more
    await agent.interrupt()
    await task
    await asyncio.sleep(0.1)
    unwatch()
    assert changes[:2] == [1, 2] and changes[-1] == 0
