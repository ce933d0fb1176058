"""In real JupyterLab, a kernel's first panel comes with its module inline and tells the
kernel the server's URL for it; the panels made after it load their module by that URL, which
the page imports once: a cell run again and again fetches it once, and every panel works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, INPUT, SEND, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.widgets import ChatWidget
def agent():
    return ReActAgent("Friday", "sys", ScriptedModel(["Hello from a module by URL."] * 3))"""
CELL = "chat = ChatWidget(agent())\nchat"
FETCHED = """() => performance.getEntriesByType('resource')
  .map((e) => e.name).filter((n) => n.includes('/nb_hitl/static/chat.js'))"""


def rerun_last_cell(page: Any) -> None:
    page.locator(".jp-CodeCell").last.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")


def test_later_panels_import_their_module_once_by_url(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("modules.ipynb", [SETUP, CELL]))
        page.wait_for_selector(SEND, timeout=90_000)
        assert page.evaluate(FETCHED) == []  # the first panel's module came inline
        for _ in range(2):  # the cell again: a new panel, its module by URL
            old = page.locator(SEND).element_handle()
            rerun_last_cell(page)
            page.wait_for_function("(old) => !old.isConnected", arg=old, timeout=60_000)
            page.wait_for_selector(SEND, timeout=60_000)
            fetched = page.evaluate(FETCHED)
            assert len(fetched) == 1, fetched  # imported once, then reused
            assert "?v=" in fetched[0], fetched
        page.locator(INPUT).fill("hi")
        page.locator(SEND).click()
        page.wait_for_selector(f"{CHAT} >> text=Hello from a module by URL.", timeout=60_000)
        wait_status(page, "idle")
        page.screenshot(path=str(artifacts / "panel-module-by-url.png"))
        assert errors == []
    finally:
        page.close()
