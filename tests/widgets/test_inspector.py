"""MemoryInspector headless: marks, the live what-if plan, compress/undo, pins, chart, notes."""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import re
from collections.abc import Callable

import comm
import pytest
from widget_helpers import RecordingComm, RecordingCounter, act, chart_kinds, counted, until

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import MemoryInspector
from nb_hitl.widgets._inspector import COUNTING_NOTE
from nb_hitl.widgets._inspector_draw import InspectorView, smallest_prompt
from nb_hitl.widgets._plan_view import note_html

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
    match = re.search(r'data-compress="(\d+)"', ins.state["plan"])
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
    ins = await counted(MemoryInspector(agent))
    table = ins.state["table"]
    assert table.count("<tr") == 1 + 13  # header + one row per message
    plan = ins.plan
    assert plan is not None and plan.would_trigger
    for msg in memory.messages:
        assert f'data-id="{msg.id}"' in table
        assert f"{plan.per_message_tokens[msg.id]:,}</td>" in table
    assert "pinned</span>" in table and "kept as recent</span>" in table
    assert "would compress</span>" in table and "partial</span>" in table
    assert table.count('class="nb-hitl-interrupted') + table.count(" nb-hitl-interrupted") >= 2
    assert f"{plan.total_tokens:,} tokens" in ins.state["header"]
    assert 'class="nb-hitl-threshold-line"' in ins.state["bar"]
    assert 'class="nb-hitl-keep-line"' in ins.state["bar"]
    assert ins.state["approx"] == ""  # exact counts: no note


async def test_threshold_and_keep_recent_change_the_plan_live_without_the_model() -> None:
    agent = agent_with(history(30))
    model = agent.model
    assert isinstance(model, ScriptedModel)
    ins = await counted(MemoryInspector(agent))
    assert (ins.state["controls"]["threshold"], ins.state["controls"]["keep"]) == (500, 3)
    assert 'data-trigger="1"' in ins.state["plan"]
    before = plan_count(ins)
    act(ins, "threshold", value=600)
    assert ins.state["controls"]["threshold"] == 600 and 'data-threshold="600"' in ins.state["bar"]
    act(ins, "threshold", value=5000)  # typed past the slider's end: over the total
    assert ins.state["controls"]["threshold_max"] >= 5000
    assert 'data-trigger="0"' in ins.state["plan"]
    assert 'data-threshold="5000"' in ins.state["bar"]
    act(ins, "keep", value=12)  # the number box drives the slider and the plan
    assert ins.state["controls"]["keep"] == 12
    assert plan_count(ins) < before
    assert ins.plan is not None and len(ins.plan.keep_ids) >= 12
    act(ins, "reset")
    assert (ins.threshold, ins.keep_recent) == (500, 3) and plan_count(ins) == before
    assert model.calls == []  # planning never calls the model
    assert agent.compression_config is not None
    assert agent.compression_config.trigger_threshold == 500  # what-if only


async def test_compress_now_then_undo() -> None:
    memory = history(30)
    agent = agent_with(memory, [SUMMARY])
    ins = await counted(MemoryInspector(agent))
    n = plan_count(ins)
    act(ins, "compress")
    await until(lambda: "Compressed" in ins.state["note"], what="compression")
    assert f"Compressed {n} message(s)" in ins.state["note"]
    compressed = [m for m in memory.messages if "compressed" in memory.marks_of(m.id)]
    assert len(compressed) == n
    table = ins.state["table"]
    summary_at = table.index("nb-hitl-row-summary")
    assert summary_at < table.index(f'data-id="{compressed[0].id}"')
    assert memory.summary and html.escape(memory.summary) in table
    assert table.index('data-id="' + memory.messages[0].id) > summary_at
    await until(lambda: "compress" in chart_kinds(ins), what="chart mark")
    act(ins, "undo")
    await until(lambda: "Undid" in ins.state["note"], what="undo")
    assert not any("compressed" in memory.marks_of(m.id) for m in memory.messages)
    assert "nb-hitl-row-summary" not in ins.state["table"]


