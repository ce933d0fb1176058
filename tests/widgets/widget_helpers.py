"""Helpers for headless widget tests (no front end: clicks are ``button.click()``)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import ipywidgets as w
import pytest
from comm.base_comm import BaseComm

from nb_hitl.token import TokenCounter


class RecordingComm(BaseComm):
    """A kernel comm that records what it would publish (in order) instead of sending it.

    Installed as ``comm.create_comm`` (what ipywidgets calls to open each widget's comm).
    """

    log: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    """(msg_type, data) of every message published."""
    by_comm: ClassVar[list[tuple[str, str, dict[str, Any]]]] = []
    """(comm_id, msg_type, data) of every message published."""

    def publish_msg(self, msg_type: str, data: Any = None, **_keys: Any) -> None:
        RecordingComm.log.append((msg_type, data or {}))
        RecordingComm.by_comm.append((self.comm_id, msg_type, data or {}))


class RecordingCounter(TokenCounter):
    """A real ``TokenCounter`` that records what it is asked: every text it counts and every
    time someone asks whether it is exact (which loads the vocabulary)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.exact_asked = 0

    def count_text(self, text: str) -> int:
        self.texts.append(text)
        return super().count_text(text)

    @property
    def exact(self) -> bool:
        self.exact_asked += 1
        return bool(super().exact)

    @property
    def used(self) -> int:
        """How many times the tokenizer was touched."""
        return len(self.texts) + self.exact_asked


async def until(cond: Callable[[], Any], timeout: float = 15.0, what: str = "") -> None:
    """Let the loop run until ``cond()`` is true (a failure guard, not a timing assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what or cond}")
        await asyncio.sleep(0.005)


async def counted(inspector: Any) -> Any:
    """Let the loop run until ``inspector`` (a ``MemoryInspector``) has counted its first plan,
    which it does once the cell that made it has returned; returns ``inspector``."""
    await until(lambda: not inspector.counting, what="the inspector's first plan")
    return inspector


def walk(widget: w.Widget) -> Iterator[w.Widget]:
    """The widget and every widget below it (children, layout, style)."""
    seen: set[int] = set()
    stack = [widget]
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        yield cur
        stack.extend(getattr(cur, "children", ()) or ())
        for name in ("layout", "style"):
            sub = getattr(cur, name, None)
            if isinstance(sub, w.Widget):
                stack.append(sub)


def all_html(widget: w.Widget) -> str:
    """Every HTML value under ``widget`` joined (what a browser would insert)."""
    return "\n".join(
        x.value if isinstance(x, w.HTML) else x.drawn_html()
        for x in walk(widget)
        if isinstance(x, w.HTML) or hasattr(x, "drawn_html")  # a transcript's rows, a row
    )


def all_state(widget: w.Widget) -> str:
    """Every synced trait of every widget under ``widget`` as JSON (what an .ipynb saves); a
    transcript row (not a widget) as the item its transcript's model holds."""
    return "\n".join(
        json.dumps(x.get_state() if isinstance(x, w.Widget) else x.item(), default=str)
        for x in walk(widget)
    )


JS = Path(__file__).resolve().parents[2] / "js"
"""The front end's sources (``js/src``) and its npm tools (``js/node_modules``: ``npm ci``)."""


def node_module_json(module: str, body: str, payload: Any) -> Any:
    """Run ``body`` (JavaScript) under Node.js against the front-end module ``js/src/<module>``
    (imported as ``mod``) in a happy-dom page (``document``, ``window``), with ``payload`` as
    ``input``; what it writes to stdout, read as JSON. The module is the source the committed
    bundle is built from (``test_front_end_bundles.py`` checks they agree)."""
    node = shutil.which("node") or shutil.which("nodejs")
    assert node is not None, "Node.js is missing: apt-get install nodejs npm (scripts/test does)"
    assert (JS / "node_modules" / "happy-dom").is_dir(), "run `npm ci` in js/ (scripts/test does)"
    script = (
        'import { Window } from "happy-dom";\n'
        f"import * as mod from {json.dumps((JS / 'src' / module).as_uri())};\n"
        'const window = new Window({ url: "http://localhost/" });\n'
        "Object.assign(globalThis, { window, document: window.document, Node: window.Node,\n"
        "  Element: window.Element, MutationObserver: window.MutationObserver });\n"
        'let raw = "";\n'
        'process.stdin.on("data", (d) => (raw += d)).on("end", async () => {\n'
        "  const input = JSON.parse(raw);\n" + body + "\n});\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=JS,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def node_json(script: str, payload: Any) -> Any:
    """Run the JavaScript ``script`` under Node.js with ``payload`` as JSON on its stdin; its
    stdout, read as JSON. Skips the test when Node.js is not installed."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("Node.js is not installed (apt-get install nodejs): the reducer is not run")
    done = subprocess.run(
        [node, "-e", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def record_part(part: Any) -> list[dict[str, Any]]:
    """What ``part`` (a ``PanelModel``) sends its page from now on, in order, also when it is
    drawn inside a host (a chat's controls): the custom messages of the panel that carries it
    (``part.carrier()``), each batch with only the ops that reach ``part`` (its host's
    ``child`` ops for it, unwrapped; batches with none left out)."""
    sent: list[dict[str, Any]] = []
    carrier = part.carrier()
    path: list[str] = []
    inner = part
    while inner is not carrier:
        host, key = inner._host
        path.insert(0, key)
        inner = host

    def page_send(content: dict[str, Any]) -> None:
        if content.get("t") != "ops" or not path:
            sent.append(content)
            return
        ops = content["ops"]
        for key in path:
            ops = [o for op in ops if op.get("op") == "child" and op.get("key") == key
                   for o in op["ops"]]  # fmt: skip
        if ops:
            sent.append({**content, "ops": ops})

    carrier.page_send = page_send
    return sent


def act(panel: Any, action: str, /, **args: Any) -> None:
    """What a click (or a key, a slider let go) on ``panel``'s page does: the action message
    its front end sends (``{t: "action", name, args}``), delivered as the page's comm would."""
    panel.page_message({"t": "action", "name": action, "args": args})


def chart_kinds(panel: Any) -> list[str]:
    """The kinds of the points the inspector's chart draws, in order."""
    return [kind for kind, _tokens, _tip in panel.state["chart"]["steps"]]
