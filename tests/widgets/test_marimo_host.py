"""nb_hitl in marimo headless: ``nb_hitl.show`` choosing marimo's native route inside marimo,
the ``MarimoHost`` shim (its ipywidgets emulation is gone: every panel is one anywidget),
marimo's construction hook and its warning filter. The native route itself is
``test_marimo_native.py``; the browser half ``tests/browser/test_panel_in_marimo.py``."""

from __future__ import annotations

import subprocess
import sys

import ipywidgets as w
import pytest

import nb_hitl
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import AgentPanel, MarimoHost, in_marimo
from nb_hitl.widgets._marimo import MARIMO_NOTE

XSS = '<img src=x onerror="alert(1)">'


def friday(script: list[object], tps: float = 2000.0) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=tps)
    return ReActAgent("Friday", "You are a test agent.", model)


def test_a_non_widget_is_refused_with_what_to_do() -> None:
    with pytest.raises(TypeError, match="marimo_panel"):
        MarimoHost(friday([]))
    with pytest.raises(TypeError, match="anywidgets only"):  # no emulation of ipywidgets
        MarimoHost(w.VBox([w.HTML("x")]))


def test_marimo_host_is_now_the_native_view_of_a_panel() -> None:
    import marimo

    panel = AgentPanel(friday(["Hi."]), session=None)
    view = MarimoHost(panel)  # what old notebooks wrote: the panel, shown natively
    assert isinstance(view, marimo.ui.anywidget) and view.widget is panel
    kind, html = view._mime_()
    assert kind == "text/html" and panel.model_id in html and XSS not in html


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
    parts that are no panel of their own skip it (a placeholder comm), panels go to marimo,
    other widgets still go through it."""
    from comm import DummyComm

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
        panel = AgentPanel(friday([]), session=None)
    finally:
        w.Widget.on_widget_constructed(before)
    assert label in seen and panel in seen and keys not in seen
    assert isinstance(keys.comm, DummyComm)
    assert panel.chat not in seen and panel.chat.comm is None  # drawn by the panel's page
