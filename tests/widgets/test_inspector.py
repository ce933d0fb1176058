"""MemoryInspector headless: marks, the live what-if plan, compress/undo, pins, chart, notes."""

from __future__ import annotations

import html
import json
import re

import pytest
from widget_helpers import all_html, until

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import MemoryInspector

SUMMARY = json.dumps(
    {
        "task_overview": "The user asks about messages.",
        "current_state": "Twenty messages were exchanged.",
        "important_discoveries": "Nothing surprising.",
        "next_steps": "Keep answering.",
        "context_to_preserve": "Message numbers.",
    }
)


def history(n: int = 30) -> InMemoryMemory:
    memory = InMemoryMemory()
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        name = "User" if role == "user" else "Friday"
        memory.add_sync(Msg(name, f"message number {i} " * 6, role))  # type: ignore[arg-type]
    return memory


def agent_with(memory: InMemoryMemory, script: list | None = None, **cfg: object) -> ReActAgent:
    config = CompressionConfig(**{"trigger_threshold": 500, "keep_recent": 3, **cfg})
    return ReActAgent(
        "Friday",
        "You are a test agent.",
        ScriptedModel(script or [], tokens_per_second=5000),
        memory=memory,
        compression_config=config,
    )


def plan_count(ins: MemoryInspector) -> int:
    match = re.search(r'data-compress="(\d+)"', ins._plan_html.value)
    assert match is not None
    return int(match.group(1))


async def test_rows_show_role_tokens_and_marks() -> None:
    memory = history(10)
    memory.add_sync(Msg("Friday", "half an answer", "assistant", metadata={"_partial": True}))
    memory.add_sync(
        Msg("Friday", "[Interrupted] stopped.", "assistant", metadata={"_is_interrupted": True})
    )
    memory.add_sync(Msg("User", "and now?", "user"))
    agent = agent_with(memory, trigger_threshold=100, keep_recent=3)
    first = memory.messages[0].id
    agent.pin(first)
    ins = MemoryInspector(agent)
    table = ins._table.value
    assert table.count("<tr") == 1 + 13  # header + one row per message
    plan = ins.plan
    assert plan is not None and plan.would_trigger
    for msg in memory.messages:
        assert f'data-id="{msg.id}"' in table
        assert f"{plan.per_message_tokens[msg.id]:,}</td>" in table
    assert "pinned</span>" in table and "kept as recent</span>" in table
    assert "would compress</span>" in table and "partial</span>" in table
    assert table.count('class="nb-hitl-interrupted') + table.count(" nb-hitl-interrupted") >= 2
    assert f"{plan.total_tokens:,} tokens" in ins._header.value
    assert 'class="nb-hitl-threshold-line"' in ins._bar.value
    assert 'class="nb-hitl-keep-line"' in ins._bar.value
    assert ins._approx.value == ""  # exact counts: no note


async def test_threshold_and_keep_recent_change_the_plan_live_without_the_model() -> None:
    agent = agent_with(history(30))
    model = agent.model
    assert isinstance(model, ScriptedModel)
    ins = MemoryInspector(agent)
    assert ins.threshold_slider.value == 500 and ins.keep_box.value == 3
    assert 'data-trigger="1"' in ins._plan_html.value
    before = plan_count(ins)
    ins.threshold_slider.value = 600
    assert ins.threshold_box.value == 600 and 'data-threshold="600"' in ins._bar.value
    ins.threshold_box.value = 5000  # typed past the slider's end: over the total
    assert ins.threshold_slider.value == 5000
    assert 'data-trigger="0"' in ins._plan_html.value
    assert 'data-threshold="5000"' in ins._bar.value
    ins.keep_box.value = 12  # the number box drives the slider and the plan
    assert ins.keep_slider.value == 12
    assert plan_count(ins) < before
    assert ins.plan is not None and len(ins.plan.keep_ids) >= 12
    ins.reset_button.click()
    assert (ins.threshold, ins.keep_recent) == (500, 3) and plan_count(ins) == before
    assert model.calls == []  # planning never calls the model
    assert agent.compression_config is not None
    assert agent.compression_config.trigger_threshold == 500  # what-if only


