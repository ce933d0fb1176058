"""Rows drawn by the transcript's one model in real JupyterLab and Chromium: a second view of
the model and the page reloaded both draw what the first view drew from its keyed ops ("Show
earlier", new questions, a streamed answer drawn finished in its place), with every model
string escaped."""

from __future__ import annotations

from typing import Any

import pytest
from lab_page import open_and_run_all
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl import Msg, ReActAgent, ScriptedModel
agent = ReActAgent("Friday", "sys", ScriptedModel(["First answer.", "Second answer."]))
agent.memory.add_sync([
    Msg("User" if i % 2 == 0 else "Friday",
        f"message {i} <img src=x onerror=alert(1)> **done**",
        "user" if i % 2 == 0 else "assistant")
    for i in range(60)])
panel = nb_hitl.show(agent, session=None, inspector=False)
panel"""

SECOND = """\
view = panel.chat.transcript.view
view  # a second view of the transcript's model"""

LATER = """\
import asyncio
await asyncio.sleep(2)  # both views drawn first: what follows reaches them as ops
chat = panel.chat
chat.transcript.show_earlier()
for text in ("late question", "another question"):
    chat.send(text)
    await asyncio.sleep(0.2)
    while chat.state != "idle":
        await asyncio.sleep(0.05)
print("done", len(view.rows))"""

ROWS = """() => [...document.querySelectorAll('.nb-hitl-rows')].map((seg) => ({
  inPanel: !!seg.closest('.nb-hitl-chat'),
  keys: [...seg.children].map((r) => r.dataset.nbHitlKey),
  text: seg.innerText, imgs: seg.querySelectorAll('img').length,
  bold: seg.querySelectorAll('strong').length}))"""

DRAWN = """() => { const segs = [...document.querySelectorAll('.nb-hitl-rows')];
  return segs.length === 2 && segs.every((s) => /another question/.test(s.innerText)
    && /message 0 /.test(s.innerText) && /First answer/.test(s.innerText)); }"""


def test_a_second_view_and_a_reloaded_page_draw_the_transcripts_rows(
    browser: Any, lab: LabServer
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("segments.ipynb", [SETUP, SECOND, LATER]))
        page.wait_for_function(DRAWN, timeout=120_000)
        page.locator("text=/^done \\d+/").first.wait_for(timeout=60_000)
        first, second = page.evaluate(ROWS)
        assert first["inPanel"] and not second["inPanel"]
        assert first["keys"] == second["keys"] and len(first["keys"]) >= 63
        assert first["text"] == second["text"]
        assert first["imgs"] == second["imgs"] == 0  # model text stayed text
        assert "message 7 <img src=x onerror=alert(1)> done" in first["text"]
        assert first["bold"] >= 60  # markdown rendered by the kernel
        # Saved and reloaded: the views start from the widget's state, which the kernel kept
        # current without resending it.
        page.locator(".jp-Notebook").first.click()
        page.keyboard.press("Control+s")
        page.wait_for_timeout(1500)
        page.reload()
        page.wait_for_function(DRAWN, timeout=120_000)
        again = page.evaluate(ROWS)
        assert [r["keys"] for r in again] == [first["keys"], first["keys"]]
        assert again[0]["text"] == first["text"] and again[0]["imgs"] == 0
        assert not errors, errors
    finally:
        page.close()
