"""CompressionExplorer headless: sliders replay and redraw, the sweep, cheapest, apply."""

from __future__ import annotations

import json
import re

import pytest
from widget_helpers import act

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig, replay_compression
from nb_hitl.demo import long_task_transcript
from nb_hitl.exceptions import ConfigError
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import CompressionExplorer

COUNTER = TokenCounter()


async def analyst(threshold: int = 8000, keep_recent: int = 6) -> ReActAgent:
    config = CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=threshold, keep_recent=keep_recent
    )
    agent = ReActAgent(
        "Analyst", "You are a careful data analyst.", ScriptedModel(), compression_config=config
    )
    await agent.memory.add(long_task_transcript())
    return agent


def curve_points(explorer: CompressionExplorer) -> str:
    found = re.search(r'class="nb-hitl-curve"[^>]* points="([^"]+)"', explorer.state["curve"])
    assert found
    return found.group(1)


async def test_moving_a_slider_replays_and_redraws_the_curve() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent, budget=9000)
    assert explorer.replay.trigger_threshold == 8000 and explorer.replay.keep_recent == 6
    assert 'data-points="50"' in explorer.state["curve"]  # one point per model call
    before, redraws = curve_points(explorer), explorer.redraws
    act(explorer, "threshold", value=5000)
    assert explorer.redraws == redraws + 1
    assert curve_points(explorer) != before
    assert explorer.state["controls"]["threshold"] == 5000  # the number box follows
    assert explorer.replay.compressions > 2
    # The widget shows the very replay replay_compression computes for these settings.
    expected = replay_compression(
        agent, CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=5000, keep_recent=6)
    )
    assert explorer.replay.rows == expected.rows
    assert f'data-billed="{expected.billed_input_tokens}"' in explorer.state["totals"]
    marks = explorer.state["curve"].count('class="nb-hitl-compression-mark"')
    assert marks == expected.compressions
    assert (
        "folded" in explorer.state["curve"] and "summary" in explorer.state["curve"]
    )  # hover text


async def test_number_boxes_drive_the_sliders_and_keep_recent_works_past_the_slider() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    act(explorer, "keep", value=12)
    assert explorer.keep_recent == 12 and explorer.replay.keep_recent == 12
    act(explorer, "threshold", value=123_456_789)  # past the slider's end: it extends
    assert explorer.threshold == 123_456_789 and explorer.replay.compressions == 0
    with pytest.raises(ConfigError, match="keep_recent=500 is more than the 109 messages"):
        explorer.keep_recent = 500
    assert explorer.state["controls"]["keep_box_max"] == 108  # the box refuses it too
    assert explorer.state["controls"]["threshold_max"] > 123_456_789


async def test_sweep_heat_map_marks_the_budget_region_and_the_cheapest_cell() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent, budget=9000)
    sweep = explorer.run_sweep()
    svg = explorer.state["sweep"]
    assert svg.count('class="nb-hitl-cell"') == len(sweep.thresholds) * len(sweep.keep_recent)
    assert 'class="nb-hitl-feasible"' in svg
    best = sweep.cheapest
    assert best is not None
    assert (
        'class="nb-hitl-cheapest" ' in svg
        and f'data-threshold="{best[0]}" data-keep="{best[1]}"/>' in svg
    )
    fitting = svg.count('data-fits="1"')
    assert 0 < fitting < len(sweep.replays)
    act(explorer, "metric", key="peak_prompt_tokens")
    assert "peak prompt tokens" in explorer.state["sweep"]
    assert "cheapest" not in explorer.state["controls"]["off"]
    act(explorer, "cheapest")
    assert (explorer.threshold, explorer.keep_recent) == best
    assert explorer.replay.peak_prompt_tokens <= 9000
    act(explorer, "budget", value=10)  # nothing fits: said, and Use cheapest is off
    assert sweep.cheapest is None and "cheapest" in explorer.state["controls"]["off"]
    assert "no setting keeps every prompt within 10" in explorer.state["sweep"]


async def test_apply_writes_the_setting_into_the_agent_config() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    explorer.threshold, explorer.keep_recent = 6500, 9
    act(explorer, "apply")
    assert agent.compression_config is not None
    assert (agent.compression_config.trigger_threshold, agent.compression_config.keep_recent) == (
        6500,
        9,
    )
    assert "Applied" in explorer.state["note"]
    plain = CompressionExplorer(long_task_transcript())
    assert "apply" in plain.state["controls"]["off"] and plain.apply() is None


async def test_the_scripted_policy_replays_real_summaries() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    label = next(k for k in explorer.state["controls"]["policies"] if "ScriptedModel" in k)
    act(explorer, "policy", label=label)
    assert explorer.replay.summaries and explorer.replay.policy == "ScriptedSummary()"
    # Real summaries cost more per move: the curve redraws when the handle is let go.
    assert not explorer.state["controls"]["continuous"]


async def test_names_are_escaped_and_labels_are_readable() -> None:
    msgs = [
        Msg("<b>user</b>", "question <script>alert(1)</script>", "user"),
        Msg("<img src=x>", "answer", "assistant"),
    ]
    explorer = CompressionExplorer(msgs, counter=COUNTER)
    text = json.dumps(explorer.state, ensure_ascii=False)
    assert "<script>" not in text and "<img src=x>" not in text
    sizes = [int(s) for s in re.findall(r'font-size="(\d+)"', explorer.state["curve"])]
    assert sizes and min(sizes) >= 11
    assert 'class="nb-hitl-legend"' in explorer.state["curve"]
