"""Streaming rows in real JupyterLab and Chromium: a second view of the transcript made
mid-stream (it starts from the kernel's snapshot) draws the streaming row as the first view
drew it from the deltas, while the answer streams and once it is final; appended text with
markup stays text."""

from __future__ import annotations

from typing import Any

import pytest
from lab_page import open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
PARAS = [" ".join(f"p{i}w{k}" for k in range(40)) for i in range(12)]
TEXT = "**Bold** start <b>not bold</b> <img src=x onerror=alert(1)>\\n\\n" + "\\n\\n".join(PARAS)
agent = ReActAgent("Friday", "sys", ScriptedModel([TEXT], tokens_per_second=60))
panel = nb_hitl.show(agent, session=None, inspector=False)
panel"""

SECOND = """\
import asyncio
panel.chat.send("go")
while not panel.chat.live.views:
    await asyncio.sleep(0.05)
await asyncio.sleep(1.5)
panel.chat.transcript.view  # a second view of the transcript, made mid-stream"""

VIEWS = """() => [...document.querySelectorAll('.nb-hitl-rows')].map((rows) => {
  const el = rows.lastElementChild;  // the answer's row: streaming, then finished
  return {text: el.textContent, imgs: el.querySelectorAll('img').length,
    bold: [...el.querySelectorAll('strong')].map((b) => b.textContent),
    live: el.classList.contains('nb-hitl-live-row') && el.classList.contains('nb-hitl-live'),
    key: el.dataset.nbHitlKey}; })"""


def test_a_second_view_made_mid_stream_draws_what_the_first_drew(
    browser: Any, lab: LabServer
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("live-rows.ipynb", [SETUP, SECOND]))
        page.wait_for_function(
            "() => document.querySelectorAll('.nb-hitl-live-row').length === 2", timeout=90_000
        )
        page.wait_for_function(  # both views follow the stream, the second from its snapshot
            "() => [...document.querySelectorAll('.nb-hitl-live-row')].every("
            "(el) => /p3w10 /.test(el.textContent))",
            timeout=60_000,
        )
        first, second = page.evaluate(VIEWS)
        assert first["live"] and second["live"]
        assert first["imgs"] == second["imgs"] == 0  # markup in the text stayed text
        assert "<img src=x onerror=alert(1)>" in first["text"]
        assert first["bold"] == second["bold"] == ["Bold"]  # a finished paragraph, rendered
        wait_status(page, "idle")
        page.wait_for_function(
            "() => document.querySelectorAll('.nb-hitl-live-row').length === 0"
            " && [...document.querySelectorAll('.nb-hitl-rows')].every("
            "(rows) => /p11w39/.test(rows.lastElementChild.textContent))",
            timeout=30_000,
        )
        first, second = page.evaluate(VIEWS)
        assert first == second and first["imgs"] == 0 and not first["live"]
        assert not errors, errors
    finally:
        page.close()