async def test_an_inspector_replaced_mid_compression_keeps_undo_off() -> None:
    agent = agent_with(history(30), [SUMMARY])
    old = await counted(MemoryInspector(agent))
    task = old.compress_now()
    assert task is not None
    new = MemoryInspector(agent)  # the cell was re-run while the old one compressed
    await task
    assert agent.can_undo_compression and "Compressed" in old.state["note"]
    assert old.detached and "undo" in old.controls_off
    await until(lambda: "undo" not in new.controls_off, what="the new inspector offers Undo")


async def test_pin_and_unpin_by_row_number() -> None:
    memory = history(30)
    agent = agent_with(memory)
    ins = await counted(MemoryInspector(agent))
    target = memory.messages[1]
    assert ins.plan is not None and target.id in ins.plan.compress_ids
    act(ins, "pin", ref="2")
    assert "pinned" in memory.marks_of(target.id)
    assert target.id not in ins.plan.compress_ids and target.id in ins.plan.pinned_ids
    act(ins, "unpin", ref="2")
    assert "pinned" not in memory.marks_of(target.id)
    assert not ins.pin("no-such-message") and "Cannot pin" in ins.state["note"]
    assert not ins.pin("999")


async def test_approximate_counts_are_noted() -> None:
    agent = agent_with(history(4), agent_token_counter=TokenCounter(encoding="r50k_base"))
    ins = await counted(MemoryInspector(agent))
    assert "approximate" in ins.state["approx"]


async def test_event_driven_refreshes_are_throttled() -> None:
    agent = agent_with(history(4), ["one", "two", "three"], trigger_threshold=100_000)
    ins = await counted(MemoryInspector(agent, refresh_interval=3600))
    start = ins.refreshes
    before = chart_kinds(ins)
    for text in ("a", "b", "c"):
        await agent(Msg("User", text, "user"))
    # Six messages were added and three replies finished, but the last refresh is younger
    # than the interval: one refresh is pending, none ran.
    await until(lambda: ins._refresh_handle is not None, what="a pending refresh")
    assert ins.refreshes == start
    assert chart_kinds(ins) == before
    ins.refresh()  # what the pending refresh will do: a point per call, the prompt now
    assert chart_kinds(ins) == [*before[:-1], "turn", "turn", "turn", "now"]


async def test_agent_without_compression_is_shown_read_only() -> None:
    from nb_hitl.agent import UserAgent

    ins = await counted(MemoryInspector(UserAgent("User")))
    assert "no memory" in ins.state["header"] or "no compression" in ins.state["header"]
    assert "compress" in ins.controls_off
    act(ins, "compress")  # a page that still shows it enabled: nothing happens
    assert ins.state["note"] == ""


@pytest.mark.parametrize("bad", ["-5", "abc", ""])
async def test_bad_pin_reference_says_why(bad: str) -> None:
    ins = await counted(MemoryInspector(agent_with(history(4))))
    assert not ins.pin(bad)
    assert "row number or message id" in ins.state["note"]


async def test_a_live_loop_draws_the_chart_the_same_memory_draws_afterwards() -> None:
    # Issue 35 item 10: turns finishing faster than the inspector refreshes were all drawn at
    # the memory's total at refresh time, a staircase; shown afterwards, the same memory drew
    # a straight line. Each call's point is now the prompt that call sent, live or not.
    answers = [f"answer {i} " * 5 for i in range(100)]
    agent = agent_with(history(4), answers, trigger_threshold=1_000_000)
    live = await counted(MemoryInspector(agent, refresh_interval=0.2))
    for i in range(100):
        await agent(Msg("User", f"question {i} " * 4, "user"))
        if i % 10 == 0:
            await asyncio.sleep(0.25)  # let a throttled refresh run mid-loop now and then
    live.refresh()
    drawn_live = [tokens for _kind, tokens, _tip in live.state["chart"]["steps"]]
    afterwards = await counted(MemoryInspector(agent))
    drawn_afterwards = [tokens for _kind, tokens, _tip in afterwards.state["chart"]["steps"]]
    assert len(drawn_live) == 2 + 100 + 1  # two replayed calls, a hundred live ones, now
    assert drawn_live == drawn_afterwards
    calls = drawn_live[:-1]
    assert all(b > a for a, b in itertools.pairwise(calls)), "no staircase"


