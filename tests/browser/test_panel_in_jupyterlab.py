"""The panel in real JupyterLab and Chromium: send, Stop mid-stream, interrupted style, resume,
and the inspector's threshold slider, with comms over subshells on and off."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import SEND, STATUS, STOP, drag_range, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import demo_toolkit
agent = ReActAgent(
    "Friday", "You are a helpful assistant.", ScriptedModel.demo(tokens_per_second=12),
    toolkit=demo_toolkit(),
    compression_config=CompressionConfig(trigger_threshold=3000, keep_recent=2),
)
panel = nb_hitl.show(agent, session=None)
panel"""


def status(page: Any) -> str:
    return str(page.locator(STATUS).first.get_attribute("data-state"))


def open_notebook(page: Any, lab: LabServer, name: str) -> None:
    open_and_run_all(page, lab.write_notebook(name, [SETUP]))
    page.wait_for_selector(".nb-hitl-chat textarea", timeout=90_000)


def transcript_scroll(page: Any) -> dict[str, float]:
    return dict(
        page.locator(".nb-hitl-transcript").first.evaluate(
            "el => { const box = el.getBoundingClientRect();"
            " const last = el.querySelector('.nb-hitl-rows').lastElementChild"
            ".getBoundingClientRect();"
            " return {overflow: el.scrollHeight - el.clientHeight,"
            " below: last.bottom - box.bottom}; }"
        )
    )


def colour(page: Any, selector: str) -> str:
    return str(page.locator(selector).first.evaluate("el => getComputedStyle(el).borderLeftColor"))


@pytest.mark.parametrize("comms", ["disabled", "perCommTarget", "perComm"])
def test_send_stop_resume_and_what_if(
    browser: Any, lab: LabServer, artifacts: Path, comms: str
) -> None:
    lab.set_setting("@jupyterlab/apputils-extension", "kernels-settings",
                    {"commsOverSubshells": comms})  # fmt: skip
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_notebook(page, lab, f"panel-{comms}.ipynb")
        # Send, watch it stream.
        page.locator(".nb-hitl-chat textarea").fill("How does interruption work?")
        page.locator(SEND).click()
        wait_status(page, "running")
        # Each widget redraws on its own: give the button's view a moment to catch up.
        page.wait_for_selector(f"{STOP}:enabled", timeout=10_000)
        # Wait for the long final answer to stream for a while, then press Stop.
        page.wait_for_selector(".nb-hitl-live >> text=/Pressing Stop calls/", timeout=90_000)
        page.locator(STOP).click()
        page.wait_for_selector(".nb-hitl-interrupted", timeout=20_000)
        wait_status(page, "idle")
        assert not page.locator(STOP).is_enabled()
        badge = page.locator(".nb-hitl-badge", has_text="interrupted")
        assert badge.count() >= 2  # the partial reply and the interrupted message
        partial = page.locator(".nb-hitl-msg.nb-hitl-interrupted", has_text="Picking").count()
        assert partial == 0  # not resumed yet
        interrupted_colour = colour(page, ".nb-hitl-msg.nb-hitl-interrupted")
        normal_colour = colour(
            page, ".nb-hitl-msg.nb-hitl-role-assistant:not(.nb-hitl-interrupted)"
        )
        assert interrupted_colour != normal_colour
        assert interrupted_colour != "rgb(208, 2, 27)"  # not the error colour
        placeholder = page.locator(".nb-hitl-chat textarea").get_attribute("placeholder") or ""
        assert "Interrupted" in placeholder
        page.screenshot(path=str(artifacts / f"panel-interrupted-{comms}.png"))
        # The inspector marks the interrupted messages too.
        assert page.locator(".nb-hitl-table tr.nb-hitl-interrupted").count() >= 2
        # Resume with an instruction.
        page.locator(".nb-hitl-chat textarea").fill("Continue, but keep it short.")
        page.locator(SEND).click()
        page.wait_for_selector(".nb-hitl-msg >> text=/Picking up where I left off/", timeout=60_000)
        page.locator(STOP).click()  # no need to wait for the whole answer
        wait_status(page, "idle")
        # The transcript overflows its box and still shows the newest row (scroll anchor).
        scroll = transcript_scroll(page)
        assert scroll["overflow"] > 0 and scroll["below"] <= 2, scroll
        # Move the threshold slider far left: the plan goes over the threshold.
        plan = page.locator(".nb-hitl-plan")
        assert "Below the threshold" in plan.inner_text()
        slider = page.locator(".nb-hitl-inspector input[type=range]").first
        drag_range(page, slider, 0.02, steps=8)
        page.wait_for_selector(".nb-hitl-plan >> text=/Over the threshold/", timeout=20_000)
        value = int(page.locator(".nb-hitl-inspector input[type=number]").first.input_value())
        assert value < 3000
        assert re.search(r'data-threshold="(\d+)"', page.content())
        page.screenshot(path=str(artifacts / f"panel-what-if-{comms}.png"))
        # The setting took effect: the front end opened subshells only when it was on.
        subshells = lab.kernel_subshells()
        assert bool(subshells) == (comms != "disabled"), subshells
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)


HOSTILE = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit

BAD = '<img src=x onerror="alert(1)"><script>alert(2)</script>'

def fetch(url: str) -> str:
    \"\"\"Fetch a page.

    Args:
        url: the page.
    \"\"\"
    return BAD

tk = Toolkit()
tk.register_tool_function(fetch)
agent = ReActAgent(BAD, "sys", ScriptedModel([
    ScriptedTurn(text="look: " + BAD, tool_calls=[ScriptedToolCall("fetch", {"url": BAD})]),
    "[link](javascript:alert(3)) " + BAD,
], tokens_per_second=200), toolkit=tk)
panel = nb_hitl.show(agent, session=None)
panel"""


def test_hostile_strings_stay_text_in_the_browser(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        open_and_run_all(page, lab.write_notebook("hostile.ipynb", [HOSTILE]))
        page.wait_for_selector(".nb-hitl-chat textarea", timeout=90_000)
        page.locator(".nb-hitl-chat textarea").fill("<img src=y onerror=alert(4)>")
        page.locator(SEND).click()
        page.wait_for_selector(".nb-hitl-msg >> text=/\\[link\\]/", timeout=60_000)
        wait_status(page, "idle")
        chat = page.locator(".nb-hitl-chat")
        assert chat.locator("img").count() == 0 and chat.locator("script").count() == 0
        assert page.locator(".nb-hitl-inspector img").count() == 0
        assert chat.locator("a[href^='javascript']").count() == 0
        assert '<img src=x onerror="alert(1)">' in chat.inner_text()  # shown as text
        page.screenshot(path=str(artifacts / "panel-hostile-strings.png"))
        assert dialogs == []
    finally:
        page.close()
        lab.shutdown_kernels()
