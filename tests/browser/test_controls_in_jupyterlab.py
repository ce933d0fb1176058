"""The panel's everyday controls in real JupyterLab, and in Notebook 7 (served by the same test
server at ``/notebooks/``), with Chromium: the context gauge, an error card (no stray line) and
Retry, Copy into the clipboard, the compression row and its Undo (the agent's memory back, read
from the kernel), Export as Markdown and as HTML next to the notebook, Clear and Undo clear (the
memory emptied and back); the hub's Start, Next round, and Continue after a Stop (the
speakers' memories read from the kernel); and the inspector following the explorer's Apply.
Screenshots at 1,400 and 800 px (``controls-<front>-*.png``)."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import (
    CHAT,
    INPUT,
    ROWS_JS,
    SEND,
    open_and_run_all,
    open_in_notebook7,
    wait_status,
)
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import long_task_transcript
from nb_hitl.model import ScriptedTurn
agent = ReActAgent(
    "Friday", "You are a test agent.",
    ScriptedModel([ScriptedTurn(error=RuntimeError("server down")), "Recovered: **all good**.",
                   "Long: " + "lorem ipsum " * 300], tokens_per_second=400),
    compression_config=CompressionConfig(trigger_threshold=3000, keep_recent=2),
)
await agent.memory.add(long_task_transcript()[:30])
panel = nb_hitl.show(agent, session=None)
panel"""

HUB = """\
from nb_hitl.pipeline import MsgHub
THIRD = "Third: " + " ".join(f"point{i}" for i in range(600))
alice = ReActAgent("Alice", "You are Alice.",
                   ScriptedModel(["Tabs.", "Still tabs.", THIRD, "Alice again."],
                                 tokens_per_second=60))
bob = ReActAgent("Bob", "You are Bob.",
                 ScriptedModel(["Spaces.", "Still spaces.", "Bob goes on."], tokens_per_second=60))
hub_panel = nb_hitl.show(MsgHub([alice, bob]))
hub_panel"""

EXPLORER = "explorer = panel.inspector.open_explorer()"


def rows_with(page: Any, text: str) -> int:
    return int(page.locator(f"{CHAT} .nb-hitl-msg", has_text=text).count())


# Headless Chromium has one clipboard for the whole browser (every context and page of the
# session), and reading or writing it needs the page to be the focused one: an earlier test's
# page, or text left on the clipboard, must not decide what this test reads.
CLIPBOARD_MARK = "nb-hitl-test: clipboard not written yet"


def clear_clipboard(page: Any) -> None:
    """Focus this page and put a marker on the shared clipboard before a Copy click."""
    page.bring_to_front()
    page.evaluate("(mark) => navigator.clipboard.writeText(mark)", CLIPBOARD_MARK)
    assert page.evaluate("() => navigator.clipboard.readText()") == CLIPBOARD_MARK


def wait_copied(page: Any) -> str:
    """Wait for a Copy click to replace the marker; the clipboard's text then."""
    # Polled here: wait_for_function does not await the predicate's promise (a Promise is
    # truthy), so it returned at once and a Copy slower than the read (the long answer's, which
    # asks the kernel) read the marker back under load.
    end = time.monotonic() + 30
    while True:
        text = str(page.evaluate("() => navigator.clipboard.readText()"))
        if text != CLIPBOARD_MARK or time.monotonic() > end:
            return text
        page.wait_for_timeout(100)


# perComm: a subshell per comm, a few hundred of them, fill the kernel's ZMQ context; the
# clicks on widgets drawn by a click (Undo clear) or re-enabled by one (the inspector's Undo)
# were sent to the clicked button's subshell, which could no longer answer (see widgets/_loop.py).
MEMORY = (
    "(len(agent.memory.messages), bool(agent.memory.summary),"
    " sum(1 for m in agent.memory.messages if agent.memory.marks_of(m.id)))"
)
"""The agent's memory as the kernel holds it: (messages, has a summary, marked messages)."""


def memory(lab: LabServer) -> tuple[int, bool, int]:
    n, summary, marked = lab.kernel_eval(MEMORY).strip("()").split(", ")
    return int(n), summary == "True", int(marked)


def export_as(page: Any, lab: LabServer, fmt: str, suffix: str) -> str:
    """Export in ``fmt`` (the format menu's label); the text of the one file it wrote."""
    for old in lab.root.glob(f"Friday-chat-*{suffix}"):  # an earlier case's export
        old.unlink()
    page.locator(f"{CHAT} .nb-hitl-export-format select").select_option(label=fmt)
    page.locator(f"{CHAT} button.nb-hitl-export").click()
    page.wait_for_selector(f"{CHAT} .nb-hitl-note >> text=/Saved .* messages to .*{suffix}/",
                           timeout=30_000)  # fmt: skip
    (exported,) = lab.root.glob(f"Friday-chat-*{suffix}")
    return exported.read_text()


