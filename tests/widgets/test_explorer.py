"""CompressionExplorer headless: sliders replay and redraw, the sweep, cheapest, apply."""

from __future__ import annotations

import re

import pytest
from widget_helpers import all_html

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
    found = re.search(r'class="nb-hitl-curve"[^>]* points="([^"]+)"', explorer._curve.value)
    assert found
    return found.group(1)


async def test_moving_a_slider_replays_and_redraws_the_curve() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent, budget=9000)
    assert explorer.replay.trigger_threshold == 8000 and explorer.replay.keep_recent == 6
    assert 'data-points="50"' in explorer._curve.value  # one point per model call
    before, redraws = curve_points(explorer), explorer.redraws
    explorer.threshold_slider.value = 5000
    assert explorer.redraws == redraws + 1
    assert curve_points(explorer) != before
    assert explorer.threshold_box.value == 5000  # the number box follows the slider
    assert explorer.replay.compressions > 2
    # The widget shows the very replay replay_compression computes for these settings.
    expected = replay_compression(
        agent, CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=5000, keep_recent=6)
    )
    assert explorer.replay.rows == expected.rows
    assert f'data-billed="{expected.billed_input_tokens}"' in explorer._totals.value
    marks = explorer._curve.value.count('class="nb-hitl-compression-mark"')
    assert marks == expected.compressions
    assert "folded" in explorer._curve.value and "summary" in explorer._curve.value  # hover text


async def test_number_boxes_drive_the_sliders_and_keep_recent_works_past_the_slider() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    explorer.keep_box.value = 12
    assert explorer.keep_recent == 12 and explorer.replay.keep_recent == 12
    explorer.threshold_box.value = 123_456_789  # past the slider's end: it extends
    assert explorer.threshold == 123_456_789 and explorer.replay.compressions == 0
    with pytest.raises(ConfigError, match="keep_recent=500 is more than the 109 messages"):
        explorer.keep_recent = 500
    assert explorer.keep_box.max == 108  # the box refuses what the replay would refuse


async def test_sweep_heat_map_marks_the_budget_region_and_the_cheapest_cell() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent, budget=9000)
    sweep = explorer.run_sweep()
    svg = explorer._sweep_html.value
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
    explorer.metric_dropdown.value = "peak_prompt_tokens"
    assert "peak prompt tokens" in explorer._sweep_html.value
    explorer.cheapest_button.click()
    assert (explorer.threshold, explorer.keep_recent) == best
    assert explorer.replay.peak_prompt_tokens <= 9000
    explorer.budget_box.value = 10  # nothing fits: said, and Use cheapest is off
    assert sweep.cheapest is None and explorer.cheapest_button.disabled
    assert "no setting keeps every prompt within 10" in explorer._sweep_html.value


async def test_apply_writes_the_setting_into_the_agent_config() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    explorer.threshold, explorer.keep_recent = 6500, 9
    explorer.apply_button.click()
    assert agent.compression_config is not None
    assert (agent.compression_config.trigger_threshold, agent.compression_config.keep_recent) == (
        6500,
        9,
    )
    assert "Applied" in explorer._note.value
    plain = CompressionExplorer(long_task_transcript())
    assert plain.apply_button.disabled and plain.apply() is None


async def test_the_scripted_policy_replays_real_summaries() -> None:
    agent = await analyst()
    explorer = CompressionExplorer(agent)
    label = next(k for k in explorer.policy_dropdown.options if "ScriptedModel" in k)
    explorer.policy_dropdown.value = label
    assert explorer.replay.summaries and explorer.replay.policy == "ScriptedSummary()"
    # Real summaries cost more per move: the curve redraws when the handle is let go.
    assert not explorer.threshold_slider.continuous_update


async def test_names_are_escaped_and_labels_are_readable() -> None:
    msgs = [
        Msg("<b>user</b>", "question <script>alert(1)</script>", "user"),
        Msg("<img src=x>", "answer", "assistant"),
    ]
    explorer = CompressionExplorer(msgs, counter=COUNTER)
    text = all_html(explorer)
    assert "<script>" not in text and "<img src=x>" not in text
    sizes = [int(s) for s in re.findall(r'font-size="(\d+)"', explorer._curve.value)]
    assert sizes and min(sizes) >= 11
    assert 'class="nb-hitl-legend"' in explorer._curve.value
