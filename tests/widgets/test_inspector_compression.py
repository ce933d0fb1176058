"""Inspector fixes for exploring compression: badges, exact after, legends, chart, explorer."""

from __future__ import annotations

import re

from test_inspector import agent_with, history
from widget_helpers import act, chart_kinds, counted, until

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.demo import long_task_transcript
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import MemoryInspector


def after_shown(ins: MemoryInspector) -> int:
    match = re.search(r'data-after="(\d+)"', ins.state["plan"])
    assert match is not None
    return int(match.group(1))


def badges(ins: MemoryInspector, msg_id: str) -> list[str]:
    row = re.search(rf'<tr [^>]*data-id="{re.escape(msg_id)}">(.*?)</tr>', ins.state["table"])
    assert row is not None
    return re.findall(r'nb-hitl-badge-[a-z]+">([^<]+)<', row.group(1))


async def analyst() -> ReActAgent:
    config = CompressionConfig(trigger_threshold=8000, keep_recent=6)
    agent = ReActAgent(
        "Analyst", "You are a careful data analyst.", ScriptedModel(), compression_config=config
    )
    await agent.memory.add(long_task_transcript())
    return agent


async def test_the_plans_after_is_what_compress_now_produces() -> None:
    agent = await analyst()
    ins = await counted(MemoryInspector(agent))
    predicted = after_shown(ins)
    assert "exactly" in ins.state["plan"] and "ScriptedModel" in ins.state["plan"]
    result = await agent.compress_memory()
    assert result is not None and result.tokens_after == predicted


async def test_without_a_scripted_summariser_the_plan_states_its_assumption() -> None:
    ins = await counted(MemoryInspector(agent_with(history(30))))
    ins.agent.compression_config.compression_model = _NotScripted()
    ins.refresh()
    assert "about" in ins.state["plan"] and "1/4 of what it replaces" in ins.state["plan"]


class _NotScripted(ScriptedModel):
    """A compression model the inspector cannot predict (it has a custom responder)."""

    def __init__(self) -> None:
        super().__init__(structured_responder=lambda messages, schema: "{}")


async def test_kept_as_recent_only_on_the_recent_tail_and_other_keeps_marked_apart() -> None:
    agent = await analyst()
    first = agent.memory.messages[0]
    agent.pin(first.id)
    await agent.memory.add(Msg("Maya", "What should we fix first?", "user"))
    ins = await counted(MemoryInspector(agent))
    plan = ins.plan
    assert plan is not None
    assert "pinned" in badges(ins, first.id) and "kept as recent" not in badges(ins, first.id)
    question = plan.protected_ids[0]
    assert "current question" in badges(ins, question)
    recent = set(plan.recent_ids)
    assert len(recent) == 6
    for msg in agent.memory.messages:
        assert ("kept as recent" in badges(ins, msg.id)) == (msg.id in recent)
    partners = [i for i, why in plan.kept_because.items() if why == "tool partner"]
    for msg_id in partners:
        assert "kept: tool partner" in badges(ins, msg_id)
    # Reasons number messages as the table does (1-based rows of the whole memory).
    reason = next(r for r in plan.reasons if "pinned: kept" in r)
    assert reason.startswith("Message 1 ")


async def test_bar_has_a_legend_and_chart_labels_are_readable() -> None:
    ins = await counted(MemoryInspector(agent_with(history(30))))
    assert 'class="nb-hitl-bar-legend"' in ins.state["bar"]
    for label in ("would be compressed", "kept as recent", "trigger_threshold"):
        assert label in ins.state["bar"]
    # The chart's labels and legend are the page's (js/test/inspector.test.js checks them).
    assert ins.state["chart"]["steps"] and ins.state["chart"]["threshold"] == 500


async def test_chart_has_a_point_per_replayed_call_and_distinct_compress_and_undo_marks() -> None:
    agent = await analyst()
    ins = await counted(MemoryInspector(agent))
    kinds = chart_kinds(ins)
    assert len([k for k in kinds if k in ("replayed", "compress")]) == 50  # every model call
    assert kinds[-1] == "now"
    before = len(kinds) - 1
    act(ins, "compress")
    await until(lambda: "Compressed" in ins.state["note"], what="compression")
    act(ins, "undo")
    await until(lambda: "Undid" in ins.state["note"], what="undo")
    ins.refresh()
    assert chart_kinds(ins)[before:] == ["compress", "undo", "now"]


async def test_explorer_opens_from_the_inspector_for_the_same_agent() -> None:
    agent = await analyst()
    ins = await counted(MemoryInspector(agent))
    act(ins, "explore")
    explorer = ins.explorer
    assert explorer is not None and explorer.agent is agent and explorer.threshold == 8000
    assert ins.state["explorer"]["controls"]["threshold"] == 8000  # drawn inside the inspector
    act(ins, "explorer", name="threshold", args={"value": 6000})  # its page's slider
    assert explorer.threshold == 6000 and ins.state["explorer"]["controls"]["threshold"] == 6000
    act(ins, "explore")
    assert ins.explorer is explorer  # built once


async def test_keep_recent_slider_stays_usable_on_a_large_memory() -> None:
    ins = await counted(MemoryInspector(agent_with(history(600), keep_recent=3)))
    assert ins.state["controls"]["keep_max"] == 100
    act(ins, "keep", value=450)  # the number box goes past the slider
    assert ins.keep_recent == 450 and ins.plan is not None and ins.plan.keep_recent == 450
