"""What a newcomer sees, in JupyterLab and Notebook 7, light and dark, 800 and 1,400 px wide,
with the side bar open and closed: every visible text at 4.5:1 against its background, nothing
clipped, no word wrapped inside itself, no horizontal scrollbar (from 600 px up).

One notebook holds the chat panel (a tool call, an error, an interrupted reply and an approval
card in its transcript; the inspector with its chart and an explorer opened from it; the
session bar), a compression explorer with its sweep's heat map, and a hub panel after a round.
One page per front end walks every theme, side bar and width and keeps a screenshot of each
state in ``test-artifacts/look-*.png``.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import run_all_until, wait_status
from lab_server import LabServer
from look_checks import look_problems

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PANEL = '''\
import tempfile
from pathlib import Path
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.agent import CompressionConfig
from nb_hitl.demo import demo_toolkit, long_task_transcript
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.widgets import AgentPanel

def deploy(env: str) -> str:
    """Deploy the service.

    Args:
        env: where to deploy.
    """
    return f"deployed to {env}"

toolkit = demo_toolkit()
toolkit.register_tool_function(deploy, needs_approval=True)
LONG = " ".join(f"word{i}" for i in range(3000))
agent = ReActAgent("Friday", "You are a helpful assistant.", ScriptedModel([
    ScriptedTurn(text="Let me calculate.", tool_calls=[
        ScriptedToolCall("calculate", {"expression": "3 * (4 + 5)"})]),
    "It is **27**.",
    RuntimeError("the model is overloaded"),
    LONG,
    ScriptedTurn(text="Deploying.", tool_calls=[
        ScriptedToolCall("deploy", {"env": "production-eu-west-1"}, id="d1")]),
    "Deployed.",
], tokens_per_second=300), toolkit=toolkit,
    compression_config=CompressionConfig(trigger_threshold=6000, keep_recent=4))
agent.memory.add_sync(long_task_transcript()[:24])
panel = AgentPanel(agent, session=Path(tempfile.mkdtemp()) / "look.json")
panel'''

EXPLORER = """\
from nb_hitl.widgets import CompressionExplorer
analyst = ReActAgent("Analyst", "You are a careful data analyst.", ScriptedModel(),
                     compression_config=CompressionConfig(trigger_threshold=12000, keep_recent=6))
analyst.memory.add_sync(long_task_transcript())
explorer = CompressionExplorer(analyst, budget=9000)
explorer.run_sweep()
explorer"""

HUB = """\
import nb_hitl
from nb_hitl.message import Msg
from nb_hitl.pipeline import MsgHub
def speaker(name, script):
    return ReActAgent(name, f"You are {name}.", ScriptedModel(script, tokens_per_second=400))
hub = MsgHub([speaker("Alice", ["Tabs: one keystroke, one level."]),
              speaker("Bob", ["Spaces: the same everywhere, in every editor."]),
              speaker("Carol", ["Carol sums up: both have a point; pick one per project."])],
             announcement=Msg("Host", "Tabs or spaces?", "user"))
hub_panel = nb_hitl.show(hub)
hub_panel"""

START = '_ = hub_panel.start(msg="Open the debate.")'

WIDGETS = {
    "panel": ".nb-hitl-panel",
    "parts": ".nb-hitl-panel-parts",
    "explorer": ".nb-hitl-explorer:not(.nb-hitl-inspector .nb-hitl-explorer)",
    "sweep": ".nbh-explorer-sweep:has(> .nb-hitl-explorer-sweep)",
    "hub": ".nb-hitl-hub",
}
"""What is checked and photographed in each state: the panel (with the explorer its inspector
opened), the rows under its columns (permissions list, session bar: one model), the explorer
of its own cell, that explorer's heat map, and the hub."""
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
SIDE_BAR = {"lab": "application:toggle-left-area", "nb7": "toc:toggle-panel"}
"""The command that opens or closes the left side bar (Notebook 7's holds the contents)."""
BOX = ".nb-hitl-chat textarea"


def command(page: Any, name: str, args: dict[str, Any] | None = None) -> None:
    """Start a front-end command (the server exposes the app as ``window.jupyterapp``); not
    awaited: Run All's promise waits for a kernel that may not be there yet."""
    page.evaluate("([n, a]) => { window.jupyterapp.commands.execute(n, a); }", [name, args or {}])


LEFT = "#jp-left-stack, #jp-left-panel, .jp-SidePanel"
"""The left side bar's panel (JupyterLab's and Notebook 7's)."""
IS_OPEN = f"() => [...document.querySelectorAll('{LEFT}')].some(e => e.offsetWidth > 40)"


def set_side_bar(page: Any, front: str, want_open: bool) -> None:
    """Open or close the left side bar."""
    if bool(page.evaluate(IS_OPEN)) != want_open:
        command(page, SIDE_BAR[front])
        page.wait_for_function(f"open => ({IS_OPEN})() === open", arg=want_open, timeout=10_000)


