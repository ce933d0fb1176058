"""Permission modes in real JupyterLab and Chromium (issue 33): plan mode refuses a write (the
status line shows the mode, the model is told why), and a tool registered ``always_ask=True``
still shows its approval card under ``allow_all``, offering no rule (no Allow similar, no
Always allow); clicking Approve runs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lab_page import CHAT, open_and_run_all, wait_status
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(400)]

SETUP = """\
import os, tempfile
os.environ["NB_HITL_CONFIG_DIR"] = tempfile.mkdtemp()
import nb_hitl
from nb_hitl import PermissionPolicy, ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn

ran = []
def write_note(path: str, text: str) -> str:
    '''Write a note.

    Args:
        path: where.
        text: what.
    '''
    ran.append(path)
    return "written"

def deploy(target: str) -> str:
    '''Deploy.

    Args:
        target: where.
    '''
    ran.append(target)
    return "deployed"

toolkit = Toolkit()
toolkit.register_tool_function(write_note, kind="edits")
toolkit.register_tool_function(deploy, always_ask=True)
def call(name, call_id, **args):
    return ScriptedTurn(tool_calls=[ScriptedToolCall(name, args, id=call_id)])
agent = ReActAgent("Friday", "T.", ScriptedModel([
    call("write_note", "w1", path="notes/a", text="x"), "Only planning, as asked.",
    call("deploy", "d1", target="prod"), "Deployed.",
], tokens_per_second=300), toolkit=toolkit, permissions=PermissionPolicy("plan"))
panel = nb_hitl.show(agent, session=None)
panel"""
FIRST = 'panel.chat.send("Write a note.")'
SECOND = """\
import asyncio
while agent.is_replying:
    await asyncio.sleep(0.05)
agent.permissions.mode = "allow_all"
panel.chat.send("Deploy.")"""


def test_plan_mode_refuses_and_an_insisting_tool_still_asks(
    browser: Any, lab: LabServer, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_and_run_all(page, lab.write_notebook("modes.ipynb", [SETUP, FIRST, SECOND]))
        chat = page.locator(CHAT).first
        page.wait_for_selector(f"{CHAT} >> text=denied by policy: mode plan", timeout=90_000)
        page.screenshot(path=str(artifacts / "permissions-plan-1400.png"), full_page=True)

        card = page.locator(f"{CHAT} .nb-hitl-approval:not(.nb-hitl-question)").first
        card.wait_for(timeout=90_000)
        wait_status(page, "waiting")
        mode = chat.locator(".nb-hitl-status-line .nb-hitl-permission-mode")
        assert mode.get_attribute("data-mode") == "allow_all"
        assert "deploy" in card.inner_text()
        # it insists on a person: no rule is offered, only a decision on this call
        assert "always asks a person" in card.inner_text()
        assert card.locator("input.nb-hitl-rule-text, button.nb-hitl-allow-similar").count() == 0
        assert card.locator("button.nb-hitl-always").count() == 0
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(artifacts / "permissions-always-ask-card-1400.png"))
        page.screenshot(path=str(artifacts / "permissions-always-ask-1400.png"), full_page=True)
        card.locator("button.nb-hitl-approve").click()
        page.wait_for_selector(f"{CHAT} .nb-hitl-msg >> text=Deployed.", timeout=60_000)
        wait_status(page, "idle")
        assert errors == []
    finally:
        context.close()