async def test_compress_now_then_undo() -> None:
    memory = history(30)
    agent = agent_with(memory, [SUMMARY])
    ins = MemoryInspector(agent)
    n = plan_count(ins)
    ins.compress_button.click()
    await until(lambda: "Compressed" in ins._note.value, what="compression")
    assert f"Compressed {n} message(s)" in ins._note.value
    compressed = [m for m in memory.messages if "compressed" in memory.marks_of(m.id)]
    assert len(compressed) == n
    table = ins._table.value
    summary_at = table.index("nb-hitl-row-summary")
    assert summary_at < table.index(f'data-id="{compressed[0].id}"')
    assert memory.summary and html.escape(memory.summary) in table
    assert table.index('data-id="' + memory.messages[0].id) > summary_at
    await until(lambda: "nb-hitl-compression-mark" in ins._chart.value, what="chart mark")
    ins.undo_button.click()
    await until(lambda: "Undid" in ins._note.value, what="undo")
    assert not any("compressed" in memory.marks_of(m.id) for m in memory.messages)
    assert "nb-hitl-row-summary" not in ins._table.value


async def test_an_inspector_replaced_mid_compression_keeps_undo_off() -> None:
    agent = agent_with(history(30), [SUMMARY])
    old = MemoryInspector(agent)
    task = old.compress_now()
    assert task is not None
    new = MemoryInspector(agent)  # the cell was re-run while the old one compressed
    await task
    assert agent.can_undo_compression and "Compressed" in old._note.value
    assert old.detached and old.undo_button.disabled
    await until(lambda: not new.undo_button.disabled, what="the new inspector offers Undo")


async def test_pin_and_unpin_by_row_number() -> None:
    memory = history(30)
    agent = agent_with(memory)
    ins = MemoryInspector(agent)
    target = memory.messages[1]
    assert ins.plan is not None and target.id in ins.plan.compress_ids
    ins.pin_ref.value = "2"
    ins.pin_button.click()
    assert "pinned" in memory.marks_of(target.id)
    assert target.id not in ins.plan.compress_ids and target.id in ins.plan.pinned_ids
    ins.unpin_button.click()
    assert "pinned" not in memory.marks_of(target.id)
    assert not ins.pin("no-such-message") and "Cannot pin" in ins._note.value
    assert not ins.pin("999")


async def test_approximate_counts_are_noted() -> None:
    agent = agent_with(history(4), agent_token_counter=TokenCounter(encoding="r50k_base"))
    ins = MemoryInspector(agent)
    assert "approximate" in ins._approx.value


async def test_event_driven_refreshes_are_throttled() -> None:
    agent = agent_with(history(4), ["one", "two", "three"], trigger_threshold=100_000)
    ins = MemoryInspector(agent, refresh_interval=3600)
    start = ins.refreshes
    for text in ("a", "b", "c"):
        await agent(Msg("User", text, "user"))
    await until(lambda: len(ins._points_due) == 3, what="three finished turns")
    # Six messages were added and three replies finished, but the last refresh is younger
    # than the interval: one refresh is pending, none ran.
    assert ins.refreshes == start
    assert ins._refresh_handle is not None
    ins.refresh()  # what the pending refresh will do: count the turns, draw the chart
    turns = [label for kind, _, label in ins._steps if kind == "turn"]
    assert [t.split(":")[0] for t in turns] == [
        "now",
        "after turn 1",
        "after turn 2",
        "after turn 3",
    ]
    assert ins._chart.value.count('class="nb-hitl-point-turn"') == 4


async def test_agent_without_compression_is_shown_read_only() -> None:
    from nb_hitl.agent import UserAgent

    ins = MemoryInspector(UserAgent("User"))
    assert "no memory" in ins._header.value or "no compression" in all_html(ins)
    assert ins.compress_button.disabled


@pytest.mark.parametrize("bad", ["-5", "abc", ""])
async def test_bad_pin_reference_says_why(bad: str) -> None:
    ins = MemoryInspector(agent_with(history(4)))
    assert not ins.pin(bad)
    assert "row number or message id" in ins._note.value