def send(page: Any, text: str) -> None:
    page.locator(BOX).first.fill(text)
    page.locator(".nb-hitl-chat button.nb-hitl-send").first.click()


def drive_the_chat(page: Any) -> None:
    """A tool call, a model error, a reply stopped mid-stream, then an approval card waiting."""
    send(page, "What is 3 * (4 + 5)?")
    page.wait_for_selector(".nb-hitl-chat .nb-hitl-msg >> text=/It is 27/", timeout=90_000)
    wait_status(page, "idle")
    send(page, "And again?")
    wait_status(page, "error")
    send(page, "Tell me everything.")
    page.wait_for_selector(".nb-hitl-live >> text=/word40/", timeout=60_000)
    page.locator(".nb-hitl-chat button:has-text('Stop')").first.click()
    wait_status(page, "idle")
    send(page, "Deploy it.")
    wait_status(page, "waiting")
    page.wait_for_selector(".nb-hitl-approval button:has-text('Approve')", timeout=30_000)
    page.locator(".nb-hitl-inspector button:has-text('Explore settings')").first.click()
    page.wait_for_selector(".nb-hitl-inspector .nb-hitl-explorer-curve", timeout=60_000)


def open_notebook(page: Any, lab: LabServer, front: str) -> None:
    name = f"look-{front}.ipynb"
    url = lab.write_notebook(name, [PANEL, EXPLORER, HUB, START])
    if front == "nb7":
        url = f"{lab.url}/notebooks/{name}?token={lab.token}"
    page.goto(url)
    finished = page.locator(".nb-hitl-hub >> text=Finished")
    run_all_until(page, lambda: bool(finished.count()), "the hub's Finished")
    page.wait_for_selector(".nb-hitl-explorer-sweep", timeout=60_000)


def walk_the_matrix(page: Any, front: str, artifacts: Path) -> dict[str, list[str]]:
    """Every theme x side bar x width: the problems of each widget, and a screenshot of it."""
    found: dict[str, list[str]] = {}
    for theme, theme_name in THEMES.items():
        command(page, "apputils:change-theme", {"theme": theme_name})
        light = "true" if theme == "light" else "false"
        page.wait_for_selector(
            f"body[data-jp-theme-light='{light}']", state="attached", timeout=20_000
        )
        page.wait_for_timeout(800)  # the theme's stylesheet applied
        for side in ("open", "closed"):
            set_side_bar(page, front, side == "open")
            for width in (800, 1400):
                page.set_viewport_size({"width": width, "height": 1100})
                page.wait_for_timeout(400)  # a relayout
                for name, selector in WIDGETS.items():
                    page.locator(selector).first.evaluate("e => e.scrollIntoView()")
                    page.wait_for_timeout(150)
                    state = f"{front}-{theme}-{width}-{side}-{name}"
                    page.screenshot(path=str(artifacts / f"look-{state}.png"))
                    found[state] = look_problems(page, selector)
    # From 600 px up nothing scrolls sideways (light, side bar closed: the narrowest case).
    command(page, "apputils:change-theme", {"theme": THEMES["light"]})
    page.wait_for_selector("body[data-jp-theme-light='true']", state="attached", timeout=20_000)
    set_side_bar(page, front, False)
    page.set_viewport_size({"width": 600, "height": 1100})
    page.wait_for_timeout(600)
    for name, selector in WIDGETS.items():
        page.locator(selector).first.evaluate("e => e.scrollIntoView()")
        state = f"{front}-light-600-closed-{name}"
        page.screenshot(path=str(artifacts / f"look-{state}.png"))
        found[state] = look_problems(page, selector)
    return found


@pytest.mark.parametrize("front", ["lab", "nb7"])
def test_every_widget_reads_in_both_themes_at_every_width(
    browser: Any, lab: LabServer, artifacts: Path, front: str
) -> None:
    if front == "nb7" and importlib.util.find_spec("notebook") is None:
        pytest.skip("NOTEBOOK 7 TEST SKIPPED: `pip install notebook>=7` (the test extra has it)")
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        open_notebook(page, lab, front)
        drive_the_chat(page)
        found = walk_the_matrix(page, front, artifacts)
        bad = {state: problems for state, problems in found.items() if problems}
        report = "\n".join(f"{s}:\n  " + "\n  ".join(p[:15]) for s, p in bad.items())
        assert not bad, f"{len(bad)} of {len(found)} states look wrong:\n{report}"
        assert not [e for e in errors if "nb-hitl" in e or "widget" in e.lower()], errors
    except Exception:
        page.screenshot(path=str(artifacts / f"look-{front}-failure.png"))
        raise
    finally:
        page.close()
        lab.shutdown_kernels()
        time.sleep(0.5)