@pytest.mark.parametrize(
    ("front", "comms"), [("lab", "default"), ("lab", "perComm"), ("nb7", "default")]
)
def test_everyday_controls(
    browser: Any, lab: LabServer, artifacts: Path, front: str, comms: str
) -> None:
    if front == "nb7" and importlib.util.find_spec("notebook") is None:
        pytest.skip("NOTEBOOK 7 TEST SKIPPED: `pip install notebook>=7` (the test extra has it)")
    if comms == "default":  # whatever an earlier test of the session chose
        lab.clear_setting("@jupyterlab/apputils-extension", "kernels-settings")
    else:
        lab.set_setting("@jupyterlab/apputils-extension", "kernels-settings",
                        {"commsOverSubshells": comms})  # fmt: skip
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        name = f"controls-{front}-{comms}.ipynb"
        url = lab.write_notebook(name, [SETUP, HUB, EXPLORER])
        if front == "nb7":
            open_in_notebook7(page, f"{lab.url}/notebooks/{name}?token={lab.token}", INPUT)
        else:
            open_and_run_all(page, url)
        page.wait_for_selector(INPUT, timeout=90_000)
        page.wait_for_selector(f"{CHAT} .nb-hitl-keys", state="attached", timeout=60_000)

        # The context gauge: the next prompt against the threshold, over it here.
        gauge = page.locator(f"{CHAT} .nb-hitl-gauge")
        assert "/ 3,000 tokens" in gauge.inner_text()
        assert "nb-hitl-gauge-over" in (gauge.get_attribute("class") or "")

        # A model error: a card without a stray "True" line, the text back, Retry.
        page.locator(INPUT).fill("hello there")
        page.locator(SEND).click()
        wait_status(page, "error")
        card = page.locator(f"{CHAT} .nb-hitl-msg.nb-hitl-error", has_text="server down").last
        assert "True" not in card.inner_text()
        assert page.locator(INPUT).input_value() == "hello there"
        # Memory was over the threshold: compression ran first and has its row.
        row = page.locator(f"{CHAT} .nb-hitl-compression-row")
        row.wait_for(timeout=30_000)
        assert "→" in row.inner_text() and "folded into a summary" in row.inner_text()
        page.locator(f"{CHAT} button.nb-hitl-retry").click()
        wait_status(page, "idle")
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=Recovered:", timeout=30_000)
        assert rows_with(page, "hello there") == 1  # Retry did not send the question again
        assert page.locator(INPUT).input_value() == ""
        assert page.locator(f"{CHAT} button.nb-hitl-retry").is_hidden()
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-after-retry-1400.png"))

        # Copy: the message's own text, into the real clipboard.
        message = page.locator(f"{CHAT} .nb-hitl-msg", has_text="Recovered:").last
        clear_clipboard(page)
        message.hover()
        message.locator(".nb-hitl-copy").click()
        copied = wait_copied(page)
        assert copied == "Recovered: **all good**."

        # The compression row's Undo brings the folded messages back into the agent's memory.
        held, summarised, folded = memory(lab)
        assert summarised and folded > 0, (held, summarised, folded)
        row.locator("button.nb-hitl-undo-compression").click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-compression.nb-hitl-undone", timeout=30_000)
        assert row.locator("button.nb-hitl-undo-compression").is_disabled()
        assert memory(lab) == (held, False, 0)

        # Export writes a Markdown or an HTML file next to the notebook (the kernel's folder).
        text = export_as(page, lab, "Markdown", ".md")
        assert "Recovered: **all good**." in text and "hello there" in text
        text = export_as(page, lab, "HTML", ".html")
        assert "<strong>all good</strong>" in text and "hello there" in text
        assert "**all good**" not in text

        # Clear empties the agent's memory; Undo clear brings it back.
        rows_now = f"() => ({ROWS_JS})(document.querySelector('{CHAT} .nb-hitl-rows')).length"
        before = int(page.evaluate(rows_now))
        page.locator(f"{CHAT} button.nb-hitl-clear").click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-cleared", timeout=30_000)
        assert rows_with(page, "Recovered:") == 0
        assert memory(lab) == (0, False, 0)
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-cleared-1400.png"))
        page.locator(f"{CHAT} button.nb-hitl-undo-clear").click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-cleared", state="detached", timeout=30_000)
        # The note goes first; the rows come back in the kernel's next (paced) updates.
        page.locator(f"{CHAT} .nb-hitl-msg", has_text="Recovered:").first.wait_for(timeout=30_000)
        page.wait_for_function(f"(n) => ({rows_now})() === n", arg=before, timeout=30_000)
        assert rows_with(page, "Recovered:") == 1
        assert memory(lab) == (held, False, 0)

        # The inspector's Compress now, then its Undo (enabled by the compression).
        inspector = page.locator(".nb-hitl-inspector").first
        inspector.locator("button", has_text="Compress now").click()
        inspector.locator("text=/Compressed \\d+ message/").wait_for(timeout=30_000)
        inspector.locator("button:has-text('Undo'):enabled").first.click()
        inspector.locator("text=/Undid the last compression/").wait_for(timeout=30_000)

        # A long answer's Copy asks the kernel for the text (it is not in the page twice).
        page.locator(INPUT).fill("more please")
        page.locator(SEND).click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-copy[data-copy-id]", timeout=60_000)
        wait_status(page, "idle")
        long_row = page.locator(f"{CHAT} .nb-hitl-msg", has_text="Long: lorem").last
        clear_clipboard(page)
        long_row.hover()
        long_row.locator(".nb-hitl-copy").click()
        copied = wait_copied(page)
        assert copied == "Long: " + "lorem ipsum " * 300

        # The explorer's Apply: the inspector (and the gauge) follow the agent at once.
        explorer = page.locator(".nb-hitl-explorer")
        explorer.wait_for(timeout=30_000)
        box = explorer.locator("input[type=number]").first  # its threshold
        box.fill("7000")
        box.press("Enter")
        explorer.locator("button", has_text="Apply to agent").click()
        page.wait_for_selector(".nb-hitl-inspector >> text=of 7,000 (trigger_threshold)",
                               timeout=30_000)  # fmt: skip
        page.wait_for_selector(f"{CHAT} .nb-hitl-gauge >> text=/ 7,000 tokens/", timeout=30_000)

        # The hub: Start, then Next round, from the panel.
        hub = page.locator(".nb-hitl-hub")
        hub.locator("button.nb-hitl-hub-start").click()
        hub.locator(".nb-hitl-now >> text=Finished.").wait_for(timeout=60_000)
        assert hub.locator("button.nb-hitl-hub-start").is_hidden()
        hub.locator("button.nb-hitl-hub-next").click()
        hub.locator(".nb-hitl-msg >> text=Still spaces.").wait_for(timeout=60_000)
        hub.locator(".nb-hitl-now >> text=Finished.").wait_for(timeout=60_000)
        assert hub.locator(".nb-hitl-msg", has_text="Still tabs.").count() == 1
        hub.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-hub-next-round-1400.png"))

        # Continue: a round stopped mid-reply (Stop in the pause prompt) goes on from there.
        hub.locator("button.nb-hitl-hub-next").click()
        hub.locator(".nb-hitl-live >> text=/point5 /").wait_for(timeout=60_000)
        hub.locator("button.nb-hitl-hub-stop").click()
        prompt = hub.locator(".nb-hitl-hub-pause")
        prompt.locator("text=/Alice was interrupted/").wait_for(timeout=30_000)
        prompt.locator(".nb-hitl-pause-stop").click()
        hub.locator(".nb-hitl-now >> text=/Stopped. Continue goes on/").wait_for(timeout=30_000)
        go_on = hub.locator("button.nb-hitl-hub-continue")
        assert go_on.is_visible() and "Bob goes on." not in hub.inner_text()
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-hub-stopped-1400.png"))
        go_on.click()
        hub.locator(".nb-hitl-msg >> text=Bob goes on.").wait_for(timeout=60_000)
        hub.locator(".nb-hitl-now >> text=Finished.").wait_for(timeout=60_000)
        assert hub.locator(".nb-hitl-msg", has_text="Alice again.").count() == 1
        assert go_on.is_hidden()
        # Alice answered again, then Bob: both memories end with the continued round.
        last = "[m.get_text_content() for m in {}.memory.messages[-2:]]"
        assert lab.kernel_eval(last.format("bob")) == "['Alice again.', 'Bob goes on.']"

        page.set_viewport_size({"width": 800, "height": 1100})
        page.locator(CHAT).scroll_into_view_if_needed()
        time.sleep(0.5)
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-800.png"))
        assert not [e for e in errors if "nb-hitl" in e or "anywidget" in e.lower()], errors
    except Exception:
        page.screenshot(path=str(artifacts / f"controls-{front}-{comms}-failure.png"))
        raise
    finally:
        context.close()
        lab.shutdown_kernels()
        time.sleep(0.5)
