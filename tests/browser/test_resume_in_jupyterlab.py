"""Continue, the seam, stop-after-step and a branch switch in real JupyterLab and Chromium.

- Stop mid-sentence, type an instruction, press Continue: the box empties, and the partial
  answer and its continuation are drawn as ONE answer with a "resumed here" mark at the cut
  (quoting the instruction), the cut sentence finished;
- Shift+Escape while a tool runs: the status line says "stopping after this step…", the tool
  finishes, the reply ends with "[Stopped]" and the status says "stopped after a step";
- Edit on the first question (its ✎ button), Resend: a new branch with a "branch 2 of 2"
  switcher; its ‹ (pressed with the keyboard) brings the old branch back, seam included.

The demo's search tool takes 3 s here, so the graceful stop lands while it surely runs.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, INPUT, ROWS_JS, SEND, STATUS, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import asyncio
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel, Toolkit
from nb_hitl.demo import calculate, search_notes as quick_search

async def search_notes(query: str, limit: int = 3) -> str:
    '''Search the project notes for a query.

    Args:
        query: words to look for.
        limit: the most notes to return.
    '''
    await asyncio.sleep(3)
    return await quick_search(query, limit)

toolkit = Toolkit()
toolkit.register_tool_function(search_notes)
toolkit.register_tool_function(calculate)
agent = ReActAgent("Friday", "You are a helpful assistant.",
                   ScriptedModel.demo(tokens_per_second=15), toolkit=toolkit)
panel = nb_hitl.show(agent, session=None)
panel"""

CONTINUE = f"{CHAT} button:has-text('Continue')"
STOP = f"{CHAT} button.nb-hitl-stop"
FIRST_SENTENCE = (
    "Interrupting an agent comes down to one cancelled task: the reply runs as a background "
    "task of its own, so the notebook stays responsive while text streams in."
)
INSTRUCTION = "Continue, but keep it to one short paragraph."


def row_texts(page: Any) -> list[str]:
    """The transcript's rows in reading order, as the browser shows them."""
    return list(
        page.locator(f"{CHAT} .nb-hitl-rows").first.evaluate(
            f"el => ({ROWS_JS})(el).map(r => r.innerText)"
        )
    )


def status_text(page: Any) -> str:
    return str(page.locator(STATUS).first.inner_text())


def wait_text(page: Any, selector: str, pattern: str, timeout: float = 60.0) -> None:
    page.wait_for_selector(f"{selector} >> text=/{pattern}/", timeout=timeout * 1000)


