"""The chat's send-while-running modes in real JupyterLab and Chromium.

- Steer picked while a tool runs: Send reads "Steer", the status line says so, the message is
  taken in after the tool result (drawn there with a "steered" badge), nothing is interrupted;
- Queue picked while an answer streams: the message is answered after that answer, which
  finishes whole.

The tool waits for a file the test writes, so the steer is sent while the tool surely runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, INPUT, ROWS_JS, SEND, STATUS, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import asyncio
from pathlib import Path
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn

async def fetch(url: str) -> str:
    '''Fetch a page.

    Args:
        url: the address.
    '''
    while not Path("release.flag").exists():
        await asyncio.sleep(0.05)
    return f"page at {url}"

toolkit = Toolkit()
toolkit.register_tool_function(fetch)
LONG = " ".join(f"word{i}" for i in range(600))
agent = ReActAgent("Friday", "Test.", ScriptedModel([
    ScriptedTurn(text="Fetching the page.", tool_calls=[ScriptedToolCall("fetch", {"url": "a"})]),
    "Done, with your note.",
    LONG + " THE END",
    "Queued answer.",
], tokens_per_second=60), toolkit=toolkit)
panel = nb_hitl.show(agent, session=None)
panel"""


def pick(page: Any, label: str) -> None:
    page.locator(".nb-hitl-send-mode button", has_text=label).first.click()


def row_texts(page: Any) -> list[str]:
    """The transcript's rows in reading order, as the browser shows them."""
    return list(
        page.locator(f"{CHAT} .nb-hitl-rows").first.evaluate(
            f"el => ({ROWS_JS})(el).map(r => r.innerText)"
        )
    )


def index_of(rows: list[str], text: str) -> int:
    hits = [i for i, r in enumerate(rows) if text in r]
    assert len(hits) == 1, (text, rows)
    return hits[0]


def test_steer_while_a_tool_runs_then_queue(browser: Any, lab: LabServer, artifacts: Path) -> None:
    flag = lab.root / "release.flag"
    flag.unlink(missing_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("send-modes.ipynb", [SETUP]))
        page.wait_for_selector(INPUT, timeout=90_000)
        send = page.locator(SEND)
        assert send.inner_text().strip() == "Send"

        # Steer while the tool runs.
        page.locator(INPUT).fill("fetch page a")
        send.click()
        wait_status(page, "running")
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=/Fetching the page/", timeout=60_000)
        page.wait_for_selector(f"{SEND}:has-text('Redirect')", timeout=20_000)  # the default
        pick(page, "Steer")
        page.wait_for_selector(f"{SEND}:has-text('Steer')", timeout=20_000)
        page.wait_for_selector(f"{STATUS} >> text=/sending now: steers/", timeout=20_000)
        page.locator(INPUT).fill("also note the <b>date</b>")
        send.click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-note >> text=/taken in at the next step/")
        assert page.locator(STATUS).first.get_attribute("data-state") == "running"
        assert not [r for r in row_texts(page) if "note the" in r]  # not drawn where typed
        flag.write_text("go")
        page.wait_for_selector(
            f"{CHAT} .nb-hitl-msg >> text=/Done, with your note/", timeout=60_000
        )
        wait_status(page, "idle")
        rows = row_texts(page)
        steered = index_of(rows, "also note the <b>date</b>")  # shown as text, escaped
        assert index_of(rows, "page at a") < steered < index_of(rows, "Done, with your note")
        badge = page.locator(f"{CHAT} .nb-hitl-steered .nb-hitl-badge-steered")
        assert badge.count() == 1 and badge.first.inner_text().strip() == "steered"
        assert page.locator(f"{CHAT} .nb-hitl-steered b", has_text="date").count() == 0  # text
        assert page.locator(f"{CHAT} .nb-hitl-interrupted").count() == 0  # nothing cancelled
        assert send.inner_text().strip() == "Send"
        page.screenshot(path=str(artifacts / "send-mode-steered.png"))

        # Queue while an answer streams: answered after it, which finishes whole.
        pick(page, "Queue")
        page.locator(INPUT).fill("tell a long story")
        send.click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-live >> text=/word30 /", timeout=60_000)
        page.wait_for_selector(f"{SEND}:has-text('Queue')", timeout=20_000)
        page.wait_for_selector(f"{STATUS} >> text=/sending now: queued/", timeout=20_000)
        page.locator(INPUT).fill("then this")
        send.click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=/then this/", timeout=20_000)
        assert page.locator(STATUS).first.get_attribute("data-state") == "running"
        assert page.locator(f"{CHAT} .nb-hitl-interrupted").count() == 0
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=/Queued answer/", timeout=90_000)
        wait_status(page, "idle")
        rows = row_texts(page)
        long_answer = index_of(rows, "THE END")
        assert long_answer < index_of(rows, "then this") < index_of(rows, "Queued answer")
        assert page.locator(f"{CHAT} .nb-hitl-interrupted").count() == 0
        assert page.locator(f"{CHAT} .nb-hitl-badge-steered").count() == 1
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
    finally:
        page.close()
        lab.shutdown_kernels()
        flag.unlink(missing_ok=True)
        time.sleep(0.5)
