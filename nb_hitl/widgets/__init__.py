"""Notebook widgets (ipywidgets and anywidgets; front ends in ``static/``): chat, inspector, both.

    from nb_hitl.widgets import AgentPanel
    AgentPanel(agent)      # display it; the cell returns at once

``ChatWidget`` sends, streams, stops and resumes; ``MemoryInspector`` shows memory, tokens and
the live compression plan; ``AgentPanel`` puts them side by side (``nb_hitl.show(agent)``).
``HubPanel`` shows a multi-agent ``MsgHub`` discussion (``nb_hitl.show(hub)``; ``hub/``).
Each panel is one anywidget model, which marimo shows natively (``marimo_panel(agent)``;
``nb_hitl.show`` uses it there); ``MarimoHost`` is kept as a shim for ``mo.ui.anywidget``.
``ApprovalCards`` park tool calls for a decision, ``SessionBar`` saves and loads, and
``CompressionExplorer`` replays a conversation under other settings. Widgets read the core
only through its events and public methods (the core never imports a widget). Every
streaming message of a loop shares one ``redraw_budget()``.
May import pipeline, agent and everything below them; only ``extension`` and the package root
import widgets.
"""

from __future__ import annotations

from ._approval import ApprovalBox, ApprovalCard, ApprovalCards
from ._chat import ChatWidget
from ._explorer import CompressionExplorer
from ._input import WidgetInput
from ._inspector import MemoryInspector
from ._loop import LoopBridge
from ._marimo import MarimoHost, in_marimo, marimo_panel
from ._panel import AgentPanel
from ._permissions_view import PermissionsView
from ._question import QuestionCard, QuestionCards
from ._redraw import RedrawBudget, redraw_budget
from ._session import SessionBar
from .hub import HubPanel

__all__ = [
    "AgentPanel",
    "ApprovalBox",
    "ApprovalCard",
    "ApprovalCards",
    "ChatWidget",
    "CompressionExplorer",
    "HubPanel",
    "LoopBridge",
    "MarimoHost",
    "MemoryInspector",
    "PermissionsView",
    "QuestionCard",
    "QuestionCards",
    "RedrawBudget",
    "SessionBar",
    "WidgetInput",
    "in_marimo",
    "marimo_panel",
    "redraw_budget",
]
