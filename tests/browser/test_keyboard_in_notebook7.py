"""The same panel in Notebook 7 (served by the test JupyterLab server at ``/notebooks/``):
Ctrl+Enter sends, Escape stops, the notebook's ■ stops a streaming reply, and a kernel restart
leaves the old panel inactive."""

from __future__ import annotations

import importlib.util
import re
import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, INPUT, INTERRUPTED, PANEL, run_all, wait_more_interrupted, wait_streaming
from lab_page import STREAMING_SETUP as SETUP
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]


def run_all_until_the_panel_shows(page: Any) -> None:
    """Run All; again if the kernel was not connected yet and the run was dropped."""
    keys = page.locator(f"{CHAT} .nb-hitl-keys")
    for _attempt in range(3):
        run_all(page)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if keys.count():
                return
            page.wait_for_timeout(500)
        first = page.locator(".jp-CodeCell .jp-InputPrompt").first.inner_text()
        if re.search(r"\d", first):  # it ran: the panel is just slow to come
            keys.first.wait_for(state="attached", timeout=120_000)
            return
    raise AssertionError("Run All never ran in Notebook 7")


def test_keyboard_interrupt_and_restart_in_notebook7(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    if importlib.util.find_spec("notebook") is None:
        pytest.skip("NOTEBOOK 7 TEST SKIPPED: `pip install notebook>=7` (the test extra has it)")
    lab.write_notebook("nb7.ipynb", [SETUP, PANEL])
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    try:
        page.goto(f"{lab.url}/notebooks/nb7.ipynb?token={lab.token}")
        # Notebook 7 shows "No Kernel" until its kernel is connected; Run All before that is lost.
        deadline = time.monotonic() + 120
        while page.locator("text=No Kernel").count() or page.locator(".jp-CodeCell").count() < 2:
            assert time.monotonic() < deadline, "Notebook 7 never connected a kernel"
            page.wait_for_timeout(500)
        run_all_until_the_panel_shows(page)
        box = page.locator(INPUT)

        box.fill("first question")
        box.press("Control+Enter")
        wait_streaming(page)
        box.press("Escape")
        wait_more_interrupted(page, 0)

        before = page.locator(INTERRUPTED).count()
        box.fill("second question")
        box.press("Control+Enter")
        wait_streaming(page)
        page.locator("jp-button[data-command='notebook:interrupt-kernel']").first.click()
        wait_more_interrupted(page, before)
        # It says what stopped it: the kernel interrupt, not "the user".
        page.wait_for_selector(f"{INTERRUPTED} .nb-hitl-badge >> text=Kernel ▸ Interrupt",
                               timeout=30_000)  # fmt: skip
        page.screenshot(path=str(artifacts / "notebook7-kernel-interrupt.png"))

        # Escape after a click on the transcript's text (which takes no focus) stops too.
        before = page.locator(INTERRUPTED).count()
        box.fill("third question")
        box.press("Control+Enter")
        wait_streaming(page)
        page.locator(".nb-hitl-chat .nb-hitl-msg").first.click()
        page.keyboard.press("Escape")
        wait_more_interrupted(page, before)

        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Restart Kernel")).first.click()
        page.locator(".jp-Dialog-button.jp-mod-accept").click()
        page.wait_for_selector("text=kernel restarted: this panel is inactive", timeout=30_000)
        assert page.locator(f"{CHAT} button.nb-hitl-send").first.is_disabled()
    finally:
        page.close()
        for _ in range(30):  # a kernel still restarting answers 500 for a moment
            try:
                lab.shutdown_kernels()
                break
            except urllib.error.HTTPError:
                time.sleep(1)
