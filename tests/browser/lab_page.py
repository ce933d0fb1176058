"""Driving a notebook page in the browser tests: Run All, the chat's selectors and status, the
interrupted rows, a slider drag, and the streaming panel the keyboard tests share."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

CHAT = ".nb-hitl-chat"
INPUT = f"{CHAT} textarea"
SEND = f"{CHAT} button.nb-hitl-send"
STOP = f"{CHAT} button:has-text('Stop')"
STATUS = ".nb-hitl-status"
INTERRUPTED = f"{CHAT} .nb-hitl-msg.nb-hitl-interrupted"

ROWS_JS = "(el) => Array.from(el.children)"
"""JavaScript: the rows of a ``.nb-hitl-rows`` box in reading order (every row of the
transcript's one model: messages, cards, notes, streaming rows)."""

STREAMING_SETUP = """\
%load_ext nb_hitl
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
LONG = " ".join(f"word{i}" for i in range(4000))
agent = ReActAgent("Friday", "You are a test agent.",
                   ScriptedModel([LONG] * 6, tokens_per_second=40))"""
"""A notebook cell: an agent whose every answer streams 4,000 words, slowly."""
PANEL = "panel = nb_hitl.show(agent, session=None)\npanel"
"""A notebook cell showing that agent's panel."""


def run_all(page: Any) -> None:
    """Run ▸ Run All Cells from the menu bar."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def open_and_run_all(page: Any, url: str) -> None:
    """Open a notebook in JupyterLab and run all its cells once its kernel is idle.

    A fresh page briefly shows an idle status before the kernel exists: wait for the kernel.
    """
    page.goto(url)
    page.wait_for_selector("text=/\\| Idle/", timeout=90_000)
    run_all(page)


KERNEL_READY = """() => {
  const shell = window.jupyterapp?.shell;
  let panel = shell?.currentWidget;
  if (!panel?.sessionContext && shell?.widgets) {
    for (const w of shell.widgets("main")) if (w.sessionContext) { panel = w; break; }
  }
  const k = panel?.sessionContext?.session?.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""
"""The current notebook's kernel is connected and idle (asked of the app: the execution
indicator says idle before a kernel exists, and a Run All then opens the kernel dialog)."""


def run_all_until(page: Any, done: Callable[[], bool], what: str, timeout: float = 240.0) -> None:
    """Run All in the open notebook (JupyterLab or Notebook 7) until ``done()``.

    Runs only once the notebook's kernel is connected and idle. If the front end asks which
    kernel to start, answers once and waits for the dialog to go before anything else: while
    it closes, its Select button is still on the page, and each further click (or a Run All
    before the new kernel is up) changed the kernel again; a full run once left JupyterLab on a
    kernel that was gone ("Disconnected"), and Run All never finished. A run that started
    shows a number or * in the first cell's prompt: it is slow to draw, not dropped, and
    running all again would replace the widgets the test then uses. Needs the app exposed as
    ``window.jupyterapp`` (the test server does that).
    """
    page.wait_for_function("() => window.jupyterapp", timeout=90_000)
    run = "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }"
    started = "() => /[0-9*]/.test(document.querySelector('.jp-InputPrompt')?.textContent || '')"
    dialog = page.locator(".jp-Dialog")
    end, ran = time.monotonic() + timeout, 0.0
    while not done():
        assert time.monotonic() < end, f"Run All never showed {what}"
        select = page.locator(".jp-Dialog button:has-text('Select')")
        if select.count():
            select.first.click()
            dialog.first.wait_for(state="detached", timeout=30_000)
            ran = 0.0
        elif (not ran or time.monotonic() - ran > 45) and page.evaluate(KERNEL_READY):
            if ran and page.evaluate(started):
                page.wait_for_timeout(500)
                continue
            page.evaluate(run)  # not awaited: its promise waits for the whole run
            ran = time.monotonic()
        page.wait_for_timeout(500)


def open_in_notebook7(page: Any, url: str, ready: str, timeout: float = 240.0) -> None:
    """Open a notebook in Notebook 7 and Run All until ``ready`` (a selector) is on the page.

    Notebook 7 has no status bar to wait on: a Run All before its kernel is ready is dropped
    silently, and it may ask which kernel to start (even after a first run began).
    """
    page.goto(url)
    target = page.locator(ready)
    run_all_until(page, lambda: bool(target.count()), ready, timeout)


def wait_status(page: Any, state: str, timeout: float = 60.0) -> None:
    """Wait until the chat's status line is in ``state``."""
    page.wait_for_selector(f"{STATUS}[data-state='{state}']", timeout=timeout * 1000)


def wait_streaming(page: Any) -> None:
    """Wait until the streaming panel runs and its answer is on screen (``STREAMING_SETUP``)."""
    wait_status(page, "running")
    page.wait_for_selector(".nb-hitl-live >> text=/word30 /", timeout=60_000)


def interrupted_rows(page: Any) -> int:
    """How many chat rows are drawn in the interrupted style."""
    return int(page.locator(INTERRUPTED).count())


def wait_more_interrupted(page: Any, before: int) -> None:
    """Wait until more than ``before`` chat rows are drawn in the interrupted style."""
    page.wait_for_function(
        f"n => document.querySelectorAll('{INTERRUPTED}').length > n", arg=before, timeout=30_000
    )


def drag_range(page: Any, range_input: Any, to_fraction: float, steps: int) -> None:
    """Drag a native ``<input type=range>``'s thumb with the mouse to ``to_fraction`` of its
    track (0: its start, 1: its end), as a person does (``input`` events, then ``change``)."""
    box = range_input.bounding_box()
    assert box is not None
    low, high, value = (
        float(range_input.evaluate(f"e => Number(e.{name})")) for name in ("min", "max", "value")
    )
    at = (value - low) / (high - low) if high > low else 0.0
    thumb = 8.0  # half the thumb: the track runs from its centre at one end to the other
    span = box["width"] - 2 * thumb
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + thumb + span * at, y)
    page.mouse.down()
    page.mouse.move(box["x"] + thumb + span * to_fraction, y, steps=steps)
    page.mouse.up()
