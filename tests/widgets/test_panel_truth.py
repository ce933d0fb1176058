"""What the panel says is true: error cards, what stopped a reply, edited calls, approval
waits, the explorer's wording (issue 22, "Says something false"). Real agents on ScriptedModel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_approval_card import agent_with, sql_turn
from widget_helpers import act, all_html, counted, until

from nb_hitl._render import DEFAULT_INTERRUPT_TEXT, msg_html
from nb_hitl.agent import CompressionConfig, FixedSummary, ReActAgent
from nb_hitl.agent._base import DEFAULT_INTERRUPT_TEXT as AGENT_INTERRUPT_TEXT
from nb_hitl.agent._registry import interrupt_agent
from nb_hitl.demo import long_task_transcript
from nb_hitl.extension._interrupt import KERNEL_CAUSE
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.pipeline import MsgHub
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import (
    AgentPanel,
    ChatWidget,
    CompressionExplorer,
    HubPanel,
    MemoryInspector,
)
from nb_hitl.widgets._approval import ApprovalCard

LONG = " ".join(f"word{i}" for i in range(400))
COUNTER = TokenCounter()


def error_rows(rows: list[Any]) -> list[str]:
    # a card, a finished row a segment draws, a hub's message row: each has its HTML as value
    drawn = [r.value for r in rows if isinstance(getattr(r, "value", None), str)]
    return [html for html in drawn if "nb-hitl-error" in html]


async def test_error_cards_have_no_stray_true_line_in_chat_and_hub() -> None:
    boom = RuntimeError("the model broke")
    agent = ReActAgent("Friday", "sys", ScriptedModel([boom], tokens_per_second=1e6))
    chat = ChatWidget(agent)
    chat.send("hi")
    await until(lambda: chat.state == "error", what="error")
    (card,) = error_rows(chat.rows)
    assert "the model broke" in card
    assert "True" not in card  # the row's flag was drawn as a line of its own

    bob = ReActAgent("Bob", "sys", ScriptedModel([RuntimeError("bob broke")]))
    panel = HubPanel(MsgHub([bob]))
    panel.start()
    await until(lambda: panel.outcome == "error", what="hub error")
    cards = [c for c in error_rows(panel.transcript.rows) if "bob broke" in c]
    assert cards and all("True" not in c for c in cards)


async def test_a_kernel_interrupt_says_what_stopped_the_reply() -> None:
    assert DEFAULT_INTERRUPT_TEXT == AGENT_INTERRUPT_TEXT  # the renderer's copy of the words
    agent = ReActAgent("Friday", "sys", ScriptedModel([LONG], tokens_per_second=80))
    chat = ChatWidget(agent)
    chat.send("tell me a story")
    await until(lambda: chat.state == "running" and agent.is_replying, what="running")
    await asyncio.sleep(0.05)
    assert interrupt_agent(agent, KERNEL_CAUSE)  # what Kernel ▸ Interrupt does
    await until(lambda: chat.state == "idle", what="interrupted")
    last = agent.memory.messages[-1]
    assert last.metadata["interrupted_by"] == "kernel"
    page = all_html(chat.rows[-1])
    assert "Kernel ▸ Interrupt" in page
    assert "interrupted by the user" not in page
    assert "Kernel ▸ Interrupt" in chat.status.text()

    # A person's Stop keeps the message's own words; a cancelled caller says so.
    stopped = Msg("Friday", AGENT_INTERRUPT_TEXT, "assistant", metadata={
        "_is_interrupted": True, "interrupted_by": "interrupt"})  # fmt: skip
    assert "interrupted by the user" in msg_html(stopped)
    cancelled = Msg("Friday", AGENT_INTERRUPT_TEXT, "assistant", metadata={
        "_is_interrupted": True, "interrupted_by": "cancelled"})  # fmt: skip
    assert "cancelled" in msg_html(cancelled) and "by the user" not in msg_html(cancelled)


async def test_approve_edited_shows_the_edited_arguments_on_the_call_line() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("drop table users"), "done"], ran)
    chat = ChatWidget(agent)
    chat.send("clean up")
    await until(lambda: chat.approvals is not None and chat.approvals.waiting, what="card")
    assert chat.approvals is not None
    (card,) = chat.approvals.waiting
    card.edit_area.value = '{"query": "select 1", "limit": 2}'
    card.edit_ok.click()
    await until(lambda: chat.state == "idle" and bool(ran), what="edited call ran")
    assert ran == [{"query": "select 1", "limit": 2}]
    asked = next(m for m in agent.memory.messages if m.get_content_blocks("tool_use"))
    row = chat.transcript.get(asked.id)
    assert row is not None and row.drawn is not None
    page = all_html(row.drawn)
    assert "select 1" in page and "edited by you" in page
    assert "drop table users" in page  # the model's own, under "the model asked for"
    assert page.index("select 1") < page.index("drop table users")
    assert "select 1" in card.arguments_view.value
    assert "drop table users" not in card.arguments_view.value


async def test_not_run_card_has_no_empty_box_glyph_and_tok_s_skips_approval_waits() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("select 1"), "done"], ran)
    chat = ChatWidget(agent)
    chat.send("go")
    await until(lambda: chat.approvals is not None and chat.approvals.waiting, what="card")
    assert chat.state == "waiting"
    await asyncio.sleep(0.3)  # the person thinks about it
    assert chat.status.waited >= 0.3
    working = chat.status.elapsed
    await asyncio.sleep(0.1)
    assert chat.status.elapsed == pytest.approx(working, abs=1e-3)  # the clock stands still
    assert "waiting for you" in chat.status.text()
    chat.stop()
    await until(lambda: chat.state == "idle", what="stopped")
    cards = [r for r in chat.rows if isinstance(r, ApprovalCard)]
    (card,) = cards
    assert card.decision == "interrupted"
    assert "Not run" in card.result.value
    assert "&#9209;" not in card.result.value and "\u23f9" not in card.result.value
    assert 'class="fa fa-' in card.result.value
    assert chat.status.waited >= 0.4


async def analyst(threshold: int = 5000, keep_recent: int = 0) -> ReActAgent:
    config = CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=threshold, keep_recent=keep_recent
    )
    agent = ReActAgent("Analyst", "You are a careful data analyst.", ScriptedModel(),
                       compression_config=config)  # fmt: skip
    await agent.memory.add(long_task_transcript())
    return agent


def predicted_after(inspector: MemoryInspector) -> int:
    return int(inspector.state["plan"].split('data-after="')[1].split('"')[0])


async def test_after_apply_every_view_follows_the_agent_and_compress_now_keeps_its_word() -> None:
    agent = await analyst()
    panel = AgentPanel(agent, session=None)
    inspector = panel.inspector
    assert inspector is not None
    await counted(inspector)
    explorer = inspector.open_explorer()
    act(inspector, "explorer", name="threshold", args={"value": 7000})  # inside the inspector
    act(inspector, "explorer", name="keep", args={"value": 8})
    act(inspector, "explorer", name="apply")
    assert agent.compression_config is not None
    assert (agent.compression_config.trigger_threshold, agent.compression_config.keep_recent) == (
        7000,
        8,
    )
    await until(lambda: (inspector.threshold, inspector.keep_recent) == (7000, 8), what="follow")
    assert "of 7,000 (trigger_threshold)" in inspector.state["header"]
    assert (
        "keep_recent 8" in inspector.state["header"] and "what-if" not in inspector.state["header"]
    )
    assert inspector.plan is not None and inspector.plan.keep_recent == 8

    # A what-if, then Reset: back to the agent's settings now, not the ones it started with.
    act(inspector, "threshold", value=9000)
    assert "what-if" in inspector.state["header"] and "keep_recent 8" in inspector.state["header"]
    act(inspector, "reset")
    assert (inspector.threshold, inspector.keep_recent) == (7000, 8)

    # Code changing the config is followed too (the explorer's sliders as well).
    agent.compression_config.keep_recent = 6
    await until(lambda: inspector.keep_recent == 6 and explorer.keep_recent == 6, what="code")

    # The prediction is what Compress now does, for the agent's settings and for a what-if.
    for keep in (6, 2):
        inspector.keep_recent = keep
        promised = predicted_after(inspector)
        task = inspector.compress_now()
        assert task is not None
        result = await task
        assert result is not None and result.tokens_after == promised, keep
        assert await agent.undo_compression()
    assert agent.compression_config.keep_recent == 6  # a what-if compress changes no setting
    panel.close()
    explorer.close()


async def test_a_threshold_below_the_smallest_prompt_is_called_out() -> None:
    agent = await analyst()
    inspector = await counted(MemoryInspector(agent))
    explorer = CompressionExplorer(agent)
    assert "nb-hitl-floor" not in inspector.state["plan"]
    inspector.threshold = 10
    assert "below the smallest prompt" in inspector.state["plan"]
    floor = int(inspector.state["plan"].split('data-floor="')[1].split('"')[0])
    assert floor > 10 and f"Pick at least {floor:,}" in inspector.state["plan"]
    explorer.threshold = 10
    assert "below the smallest prompt" in explorer.state["totals"]
    explorer.threshold = 5000
    assert "nb-hitl-floor" not in explorer.state["totals"]


def test_the_explorer_says_costs_more_instead_of_negative_savings() -> None:
    msgs = [Msg("User" if i % 2 == 0 else "Friday", f"short {i}", "user" if i % 2 == 0 else
                "assistant") for i in range(12)]  # fmt: skip
    explorer = CompressionExplorer(msgs, summary=FixedSummary(800), config=CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=60, keep_recent=1))  # fmt: skip
    saved = explorer.replay.savings(explorer.baseline)
    assert saved < 0
    assert f"costs {-saved:,} more" in explorer.state["totals"]
    assert "saves -" not in explorer.state["totals"] and "saves" not in explorer.state["totals"]


def test_escape_counts_focus_anywhere_in_the_panel() -> None:
    chat = ChatWidget(ReActAgent("Friday", "sys", ScriptedModel(["x"])))
    (escape,) = [b for b in chat.shortcuts.bindings if b["key"] == "Escape" and not b.get("shift")]
    assert escape["anywhere"] and escape["enabled"] == ".nb-hitl-stop"
    assert chat.shortcuts.focus_scope == "nb-hitl-panel"  # the inspector's half counts too
    assert "anywhere in the panel" in chat.stop_button.tooltip
    panel = HubPanel(MsgHub([ReActAgent("Bob", "sys", ScriptedModel(["x"]))]))
    (escape,) = [b for b in panel.shortcuts.bindings if b["key"] == "Escape" and not b.get("shift")]
    assert escape["anywhere"] and escape["enabled"] == ".nb-hitl-hub-stop"
    panel.close()