async def test_no_threshold_says_nothing_about_being_below_it() -> None:
    # Issue 35 item 10: an agent without compression settings has no threshold to be below.
    agent = ReActAgent("Friday", "You are a test agent.", ScriptedModel([]), memory=history(30))
    ins = await counted(MemoryInspector(agent))
    assert ins.plan is not None and ins.plan.trigger_threshold is None
    assert "Below the threshold" not in ins.state["plan"]
    assert "No trigger_threshold" in ins.state["plan"]
    assert "(no trigger_threshold)" in ins.state["header"]
    assert ins.state["chart"]["threshold"] == 0  # the page draws no threshold line
    over = await counted(MemoryInspector(agent_with(history(30), trigger_threshold=100_000)))
    assert "Below the threshold" in over.state["plan"]


def inspector_batches(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[list[dict]]]:
    """Record what the panels publish; returns a function giving the op batches sent so far."""
    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)

    def batches() -> list[list[dict]]:
        return [
            data["content"]["ops"]
            for kind, data in RecordingComm.log
            if kind == "comm_msg"
            and data.get("method") == "custom"
            and data["content"].get("t") == "ops"
        ]

    return batches


def drawn_from_scratch(ins: MemoryInspector) -> dict:
    """The parts ``ins`` should show now, from a plan counted afresh and a table built anew."""
    agent = ins.agent
    agent.compressor.forget_plans()  # type: ignore[attr-defined]
    plan = agent.compression_plan(ins.threshold or None, ins.keep_recent)  # type: ignore[attr-defined]
    floor = smallest_prompt(agent.compression_plan(1, 0))  # type: ignore[attr-defined]
    view = InspectorView(ins.threshold, ins.keep_recent)
    return view.parts(agent, plan, ins.agent_settings, floor, ins.max_rows)


async def test_a_threshold_move_sends_the_new_threshold_not_the_chart(monkeypatch) -> None:
    batches = inspector_batches(monkeypatch)
    agent = agent_with(history(40))
    ins = await counted(MemoryInspector(agent))
    steps = ins.state["chart"]["steps"]
    built = ins._view.rows.built
    sent = len(batches())
    act(ins, "threshold", value=450)
    [ops] = batches()[sent:]
    assert {"op": "merge", "key": "chart", "value": {"threshold": 450}} in ops
    assert {op["key"] for op in ops} == {"header", "bar", "plan", "controls", "chart"}
    assert ins.state["chart"] == {"steps": steps, "threshold": 450}
    assert ins._view.rows.built == built, "no table row was built again"
    act(ins, "threshold", value=450)  # the same value again: nothing to send
    assert len(batches()) == sent + 1
    keep_drawn = ins.state["table"]
    act(ins, "keep", value=10)  # some rows change their marks, the others are kept
    assert ins.state["table"] != keep_drawn
    assert 0 < ins._view.rows.built - built < 40
    assert all(op["key"] != "chart" for op in batches()[-1]), "the same points"


async def test_what_if_moves_draw_what_a_fresh_plan_draws() -> None:
    agent = agent_with(history(40))
    ins = await counted(MemoryInspector(agent))
    steps = ins.state["chart"]["steps"]
    moves = [("threshold", 300), ("keep", 8), ("threshold", 2000), ("keep", 0), ("threshold", 5)]
    for action, value in [*moves, ("keep", 8), ("reset", None)]:
        act(ins, action, **({} if value is None else {"value": value}))
        parts = drawn_from_scratch(ins)
        assert {key: ins.view_state[key] for key in parts} == parts, (action, value)
        assert ins.state["chart"] == {"steps": steps, "threshold": ins.threshold}


