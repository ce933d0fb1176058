"""The approval card in a real browser: JupyterLab + Chromium, clicks and typing by Playwright.

A notebook parks a reply on two tool calls; the test edits the first call's arguments in the
card (an invalid JSON first, shown as an error in the card), denies the second with a reason,
and checks the reply finished, the edited call ran, and hostile strings were shown as text.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_server import CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<img src=x onerror=alert(1)>"

NOTEBOOK_CODE = f"""
import json, threading
from pathlib import Path
from nb_hitl import ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.widgets import AgentPanel
from nb_hitl.widgets._loop import LoopBridge

click_threads = []  # which thread each widget callback arrived on
_call = LoopBridge.call
def _recording_call(self, fn, *args):
    click_threads.append(threading.get_ident())
    return _call(self, fn, *args)
LoopBridge.call = _recording_call

def deploy(env: str, note: str = "") -> str:
    '''Deploy the app.

    Args:
        env: where.
        note: a note.
    '''
    with Path("ran.txt").open("a") as f:
        off_main = any(t != threading.main_thread().ident for t in click_threads)
        f.write(json.dumps({{"env": env, "note": note, "subshell": off_main}}) + "\\n")
    return f"deployed to {{env}}"

toolkit = Toolkit()
toolkit.register_tool_function(deploy, needs_approval=True)
turn = ScriptedTurn(text="Deploying.", tool_calls=[
    ScriptedToolCall("deploy", {{"env": "prod", "note": {HOSTILE!r}}}, id="d1"),
    ScriptedToolCall("deploy", {{"env": "eu"}}, id="d2"),
])
agent = ReActAgent("Friday", "Test.", ScriptedModel([turn, "All deployments handled."],
                   tokens_per_second=100), toolkit=toolkit)
panel = AgentPanel(agent, inspector=False, session=None)
display(panel)
panel.chat.send("Deploy everywhere.")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module", params=["perCommTarget", "disabled"])
def approval_lab(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """A JupyterLab on a free port with a temporary root, settings and workspaces, with
    comms over subshells on (JupyterLab's default) or off."""
    if CHROMIUM is None:
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    base = tmp_path_factory.mktemp("lab")
    root, settings, workspaces = base / "root", base / "settings", base / "workspaces"
    for folder in (root, settings, workspaces):
        folder.mkdir()
    news = settings / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    (news / "kernels-settings.jupyterlab-settings").write_text(
        json.dumps({"commsOverSubshells": request.param})
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK_CODE)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, root / "approval.ipynb")
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", "lab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={workspaces}",
            "--LabApp.expose_app_in_browser=True", "--allow-root",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("JupyterLab exited at start")
                time.sleep(0.1)
        else:
            pytest.fail("JupyterLab did not start")
        yield {"url": url, "token": token, "root": root, "subshells": request.param}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def test_edit_and_deny_in_the_approval_card(approval_lab: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    lab = approval_lab
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
        )
        try:
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{lab['url']}/lab/tree/approval.ipynb?token={lab['token']}")
            # a fresh page shows "Idle" before the kernel exists: wait for the real kernel
            page.wait_for_function(
                "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                " const k = w && w.sessionContext && w.sessionContext.session"
                " && w.sessionContext.session.kernel;"
                " return !!k && k.status === 'idle'; }",
                timeout=120_000,
            )
            page.evaluate("window.jupyterapp.commands.execute('runmenu:run-all')")
            cards = page.locator(".nb-hitl-approval")
            expect(cards).to_have_count(2, timeout=120_000)
            expect(page.locator(".nb-hitl-status-line")).to_contain_text(
                "waiting for you", timeout=30_000
            )
            first, second = cards.nth(0), cards.nth(1)
            expect(first).to_contain_text(HOSTILE)  # shown as text, not as an element
            assert first.locator("img").count() == 0

            first.get_by_role("button", name="Edit").click()
            area = first.locator("textarea")
            area.fill('{"env": "staging", ')
            first.get_by_role("button", name="Approve edited").click()
            expect(first).to_contain_text("not valid JSON", timeout=30_000)
            area.fill('{"env": "staging", "note": "edited"}')
            first.get_by_role("button", name="Approve edited").click()
            expect(first).to_contain_text("Approved with edited arguments", timeout=30_000)

            second.get_by_role("button", name="Deny").click()
            second.locator("input.nb-hitl-deny-reason").fill("not the EU today")
            second.locator("input.nb-hitl-deny-reason").press(
                "Enter"
            )  # Enter denies with the reason
            expect(second).to_contain_text("Denied: not the EU today", timeout=30_000)

            expect(page.locator(".nb-hitl-transcript")).to_contain_text(
                "All deployments handled.", timeout=60_000
            )
            expect(page.locator(".nb-hitl-transcript")).to_contain_text(
                "denied by the user: not the EU today"
            )
            assert dialogs == []
        finally:
            browser.close()
    ran = (lab["root"] / "ran.txt").read_text().splitlines()
    [record] = [json.loads(line) for line in ran]
    assert (record["env"], record["note"]) == ("staging", "edited")
    if lab["subshells"] == "disabled":
        assert record["subshell"] is False  # every click arrived on the main thread
    # With comms over subshells on, JupyterLab decides per comm whether a click arrives on a
    # subshell thread (kernel-opened widget comms may stay on the main shell); the widget
    # works either way, which is what this run checks.
