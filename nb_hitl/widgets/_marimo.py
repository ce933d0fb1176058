"""nb_hitl in marimo: every panel through ``mo.ui.anywidget``, natively.

marimo (0.25) shows anywidgets (``mo.ui.anywidget``) but not ipywidgets. Every nb_hitl panel
(``AgentPanel``, ``ChatWidget``, ``MemoryInspector``, ``CompressionExplorer``, ``HubPanel``)
is one ``PanelModel``: an anywidget drawing its whole view from a snapshot and sequenced ops
(``_model.py``), so marimo shows it with no emulation. ``native_view(panel)`` is
``mo.ui.anywidget(panel)``, which opens the model's comm as marimo's own ``MarimoComm``:
custom messages both ways (the ops to the page, the page's actions back, binary buffers
included), on the kernel's event loop, bound to the session the panel was made in, so a send
from a background task or another thread reaches the page. ``nb_hitl.show(agent)`` returns
``marimo_panel(agent)`` when it runs in a marimo notebook (``in_marimo()``); in marimo the
reply runs as a task on the kernel's event loop, which keeps running between cells, and the
panel's actions are handled on that loop, so Stop lands while a reply streams.

``MarimoHost`` was one anywidget that re-drew a tree of ipywidgets (the panels, when they
were ipywidgets boxes) inside marimo. No panel needs it any more; the name stays as a shim:
``MarimoHost(panel)`` is ``native_view(panel)``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from ._in_marimo import MARIMO_NOTE, in_marimo, prepare_marimo
from ._model import PanelModel


def native_view(panel: PanelModel) -> Any:
    """``panel`` as marimo shows it: ``mo.ui.anywidget(panel)`` (imports marimo).

    The result is what a cell displays; it passes attributes through to the panel
    (``view.refresh()``, ``view.chat``), and ``view.widget`` is the panel itself.
    """
    if not isinstance(panel, PanelModel):
        raise TypeError(
            f"native_view shows a PanelModel (an nb_hitl panel drawn by one front-end module); "
            f"got {type(panel).__name__}. marimo shows anywidgets only: wrap other ipywidgets "
            "in an anywidget of your own, or show them in JupyterLab."
        )
    import marimo as mo

    return mo.ui.anywidget(panel)


class MarimoHost:
    """What replaced the marimo host: ``MarimoHost(panel)`` returns ``native_view(panel)``.

    ``MarimoHost`` drew an ipywidgets tree inside one anywidget, for the panels that were
    ipywidgets boxes. Every nb_hitl panel is now one anywidget model that marimo shows itself
    (``mo.ui.anywidget``), so this name only remains for notebooks written against it.

    Raises:
        TypeError: ``root`` is not an nb_hitl panel (a ``PanelModel``); marimo cannot show
            plain ipywidgets.
    """

    def __new__(cls, root: Any) -> Any:
        if not isinstance(root, w.Widget):
            raise TypeError(
                f"MarimoHost shows an nb_hitl panel; got {type(root).__name__}. For an agent "
                "use nb_hitl.marimo_panel(agent) (or nb_hitl.show(agent))."
            )
        return native_view(root)


def marimo_panel(agent: Any, **kwargs: Any) -> Any:
    """The panel for ``agent`` (or a ``MsgHub``) as marimo shows it: ``mo.ui.anywidget`` of
    the ``AgentPanel`` or ``HubPanel`` (the result's ``widget`` is the panel).

    ``kwargs`` are ``nb_hitl.show``'s (``AgentPanel`` or ``HubPanel`` options). ``agent``
    may also be a panel already made (``MemoryInspector(agent)``).
    """
    prepare_marimo()
    from nb_hitl.agent import AgentBase
    from nb_hitl.pipeline import MsgHub

    from ._panel import AgentPanel
    from .hub import HubPanel

    if isinstance(agent, PanelModel):
        return native_view(agent)
    if not isinstance(agent, (AgentBase, MsgHub)):
        raise TypeError(
            "marimo_panel() takes an agent, a MsgHub or an nb_hitl panel, got "
            f"{type(agent).__name__}."
        )
    kind: Any = HubPanel if isinstance(agent, MsgHub) else AgentPanel
    return native_view(kind(agent, **kwargs))


__all__ = [
    "MARIMO_NOTE",
    "MarimoHost",
    "in_marimo",
    "marimo_panel",
    "native_view",
    "prepare_marimo",
]