async def test_memory_changes_redraw_the_rows_and_the_chart() -> None:
    memory = history(12)
    agent = agent_with(memory)
    ins = await counted(MemoryInspector(agent))
    act(ins, "threshold", value=400)
    first = memory.messages[0]
    built = ins._view.rows.built
    agent.pin(first.id)
    ins.refresh()
    assert ins._view.rows.built > built
    assert f'data-id="{first.id}"' in ins.state["table"]
    row = ins.state["table"].split(f'data-id="{first.id}"')[1].split("</tr>")[0]
    assert "pinned" in row
    points = len(ins.state["chart"]["steps"])
    memory.add_sync([Msg("User", "one more question", "user"), Msg("Friday", "ok", "assistant")])
    ins.refresh()
    assert len(ins.state["chart"]["steps"]) == points + 1  # the new call's point
    fresh = drawn_from_scratch(ins)
    assert {key: ins.view_state[key] for key in fresh} == fresh


def counting_agent(n: int = 30, **cfg: object) -> tuple[ReActAgent, RecordingCounter]:
    counter = RecordingCounter()
    return agent_with(history(n), agent_token_counter=counter, **cfg), counter


async def test_construction_counts_no_token_and_draws_what_it_knows() -> None:
    agent, counter = counting_agent(30, trigger_threshold=700, keep_recent=4)
    memory = agent.memory
    ins = MemoryInspector(agent)
    assert counter.used == 0, "nothing is counted before the cell returns"
    assert ins.counting and ins.refreshes == 0
    # What it knows without a tokenizer: the settings, the rows' roles and names.
    assert (ins.threshold, ins.keep_recent) == (700, 4)
    header = ins.view_state["header"]
    assert "30 messages" in header and "counting tokens…" in header
    assert "of 700 (trigger_threshold)" in header and "keep_recent 4" in header
    table = ins.view_state["table"]
    assert table.count("<tr") == 1 + 30
    for msg in memory.messages:
        assert f'data-id="{msg.id}"' in table
    assert "<td>user</td><td>User</td>" in table and "<td>assistant</td><td>Friday</td>" in table
    assert table.count('title="counting tokens…">…</span>') == 30  # where each count goes
    # Said where a screen reader hears it: the status line (a live region) and aria-busy.
    assert ins.view_state["note"] == note_html(COUNTING_NOTE)
    pending_plan = ins.view_state["plan"]
    assert 'aria-busy="true"' in pending_plan and "Counting tokens" in pending_plan
    assert ins.view_state["bar"] == "" and ins.view_state["chart"] == {"steps": [], "threshold": 0}
    assert ins.controls_off.get("compress") == COUNTING_NOTE  # it compresses as the plan shows
    assert {"threshold", "keep", "reset", "pin", "unpin", "explore"}.isdisjoint(ins.controls_off)
    await counted(ins)
    assert counter.used > 0 and ins.refreshes == 1
    assert ins.state["note"] == "" and "nb-hitl-counting" not in ins.drawn_html()
    assert "compress" not in ins.controls_off


async def test_the_first_plan_arrives_after_as_ops_equal_to_compression_plan(monkeypatch) -> None:
    batches = inspector_batches(monkeypatch)
    agent, counter = counting_agent(40)
    ins = MemoryInspector(agent)
    pending = ins.view_state  # what the page holds meanwhile
    sent = len(batches())
    assert counter.used == 0
    await counted(ins)
    [ops] = batches()[sent:]  # one batch, when the loop ran
    values = {op["key"]: op["value"] for op in ops if op["op"] == "set"}
    assert ins.plan == agent.compression_plan()
    assert {"header", "bar", "plan", "table", "chart", "controls", "note"} <= set(values)
    parts = drawn_from_scratch(ins)  # from agent.compression_plan(), counted afresh
    assert {key: values.get(key, pending[key]) for key in parts} == parts
    assert values["note"] == ""
    total = agent.compression_plan().total_tokens
    assert values["chart"]["steps"][-1][:2] == ["now", total]  # the chart's first points
    assert values["chart"]["threshold"] == 500
    assert ins.state == {**ins.state, **values}


