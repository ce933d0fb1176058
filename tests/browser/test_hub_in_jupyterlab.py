"""The hub panel in real JupyterLab and Chromium: a three-agent debate, Stop during the second
speaker's turn, then Retry with an instruction, and the discussion goes on to the third."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import open_and_run_all
from lab_server import LabServer

from nb_hitl._render._theme import LIGHT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.message import Msg
from nb_hitl.pipeline import MsgHub

LONG = " ".join(f"point{i}" for i in range(800))

def speaker(name, script, tps):
    return ReActAgent(name, f"You are {name}.", ScriptedModel(script, tokens_per_second=tps))

alice = speaker("Alice", ["Tabs: one keystroke, one level."], 200)
bob = speaker("Bob", [LONG, "Redirected: spaces, in one line."], 15)
carol = speaker("Carol", ["Carol sums up: both have a point."], 200)
BAD = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
mallory = speaker(BAD, ["Last word: " + BAD], 200)
hub = MsgHub([alice, bob, carol, mallory], announcement=Msg("Host", "Tabs or spaces?", "user"))
panel = nb_hitl.show(hub)
panel"""

START = '_ = panel.start(msg="Open the debate.")'

HUB = ".nb-hitl-hub"
STOP = ".nb-hitl-hub-stop"
NOW = ".nb-hitl-hub-speakers .nb-hitl-now"


def rgb(colour: str) -> str:
    """``#rrggbb`` as the browser's computed ``rgb(r, g, b)``."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def border(page: Any, selector: str) -> str:
    return str(page.locator(selector).first.evaluate("el => getComputedStyle(el).borderLeftColor"))


@pytest.mark.parametrize("comms", ["disabled", "perComm"])
def test_stop_the_second_speaker_then_redirect_and_the_debate_goes_on(
    browser: Any, lab: LabServer, artifacts: Path, comms: str
) -> None:
    lab.set_setting("@jupyterlab/apputils-extension", "kernels-settings",
                    {"commsOverSubshells": comms})  # fmt: skip
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        open_and_run_all(page, lab.write_notebook(f"hub-{comms}.ipynb", [SETUP, START]))
        # Alice has spoken, Bob is streaming: the indicator says so and Stop is on.
        page.wait_for_selector(f"{NOW} >> text=/Bob is speaking/", timeout=90_000)
        page.wait_for_selector(f"{HUB} .nb-hitl-live >> text=/point5/", timeout=60_000)
        page.wait_for_selector(f"{STOP}:enabled", timeout=10_000)
        assert page.locator(f"{HUB} .nb-hitl-chip.nb-hitl-speaking").inner_text().strip() in (
            "● Bob",
            "●Bob",
        )
        # Each speaker in its own colour (the palette's first two).
        alice = f"{HUB} .nb-hitl-speaker-0.nb-hitl-msg, {HUB} .nb-hitl-speaker-0 .nb-hitl-msg"
        assert border(page, alice) == "rgb(26, 95, 180)"
        assert border(page, f"{HUB} .nb-hitl-speaker-1.nb-hitl-live") == "rgb(38, 115, 77)"
        page.locator(STOP).click()
        # The pause prompt asks the person; Bob's reply keeps the interrupted style.
        prompt = page.locator(f"{HUB} .nb-hitl-hub-pause")
        page.wait_for_selector(f"{HUB} .nb-hitl-hub-pause >> text=/Bob was interrupted/",
                               timeout=30_000)  # fmt: skip
        assert "Skip goes on with Carol" in prompt.inner_text()
        interrupted = f"{HUB} .nb-hitl-msg.nb-hitl-interrupted"
        page.wait_for_selector(interrupted, timeout=10_000)
        assert border(page, interrupted) == rgb(LIGHT["orange"])  # the theme's interrupted colour
        assert "Carol sums up" not in page.locator(HUB).inner_text()
        page.screenshot(path=str(artifacts / f"hub-paused-{comms}.png"))
        # Redirect Bob: Retry with an instruction.
        prompt.locator("textarea").fill("Say it in one line.")
        prompt.locator(".nb-hitl-pause-retry").click()
        page.wait_for_selector(f"{HUB} .nb-hitl-msg >> text=/Redirected: spaces/", timeout=60_000)
        page.wait_for_selector(f"{HUB} .nb-hitl-msg >> text=/Carol sums up/", timeout=60_000)
        page.wait_for_selector(f"{HUB} .nb-hitl-msg >> text=/Last word/", timeout=60_000)
        page.wait_for_selector(f"{NOW} >> text=/Finished/", timeout=30_000)
        # A hostile participant's name and text stay text: in its chip, its rows, the picker.
        hub = page.locator(HUB)
        assert hub.locator("img").count() == 0 and hub.locator("script").count() == 0
        assert '<img src=x onerror="alert(1)">' in hub.locator(".nb-hitl-chip").nth(3).inner_text()
        assert dialogs == []
        text = page.locator(HUB).inner_text()
        assert "Say it in one line." in text and "You asked Bob to try again." in text
        assert not prompt.is_visible()
        # The inspector switches to Bob: his memory holds the instruction.
        page.locator(f"{HUB} .nb-hitl-hub-picker select").select_option(label="Bob")
        page.wait_for_selector(
            ".nb-hitl-inspector .nb-hitl-table >> text=/Say it in one line/", timeout=30_000
        )
        page.screenshot(path=str(artifacts / f"hub-finished-{comms}.png"))
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)
