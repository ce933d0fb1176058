"""The notebook extension and the keyboard in real JupyterLab and Chromium.

- the notebook's own ■ (Kernel ▸ Interrupt) stops a streaming panel reply (``%load_ext nb_hitl``);
- Ctrl+Enter in the chat sends, Escape anywhere in the panel stops (after a click on the
  transcript's text too);
- Stop (Escape or the button) draws the streaming row as stopping in the front end before the
  kernel answers; the kernel's interrupted style then replaces the guess;
- re-running the panel's cell while a reply streams gives a panel whose Stop works;
- after a kernel restart (and a shutdown) the old panel says it is inactive, buttons disabled.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import (
    CHAT,
    INPUT,
    PANEL,
    SEND,
    STOP,
    interrupted_rows,
    open_and_run_all,
    run_all,
    wait_more_interrupted,
    wait_status,
    wait_streaming,
)
from lab_page import STREAMING_SETUP as SETUP
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]


def open_panel(page: Any, lab: LabServer, name: str) -> None:
    open_and_run_all(page, lab.write_notebook(name, [SETUP, PANEL]))
    page.wait_for_selector(INPUT, timeout=90_000)
    # The keyboard widget is an anywidget: wait until its front end has rendered.
    page.wait_for_selector(f"{CHAT} .nb-hitl-keys", state="attached", timeout=60_000)


WATCH_ROW = """() => {
  const live = document.querySelector('.nb-hitl-chat .nb-hitl-live');
  window.nbHitlRowStates = [];
  const names = ['nb-hitl-stopping', 'nb-hitl-interrupted'];
  const record = () => window.nbHitlRowStates.push(
    names.filter((c) => live.classList.contains(c)).join(' '));
  new MutationObserver(record).observe(live, {attributes: true, attributeFilter: ['class']});
}"""


def assert_guess_then_kernel(page: Any) -> None:
    """The row's classes went: the front end's guess alone first, the kernel's word last."""
    states = page.evaluate("window.nbHitlRowStates")
    assert states[0] == "nb-hitl-stopping", states  # drawn before any answer from the kernel
    assert states[-1] == "nb-hitl-interrupted", states  # the guess gave way to the kernel's word
    assert page.locator(f"{CHAT} .nb-hitl-stopping").count() == 0