async def test_a_what_if_sent_before_the_first_plan_is_kept_for_it() -> None:
    agent, counter = counting_agent(30)
    ins = MemoryInspector(agent)
    act(ins, "threshold", value=600)  # the page moved a slider before the plan came
    act(ins, "keep", value=6)
    act(ins, "compress")  # off until the plan shows what it would do: nothing happens
    assert counter.used == 0 and ins.counting, "no plan was counted for it meanwhile"
    assert (ins.view_state["controls"]["threshold"], ins.view_state["controls"]["keep"]) == (600, 6)
    assert "of 600 (trigger_threshold)" in ins.view_state["header"]
    assert "keep_recent 6" in ins.view_state["header"]
    assert ins.view_state["note"] == note_html(COUNTING_NOTE)
    await counted(ins)
    plan = ins.plan
    assert plan is not None and (plan.trigger_threshold, plan.keep_recent) == (600, 6)
    assert plan == agent.compression_plan(600, 6) and ins.is_what_if
    assert "what-if" in ins.state["header"]
    assert {key: ins.view_state[key] for key in drawn_from_scratch(ins)} == drawn_from_scratch(ins)
    assert agent.compression_config is not None
    assert (agent.compression_config.trigger_threshold, agent.compression_config.keep_recent) == (
        500,
        3,
    )  # what-if only
    assert not any("compressed" in agent.memory.marks_of(m.id) for m in agent.memory.messages)
    act(ins, "reset")
    assert (ins.threshold, ins.keep_recent) == (500, 3) and not ins.is_what_if


async def test_reading_plan_or_state_before_the_first_count_counts_it_now() -> None:
    """Run All: the next cell may run before the loop gets to the first count; what it
    reads (``plan``, ``state``) is counted then, as it was before the count moved."""
    agent, counter = counting_agent(30)
    ins = MemoryInspector(agent)
    assert counter.used == 0 and ins.counting
    plan = ins.plan
    assert plan is not None and plan == agent.compression_plan()
    assert not ins.counting and counter.used > 0 and ins.refreshes == 1
    assert "counting tokens…" not in ins.view_state["header"]
    await asyncio.sleep(0.05)
    assert ins.refreshes == 1, "the waiting count was dropped, not run again"
    other, _ = counting_agent(20)
    ins2 = MemoryInspector(other)
    header = ins2.state["header"]
    assert f"{other.compression_plan().total_tokens:,} tokens" in header and not ins2.counting


async def test_settings_changed_before_the_first_plan_are_the_ones_it_counts() -> None:
    agent, _counter = counting_agent(30)
    ins = MemoryInspector(agent)
    assert agent.compression_config is not None
    agent.compression_config.trigger_threshold = 800  # the explorer's Apply, or code
    await until(lambda: "of 800 (trigger_threshold)" in ins.state["header"], what="follows")
    await counted(ins)
    assert ins.plan is not None and ins.plan.trigger_threshold == 800 and not ins.is_what_if


async def test_detach_or_close_before_the_first_plan_cancels_it() -> None:
    agent, _counter = counting_agent(30)
    old = MemoryInspector(agent)
    new = await counted(MemoryInspector(agent))  # the cell was re-run at once
    await asyncio.sleep(0.05)
    assert old.detached and old.counting and old.plan is None and old.refreshes == 0
    assert "not counted" in old.state["header"] and "no longer follows" in old.state["plan"]
    assert "aria-busy" not in old.state["plan"] and "no longer follows" in old.state["note"]
    assert "counting" not in old.state["table"] and old.state["chart"]["steps"] == []
    assert not new.counting and new.plan is not None
    other, counter = counting_agent(30)
    ins = MemoryInspector(other)
    ins.close()
    await asyncio.sleep(0.05)
    assert counter.used == 0 and ins.counting and ins.refreshes == 0


async def test_an_agent_without_a_config_is_counted_after_with_the_default_settings() -> None:
    agent = ReActAgent("Friday", "You are a test agent.", ScriptedModel([]), memory=history(30))
    ins = MemoryInspector(agent)
    assert ins.counting and (ins.threshold, ins.keep_recent) == (0, 3)
    header = ins.state["header"]
    assert "(no trigger_threshold)" in header and "keep_recent 3" in header
    await counted(ins)
    assert ins.plan == agent.compression_plan() and not ins.is_what_if
