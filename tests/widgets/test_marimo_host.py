"""The marimo host headless: a tree of ipywidgets drawn as HTML, the page's clicks and edits
going to the real widgets, patches for what changed, and ``nb_hitl.show`` choosing the host
inside marimo. The browser half is ``tests/browser/test_panel_in_marimo.py``."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import ipywidgets as w
import pytest

import nb_hitl
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import AgentPanel, MarimoHost, in_marimo
from nb_hitl.widgets._comm import tapped
from nb_hitl.widgets._controls import ControlButton, ControlInput
from nb_hitl.widgets._marimo import MARIMO_NOTE

XSS = '<img src=x onerror="alert(1)">'


def friday(script: list[object], tps: float = 2000.0) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=tps)
    return ReActAgent("Friday", "You are a test agent.", model)


class Page:
    """What the host sent to its front end."""

    def __init__(self, host: MarimoHost) -> None:
        self.host = host
        self.sent: list[dict[str, Any]] = []
        host.send = lambda content, buffers=None: self.sent.append(content)  # type: ignore[method-assign]

    def say(self, widget: w.Widget, data: dict[str, Any]) -> None:
        """The page sends ``data`` for ``widget`` (as the ES module does)."""
        self.host._on_front_end(self.host, {"w": widget.model_id, "data": data}, [])

    def act(self, name: str, **args: Any) -> None:
        """The chat's controls send action ``name`` (the chat is one hosted anywidget: its
        action ``controls``, ``{name, args}``)."""
        inner = {"name": name, "args": args}
        content = {"t": "action", "name": "controls", "args": inner}
        self.say(self.host.chat, {"method": "custom", "content": content})

    def click(self, button: w.Button | ControlButton) -> None:
        if isinstance(button, ControlButton):  # drawn by the chat's controls: their action
            self.act(button._key)
            return
        self.say(button, {"method": "custom", "content": {"event": "click"}})

    def type(self, box: w.Widget | ControlInput, text: str) -> None:
        if isinstance(box, ControlInput):  # the chat's box: a pause in typing sends the text
            self.act("type", text=text)
            return
        self.say(box, {"method": "update", "state": {"value": text}})

    def patches(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if "full" not in m]

    def rows_sent(self) -> str:
        """The HTML of transcript rows the patches sent: new children, the state of a new
        transcript model, and row ops (and classes) for the hosted widgets already drawn."""
        parts = []

        def ops(batch: list[Any]) -> None:  # a panel's ops, those of its parts' included
            for op in batch:
                if op.get("op") == "child":
                    ops(op.get("ops") or [])
                    continue
                item = op.get("item") or {}
                parts.extend([item.get("html", ""), op.get("cls", ""), op.get("html", "")])

        for p in self.patches():
            parts += [h for _, _, fresh in p["children"] for h in fresh.values()]
            for m in p["models"].values():
                state = m.get("snapshot", {}).get("state", {})
                rows = state.get("rows", state.get("transcript", {}).get("rows", []))
                parts += [r.get("html", "") for r in rows if isinstance(r, dict)]
            for _, data in p["child"]:
                ops((data.get("content") or {}).get("ops", []))
                parts += [" ".join(data.get("state", {}).get("_dom_classes", []))]
        return "\n".join(parts)


def test_a_non_widget_is_refused_with_what_to_do() -> None:
    with pytest.raises(TypeError, match="marimo_panel"):
        MarimoHost(friday([]))  # type: ignore[arg-type]


def test_in_marimo_is_false_outside_and_does_not_import_marimo() -> None:
    code = "import sys, nb_hitl.widgets as w; print(w.in_marimo(), 'marimo' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    import marimo

    assert marimo.running_in_notebook() is False and in_marimo() is False


async def test_show_gives_the_native_panel_inside_a_marimo_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = friday(["Hi."])
    assert isinstance(nb_hitl.show(agent), AgentPanel)
    import marimo

    monkeypatch.setattr(marimo, "running_in_notebook", lambda: True)
    assert in_marimo()
    view = nb_hitl.show(agent, session=None)
    assert isinstance(view, marimo.ui.anywidget) and isinstance(view.widget, AgentPanel)


def test_marimo_comm_warning_filter_drops_only_that_warning() -> None:
    import logging

    from nb_hitl.widgets._marimo import prepare_marimo

    prepare_marimo()
    log = logging.getLogger("marimo")
    keep = logging.LogRecord("marimo", logging.WARNING, "", 0, "other", None, None)
    drop = logging.LogRecord("marimo", logging.WARNING, "", 0, MARIMO_NOTE + " x", None, None)
    assert log.filter(keep) and not log.filter(drop)


def test_nb_hitl_anywidgets_made_later_get_a_placeholder_comm_not_marimos() -> None:
    """marimo's construction hook cannot open an anywidget made by a background task; nb_hitl's
    own anywidgets skip it (the host takes them over); other widgets still go through it."""
    from nb_hitl.widgets._keys import KeyBindings
    from nb_hitl.widgets._loop import LoopBridge
    from nb_hitl.widgets._marimo import prepare_marimo

    seen: list[w.Widget] = []
    before = w.Widget._widget_construction_callback
    w.Widget.on_widget_constructed(seen.append)
    try:
        prepare_marimo()
        prepare_marimo()  # once is enough: not wrapped twice
        assert getattr(w.Widget._widget_construction_callback, "_nb_hitl", False)
        keys = KeyBindings("nb-hitl-chat", [], LoopBridge())
        label = w.HTML("x")
        host = MarimoHost(w.VBox([keys, label]))
    finally:
        w.Widget.on_widget_constructed(before)
    assert label in seen and host in seen and keys not in seen
    comm = tapped(host.root.children[0])  # the keys: routed to the host, marimo's comm closed
    assert comm is not None and comm.route is host and comm.inner is None


def test_every_label_value_option_and_tooltip_is_escaped() -> None:
    """Only an HTML widget's value is inserted as HTML (nb_hitl escapes what goes in it)."""
    evil = '"><script>alert(1)</script>'
    tree = w.VBox(
        [
            w.Button(description=evil, tooltip=evil),
            w.Textarea(value="</textarea>" + evil, placeholder=evil, description=evil),
            w.Text(value=evil, placeholder=evil),
            w.Dropdown(options=[evil, "b"], description=evil),
            w.ToggleButtons(options=[evil], tooltips=[evil]),
            w.Checkbox(description=evil),
            w.Label(value=evil),
            w.IntSlider(description=evil),
        ]
    )
    html = MarimoHost(tree).full()["full"]
    assert "<script>" not in html and html.count("</textarea>") == 1  # only its own tag
    assert html.count("&lt;script&gt;") >= 10