def test_continue_seam_stop_after_step_and_branch_switch(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("resume.ipynb", [SETUP]))
        page.wait_for_selector(INPUT, timeout=90_000)
        # Ask, and press Stop mid-sentence.
        page.locator(INPUT).fill("How does interrupting an agent work?")
        page.locator(SEND).click()
        wait_text(page, ".nb-hitl-live", "one cancelled task")
        page.locator(STOP).click()
        wait_status(page, "idle")
        partial = next(r for r in row_texts(page) if "partial · interrupted" in r)
        assert "one cancelled task" in partial and FIRST_SENTENCE not in partial
        # Type how to go on, press Continue: one answer, with its seam.
        page.locator(INPUT).fill(INSTRUCTION)
        assert "instruction" in (page.locator(CONTINUE).get_attribute("title") or "")
        page.locator(CONTINUE).click()
        page.wait_for_function(f"() => document.querySelector('{INPUT}').value === ''")
        page.wait_for_selector(f"{CHAT} .nb-hitl-seam", timeout=60_000)
        wait_status(page, "idle")
        seams = page.locator(f"{CHAT} .nb-hitl-seam")
        assert seams.count() == 1
        seam = str(seams.first.inner_text())
        assert "resumed here" in seam and INSTRUCTION in seam
        assert seams.first.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # not clipped
        rows = row_texts(page)
        answer = next(r for r in rows if "resumed here" in r)
        assert FIRST_SENTENCE in answer.replace(seam, "").replace("\n", "")
        assert not [r for r in rows if "partial · interrupted" in r]  # folded into the answer
        assert not [r for r in rows if "[Interrupted]" in r]
        assert page.locator(f"{CHAT} .nb-hitl-msg.nb-hitl-interrupted").count() == 0
        inspector = page.locator(".nb-hitl-inspector .nb-hitl-table").first.inner_text()
        assert "continuation" in inspector  # ...which lists every record
        assert "resume instruction" in inspector and "partial" in inspector
        page.screenshot(path=str(artifacts / "resume-seam-1400.png"))
        # Stop after this step, with the keyboard, while the notes are searched.
        page.locator(INPUT).fill("How does memory compression work?")
        page.locator(SEND).click()
        page.wait_for_function(
            f"() => document.querySelector('{STATUS}').innerText.includes('running tool')",
            timeout=60_000,
        )
        step_button = page.locator(f"{CHAT} button.nb-hitl-stop-step")
        assert "Shift+Esc" in (step_button.get_attribute("title") or "")
        page.locator(INPUT).focus()
        page.keyboard.press("Shift+Escape")
        page.wait_for_function(
            f"() => document.querySelector('{STATUS}').innerText.includes('stopping after')",
            timeout=10_000,
        )
        assert "stopping after this step" in status_text(page)
        assert not step_button.is_enabled()
        page.screenshot(path=str(artifacts / "resume-stopping-after-step.png"))
        wait_status(page, "idle")
        assert "stopped after a step" in status_text(page)
        assert "[Stopped]" in row_texts(page)[-1]
        assert page.locator(CONTINUE).is_enabled()
        # Edit the first question: a new branch, and back with the switcher's ‹.
        edit = page.locator(f"{CHAT} .nb-hitl-action[data-nb-hitl-action='edit']").first
        edit.scroll_into_view_if_needed()
        edit.click()
        page.wait_for_function(
            f"() => document.querySelector('{INPUT}').value.startsWith('How does interrupting')"
        )
        page.locator(INPUT).fill("How does steering work?")
        assert page.locator(SEND).inner_text().strip() == "Resend"
        page.locator(SEND).click()
        wait_text(page, f"{CHAT} .nb-hitl-branch-switch", "branch 2 of 2")
        wait_text(page, CHAT, "Steering changes where a running reply goes")
        wait_status(page, "idle")
        rows = row_texts(page)
        assert not [r for r in rows if "one cancelled task" in r]
        page.screenshot(path=str(artifacts / "resume-branch-2.png"))
        back = page.locator(f"{CHAT} .nb-hitl-branch-switch button").first
        assert "main" in (back.get_attribute("title") or "")
        back.focus()
        page.keyboard.press("Enter")  # keyboard usable: Enter presses the focused ‹
        wait_text(page, f"{CHAT} .nb-hitl-branch-switch", "branch 1 of 2")
        page.wait_for_selector(f"{CHAT} .nb-hitl-seam", timeout=30_000)
        rows = row_texts(page)
        assert [r for r in rows if FIRST_SENTENCE[:40] in r]
        assert not [r for r in rows if "Steering changes" in r]
        page.screenshot(path=str(artifacts / "resume-branch-1.png"))
        page.set_viewport_size({"width": 800, "height": 1100})
        page.wait_for_timeout(300)
        switch = page.locator(f"{CHAT} .nb-hitl-branch-switch").first
        assert switch.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        page.screenshot(path=str(artifacts / "resume-branch-1-800.png"))
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
        assert re.search(r"branch 1 of 2", switch.inner_text())
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)


DARK_SETUP = """\
import nb_hitl
from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.events import MessageUpdated

agent = ReActAgent("Friday", "Helpful.", ScriptedModel.demo(tokens_per_second=400))
def cut(ev):
    if isinstance(ev, MessageUpdated) and len(ev.msg.get_text_content() or "") > 60:
        agent.interrupt_nowait()
sub = agent.subscribe(cut)
await agent(Msg("User", "How does interrupting an agent work?", "user"))
sub.close()
await agent.resume("Continue, but keep it to one short paragraph.")
await agent.edit_and_resend(agent.memory.messages[0].id, "How does steering work?")
agent.checkout("main")
panel = nb_hitl.show(agent, session=None)
panel"""

CONTRAST = """el => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let node = el, bg = null;
  while (node && node.nodeType === 1) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) { bg = c; break; }
    node = node.parentElement;
  }
  bg = bg || [255, 255, 255];
  const fg = rgb(getComputedStyle(el).color);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def test_seam_and_branch_switcher_read_in_the_dark_at_800_px(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    lab.set_setting("@jupyterlab/apputils-extension", "themes", {"theme": "JupyterLab Dark"})
    page = browser.new_page(viewport={"width": 800, "height": 1000})
    try:
        open_and_run_all(page, lab.write_notebook("resume-dark.ipynb", [DARK_SETUP]))
        page.wait_for_selector(f"{CHAT} .nb-hitl-seam", timeout=90_000)
        page.wait_for_selector(f"{CHAT} .nb-hitl-branch-switch", timeout=30_000)
        switch = page.locator(f"{CHAT} .nb-hitl-branch-switch").first
        switch.scroll_into_view_if_needed()
        for selector in (".nb-hitl-seam", ".nb-hitl-branch-label", ".nb-hitl-action"):
            target = page.locator(f"{CHAT} {selector}").first
            ratio = float(target.evaluate(CONTRAST))
            assert ratio >= 4.5, (selector, ratio)
        assert switch.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
        page.screenshot(path=str(artifacts / "resume-dark-800.png"))
    finally:
        page.close()
        lab.set_setting("@jupyterlab/apputils-extension", "themes", {"theme": "JupyterLab Light"})
        lab.shutdown_kernels()
        time.sleep(0.5)
