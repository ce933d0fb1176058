"""The panel looks finished in real JupyterLab and Chromium, at 800 and 1,400 px wide: no
horizontal scrollbar anywhere (the approval card's edit box included), no cut-off button label,
no glyph that needs an emoji font, a placeholder that fits the moment, and an Undo button that
is only enabled when there is something to undo."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import open_and_run_all
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import demo_toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.widgets import AgentPanel

def deploy(env: str) -> str:
    \"\"\"Deploy the service.

    Args:
        env: where to deploy.
    \"\"\"
    return f"deployed to {env}"

toolkit = demo_toolkit()
toolkit.register_tool_function(deploy, needs_approval=True)
long_answer = " ".join(f"word{i}" for i in range(3000))
agent = ReActAgent("Friday", "You are a helpful assistant.", ScriptedModel([
    ScriptedTurn(text="Let me calculate.", tool_calls=[
        ScriptedToolCall("calculate", {"expression": "3 * (4 + 5)"})]),
    "It is 27.",
    long_answer,
    ScriptedTurn(text="Deploying.", tool_calls=[
        ScriptedToolCall("deploy", {"env": "production-eu-west-1-" + "x" * 120}, id="d1")]),
    "Deployed.",
], tokens_per_second=150), toolkit=toolkit,
    compression_config=CompressionConfig(trigger_threshold=3000, keep_recent=2))
panel = AgentPanel(agent, chat={"max_rendered": 3}, inspector={"max_rows": 3})
panel"""

OVERFLOW = """() => {
  const panel = document.querySelector('.nb-hitl-panel');
  const bad = [];
  for (const el of [panel, ...panel.querySelectorAll('*')]) {
    if (!el.offsetParent && el !== panel) continue;  // not displayed
    const style = getComputedStyle(el);
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    if (scrolls && el.scrollWidth > el.clientWidth + 1) {
      bad.push(`horizontal scrollbar: ${el.className} (${el.scrollWidth} > ${el.clientWidth})`);
    }
  }
  const out = panel.closest('.jp-OutputArea-output');
  if (out.scrollWidth > out.clientWidth + 1) {
    bad.push(`output area overflows: ${out.scrollWidth} > ${out.clientWidth}`);
  }
  for (const b of panel.querySelectorAll('button')) {
    if (b.offsetParent && b.scrollWidth > b.clientWidth + 1) {
      bad.push(`label cut off: "${b.textContent.trim()}" (${b.scrollWidth} > ${b.clientWidth})`);
    }
  }
  return bad;
}"""

EMOJI = """() => [...document.querySelector('.nb-hitl-panel').textContent]
  .filter((c) => c.codePointAt(0) >= 0x1F000).join('')"""

TEXTAREA = ".nb-hitl-chat textarea"
SEND = ".nb-hitl-chat button.nb-hitl-send"


def placeholder(page: Any) -> str:
    return str(page.locator(TEXTAREA).first.get_attribute("placeholder") or "")


def wait_state(page: Any, state: str, timeout: float = 90.0) -> None:
    page.wait_for_selector(
        f".nb-hitl-chat .nb-hitl-status[data-state='{state}']", timeout=timeout * 1000
    )


def check_widths(page: Any, artifacts: Path, name: str) -> None:
    for width in (800, 1400):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(600)  # a relayout
        page.screenshot(path=str(artifacts / f"layout-{name}-{width}.png"))
        problems = page.evaluate(OVERFLOW)
        assert problems == [], f"at {width} px ({name}): {problems}"


def test_panel_layout_at_800_and_1400_px(browser: Any, lab: LabServer, artifacts: Path) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, lab.write_notebook("layout.ipynb", [SETUP]))
        page.wait_for_selector(TEXTAREA, timeout=90_000)
        # Nothing compressed: nothing to undo. The inspector (a model of its own) may draw its
        # state a moment after the chat's controls are on the page: wait for it, not assume.
        undo = page.locator(".nb-hitl-inspector button:has-text('Undo')").first
        page.wait_for_selector(
            ".nb-hitl-inspector button:has-text('Undo'):disabled", timeout=30_000
        )
        check_widths(page, artifacts, "empty")

        # A reply with a tool call; the tool glyph needs no emoji font.
        page.locator(TEXTAREA).fill("What is 3 * (4 + 5)?")
        page.locator(SEND).click()
        page.wait_for_selector(".nb-hitl-chat .nb-hitl-msg >> text='It is 27.'", timeout=90_000)
        wait_state(page, "idle")
        assert page.evaluate(EMOJI) == ""

        # A long reply, redirected while it streams: the placeholder does not say "Interrupted".
        page.locator(TEXTAREA).fill("Tell me everything.")
        page.locator(SEND).click()
        page.wait_for_selector(".nb-hitl-live >> text=/word40/", timeout=60_000)
        page.locator(".nb-hitl-chat button:has-text('Stop')").click()
        wait_state(page, "idle")
        assert "Interrupted" in placeholder(page)
        page.locator(TEXTAREA).fill("Deploy it.")
        page.locator(SEND).click()
        wait_state(page, "waiting")  # the approval card
        assert "Interrupted" not in placeholder(page), placeholder(page)
        page.locator(".nb-hitl-approval button[title='Edit']").click()
        page.wait_for_selector(".nb-hitl-approval textarea", timeout=20_000)
        # "Show earlier messages (N hidden)" and "Show all rows" are visible now.
        assert page.locator(".nb-hitl-chat button:has-text('Show earlier')").is_visible()
        check_widths(page, artifacts, "card")

        # Compress, then Undo is enabled; after undoing, disabled again.
        page.locator(".nb-hitl-approval button:has-text('Approve edited')").click()
        wait_state(page, "idle")
        page.locator(".nb-hitl-inspector button:has-text('Compress now')").click()
        page.wait_for_selector(
            ".nb-hitl-inspector >> text=/Compressed \\d+ message/", timeout=30_000
        )
        page.wait_for_selector(".nb-hitl-inspector button:has-text('Undo'):enabled", timeout=10_000)
        undo.click()
        page.wait_for_selector(".nb-hitl-inspector >> text=/Undid the last compression/",
                               timeout=30_000)  # fmt: skip
        page.wait_for_selector(
            ".nb-hitl-inspector button:has-text('Undo'):disabled", timeout=10_000
        )
        check_widths(page, artifacts, "after")
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)
