"""The panel attached to a remote agent in real JupyterLab and Chromium.

The agent is a LangGraph graph served over AG-UI by ag-ui-langgraph (a real process on
loopback). A person types, sends, watches the answer stream, clicks Stop (the text so far
stays, drawn interrupted), asks for a deploy, clicks Approve on the approval card the graph's
``interrupt()`` became, and sees the reply go on. The remote limits note is on screen, and the
server, thread and link (connected) at the inspector's foot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agui_servers import AguiServer
from lab_page import SEND, STOP, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SETUP = """\
import nb_hitl
from nb_hitl.remote import RemoteAgent
agent = RemoteAgent({url!r}, name="Graph")
panel = nb_hitl.show(agent, session=None)
panel"""


def send(page: Any, text: str) -> None:
    page.locator(".nb-hitl-chat textarea").fill(text)
    page.locator(SEND).click()


def test_stream_stop_and_approve_a_remote_graph(
    browser: Any, lab: LabServer, artifacts: Path, langgraph_agui: AguiServer
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(
            page, lab.write_notebook("remote.ipynb", [SETUP.format(url=langgraph_agui.url)])
        )
        page.wait_for_selector(".nb-hitl-chat textarea", timeout=90_000)
        page.wait_for_selector("text=Remote agent: some controls are off", timeout=30_000)
        # The server, thread and link: drawn at the inspector's foot, by the inspector's page.
        state = page.locator(".nb-hitl-inspector .nb-hitl-remote-state")
        state.locator('.nbh-remote-link[data-link="connected"]').wait_for(timeout=30_000)
        assert state.locator(".nbh-remote-server").inner_text() == langgraph_agui.url
        assert state.locator(".nbh-remote-thread").inner_text().startswith("thread-")
        send(page, "Tell me a long story <b>please</b>")
        page.wait_for_selector(".nb-hitl-chat >> text=/I was shown 1 messages/", timeout=60_000)
        page.wait_for_selector(f"{STOP}:enabled", timeout=10_000)
        page.locator(STOP).click()
        page.wait_for_selector(".nb-hitl-interrupted", timeout=20_000)
        wait_status(page, "idle")
        assert page.locator(".nb-hitl-chat b", has_text="please").count() == 0  # text, not HTML

        send(page, "Please deploy it.")
        card = page.locator(".nb-hitl-approval").last
        card.locator("button[title='Approve']").wait_for(timeout=60_000)
        always = card.locator("button", has_text="Always allow")
        assert always.is_disabled()
        assert "permission rules" in (always.get_attribute("title") or "")
        card.locator("button[title='Approve']").click()
        page.wait_for_selector(".nb-hitl-chat >> text=Done: deployed 1.2 to prod.", timeout=60_000)
        wait_status(page, "idle")
        page.screenshot(path=str(artifacts / "remote-langgraph-1400.png"))
        assert not errors, errors
    finally:
        page.close()
