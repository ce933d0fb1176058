"""The compression explorer in real JupyterLab and Chromium: a slider drag redraws the curve,
the sweep draws its heat map, and Use cheapest moves the sliders."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from lab_page import drag_range, open_and_run_all
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import long_task_transcript
from nb_hitl.widgets import CompressionExplorer
agent = ReActAgent("Analyst", "You are a careful data analyst.", ScriptedModel(),
                   compression_config=CompressionConfig(trigger_threshold=12000, keep_recent=6))
agent.memory.add_sync(long_task_transcript())
explorer = CompressionExplorer(agent, budget=9000)
explorer"""


def curve(page: Any) -> str:
    return str(page.locator(".nb-hitl-curve").first.get_attribute("points"))


def test_slider_drag_redraws_the_curve_and_the_sweep_picks_the_cheapest(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1300, "height": 1400})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("explorer.ipynb", [SETUP]))
        page.wait_for_selector(".nb-hitl-explorer-curve", timeout=120_000)
        before = curve(page)
        compressions = page.locator(".nb-hitl-explorer-curve").first.get_attribute(
            "data-compressions"
        )
        # Drag the threshold slider to the left: more compressions, a new curve.
        slider = page.locator(".nb-hitl-explorer input[type=range]").first
        drag_range(page, slider, 0.15, steps=10)
        page.wait_for_function(
            "old => document.querySelector('.nb-hitl-curve').getAttribute('points') !== old",
            arg=before,
            timeout=30_000,
        )
        value = int(page.locator(".nb-hitl-explorer input[type=number]").first.input_value())
        assert value < 12000
        after = page.locator(".nb-hitl-explorer-curve").first.get_attribute("data-compressions")
        assert int(str(after)) > int(str(compressions))
        # Hover text on a compression marker names what was folded.
        title = page.locator(".nb-hitl-explorer-curve .nb-hitl-compression-mark title").first
        assert "folded" in str(title.text_content())
        page.screenshot(path=str(artifacts / "explorer-curve.png"))
        # The sweep: a heat map with the cheapest cell; Use cheapest moves the sliders there.
        page.locator(".nb-hitl-explorer button:has-text('Run sweep')").click()
        page.wait_for_selector(".nb-hitl-cheapest", timeout=60_000)
        best = page.locator(".nb-hitl-cheapest").first
        threshold, keep = best.get_attribute("data-threshold"), best.get_attribute("data-keep")
        page.locator(".nb-hitl-explorer button:has-text('Use cheapest')").click()
        page.wait_for_function(
            "t => document.querySelector('.nb-hitl-explorer input[type=number]').value === t",
            arg=str(threshold),
            timeout=30_000,
        )
        boxes = page.locator(".nb-hitl-explorer input[type=number]")
        assert boxes.nth(1).input_value() == str(keep)
        assert re.search(
            r'data-fits="1"',
            page.locator(".nb-hitl-explorer-totals").first.evaluate("e => e.outerHTML"),
        )
        page.screenshot(path=str(artifacts / "explorer-sweep.png"), full_page=True)
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
    finally:
        page.close()