def test_interrupt_button_keyboard_and_rerun(browser: Any, lab: LabServer, artifacts: Path) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_panel(page, lab, "keyboard.ipynb")
        box = page.locator(INPUT)
        assert "Ctrl+Enter" in (page.locator(SEND).get_attribute("title") or "")
        assert "Esc" in (page.locator(STOP).get_attribute("title") or "")

        # Ctrl+Enter sends (and does not run the cell: the panel stays, no new execution).
        prompt_before = page.locator(".jp-CodeCell .jp-InputPrompt").last.inner_text()
        box.fill("first question")
        box.press("Control+Enter")
        wait_streaming(page)
        assert box.input_value() == ""
        assert page.locator(".jp-CodeCell .jp-InputPrompt").last.inner_text() == prompt_before

        # Escape in the chat stops it.
        page.evaluate(WATCH_ROW)
        box.press("Escape")
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg.nb-hitl-interrupted", timeout=30_000)
        wait_status(page, "idle")
        assert_guess_then_kernel(page)
        assert page.locator(f"{CHAT} .nb-hitl-msg", has_text="first question").count() == 1

        # Escape works with focus anywhere in the panel: after a click on the transcript's text
        # (which takes no focus: the notebook gets it) and in the inspector's pin box.
        for place in (f"{CHAT} .nb-hitl-msg >> nth=0", "input.nbh-pin-ref"):
            before = interrupted_rows(page)
            box.fill("a question stopped from " + place)
            box.press("Control+Enter")
            wait_streaming(page)
            page.locator(place).click()
            page.keyboard.press("Escape")
            wait_more_interrupted(page, before)
            wait_status(page, "idle")

        # The notebook's own ■ stops a streaming reply (no cell runs meanwhile).
        before = interrupted_rows(page)
        box.fill("second question")
        page.locator(SEND).click()
        wait_streaming(page)
        page.locator("jp-button[data-command='notebook:interrupt-kernel']").first.click()
        wait_more_interrupted(page, before)
        wait_status(page, "idle")
        # It says what stopped it: the kernel interrupt, not "the user".
        page.wait_for_selector(f"{CHAT} .nb-hitl-badge >> text=Kernel ▸ Interrupt",
                               timeout=30_000)  # fmt: skip
        assert "Kernel ▸ Interrupt" in page.locator(f"{CHAT} .nb-hitl-status").first.inner_text()
        page.screenshot(path=str(artifacts / "kernel-interrupt-stopped-panel.png"))

        # Re-run the panel's cell while a reply streams: the new panel's Stop works.
        box.fill("third question")
        box.press("Control+Enter")
        wait_streaming(page)
        page.locator(".jp-CodeCell").last.locator(".jp-InputPrompt").click()
        page.locator("jp-button[data-command='notebook:run-cell-and-select-next']").first.click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-note >> text=/not follow|no longer/",
                               state="detached", timeout=30_000)  # fmt: skip
        wait_streaming(page)  # the new panel draws the running reply's row (it may come last)
        page.wait_for_selector(f"{STOP}:enabled", timeout=30_000)
        before = interrupted_rows(page)
        page.evaluate(WATCH_ROW)
        page.locator(STOP).click()
        wait_more_interrupted(page, before)
        wait_status(page, "idle")
        assert_guess_then_kernel(page)

        # Enter in the inspector's pin box pins (row 1: the first question).
        page.locator("input.nbh-pin-ref").fill("1")
        page.locator("input.nbh-pin-ref").press("Enter")
        page.wait_for_selector(".nb-hitl-table .nb-hitl-badge-pinned", timeout=30_000)

        # Outside the chat JupyterLab's own keys still work: Escape leaves a cell's editor.
        page.locator(".jp-CodeCell .cm-content").first.click()
        page.wait_for_selector(".jp-Notebook.jp-mod-editMode", timeout=10_000)
        page.keyboard.press("Escape")
        page.wait_for_selector(".jp-Notebook.jp-mod-commandMode", timeout=10_000)
        assert not [e for e in errors if "nb-hitl" in e or "anywidget" in e.lower()], errors
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)


def test_restart_and_shutdown_leave_the_old_panel_inactive(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_panel(page, lab, "restart.ipynb")
        page.locator(INPUT).fill("a long answer please")
        page.locator(INPUT).press("Control+Enter")
        wait_streaming(page)
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Restart Kernel")).first.click()
        page.locator(".jp-Dialog-button.jp-mod-accept").click()
        page.wait_for_selector("text=kernel restarted: this panel is inactive", timeout=30_000)
        for selector in (SEND, STOP, INPUT):
            assert page.locator(selector).first.is_disabled(), selector
        # It does not pretend to run: the status says inactive, not "running".
        assert page.locator(".nb-hitl-status").first.get_attribute("data-state") == "inactive"
        page.screenshot(path=str(artifacts / "panel-inactive-after-restart.png"))

        # A fresh panel in the new kernel works; then a shutdown makes it inactive too.
        run_all(page)
        page.wait_for_selector(f"{SEND}:enabled", timeout=90_000)
        page.wait_for_selector(f"{CHAT} .nb-hitl-keys", state="attached", timeout=60_000)
        assert page.locator(".nb-hitl-inactive-note").count() == 0
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Shut Down Kernel")).first.click()
        dialog = page.locator(".jp-Dialog-button.jp-mod-accept")
        if dialog.count():
            dialog.click()
        page.wait_for_selector("text=kernel restarted: this panel is inactive", timeout=30_000)
        assert page.locator(SEND).first.is_disabled()
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)
