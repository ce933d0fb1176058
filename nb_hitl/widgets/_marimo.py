"""MarimoHost: any nb_hitl widget (the panel, the hub panel, the explorer) inside marimo.

marimo (0.25) shows anywidgets (``mo.ui.anywidget``) but not ipywidgets, and nb_hitl's panels
are ipywidgets boxes. ``MarimoHost`` is one anywidget that shows such a tree: the real widgets
stay in the kernel, where every click runs the code it runs in JupyterLab (the chat's send,
Stop, Continue and approvals, the inspector's refresh), and the host stands in for their
comms. What a widget would send to a front end (``{"method": "update", "state": {...}}``)
becomes a patch of the page: the widget's element drawn again (``_marimo_html.py``), a box's
children reordered (rows that did not change are kept), a layout restyled. Clicks and edits
come back as the ipywidgets messages a front end sends and go to the widget's own handler.
Anywidgets in the tree (the keyboard bindings) run their own ES module in the host's page,
with their messages passed through. Patches are coalesced per turn of the event loop; a
streaming reply redraws only its live row's tail, at the chat's own rate.

``nb_hitl.show(agent)`` returns ``MarimoHost(AgentPanel(agent))`` when it runs in a marimo
notebook (``in_marimo()``); ``marimo_panel(agent)`` does so anywhere. In marimo the reply runs
as a task on the kernel's event loop, which keeps running between cells, and the host's
messages are handled on that loop, so Stop lands while a reply streams.

The native route (issue #32): a panel that is one ``PanelModel`` (an anywidget drawing its
whole view from a snapshot and sequenced ops, ``_model.py``) needs no emulation. marimo shows
it through ``mo.ui.anywidget`` (``native_view``), which opens the model's comm as marimo's own
``MarimoComm``: custom messages both ways (the ops to the page, the page's actions back,
binary buffers included), on the kernel's event loop, bound to the session the panel was made
in, so a send from a background task or another thread reaches the page. ``marimo_panel`` and
``nb_hitl.show`` take that route for every panel class that is a ``PanelModel`` (the memory
inspector and the compression explorer today; the chat, the agent panel and the hub panel as
they become one) and keep ``MarimoHost`` for the rest until none is left.
"""

from __future__ import annotations

import logging
from typing import Any

import anywidget
import ipywidgets as w

from ._comm import tap, tapped
from ._in_marimo import MARIMO_NOTE, hosting, in_marimo, prepare_marimo
from ._loop import LoopBridge
from ._marimo_css import BASE_CSS
from ._marimo_html import layout_style, render
from ._model import PanelModel, static_file

logger = logging.getLogger("nb_hitl.widgets")


def native_view(panel: PanelModel) -> Any:
    """``panel`` as marimo shows it: ``mo.ui.anywidget(panel)`` (imports marimo).

    The result is what a cell displays; it passes attributes through to the panel
    (``view.refresh()``, ``view.chat``), and ``view.widget`` is the panel itself.
    """
    if not isinstance(panel, PanelModel):
        raise TypeError(
            f"native_view shows a PanelModel (an nb_hitl panel drawn by one front-end module); "
            f"got {type(panel).__name__}. For other widgets use MarimoHost."
        )
    import marimo as mo

    return mo.ui.anywidget(panel)


class MarimoHost(anywidget.AnyWidget):
    """One anywidget that shows an ipywidgets tree (an nb_hitl panel) in marimo.

    Args:
        root: the widget to show (``AgentPanel``, ``HubPanel``, ``ChatWidget``,
            ``CompressionExplorer``...). It keeps working in Python as usual:
            ``host.root.chat.send("Hi")`` is drawn like a click on Send.
    """

    _esm = static_file("marimo_host.js")
    _css = BASE_CSS
    _nb_hitl_host = True
    """marimo shows this anywidget itself (``prepare_marimo``)."""

    def __init__(self, root: w.Widget) -> None:
        if not isinstance(root, w.Widget):
            raise TypeError(
                f"MarimoHost shows an ipywidgets widget (an nb_hitl panel); got "
                f"{type(root).__name__}. For an agent use nb_hitl.marimo_panel(agent)."
            )
        prepare_marimo()
        super().__init__()
        self.root = root
        self.seq = 0
        """How many patches were sent (the front end drops one it has already seen)."""
        self._bridge = LoopBridge()
        self._widgets: dict[str, w.Widget] = {}
        self._owners: dict[str, set[str]] = {}
        """Layout or style id -> the widgets drawn with it."""
        self._sent_children: dict[str, list[str]] = {}
        self._hosted: set[str] = set()
        self._replace: set[str] = set()
        self._shell: set[str] = set()
        self._children: set[str] = set()
        self._child_msgs: list[list[Any]] = []
        self._scheduled = False
        self._adopt(root)
        self.on_msg(self._on_front_end)

    @property
    def chat(self) -> Any:
        """The panel's chat (``root.chat``), for code that drives it."""
        return getattr(self.root, "chat", None)

    # -- the widget tree ---------------------------------------------------------------------
    def _adopt(self, widget: w.Widget) -> None:
        """Route ``widget``'s messages here (and its children's, layout's, style's)."""
        comm = tap(widget)  # the comm seam (``_comm.py``)
        cid = comm.comm_id
        if cid not in self._widgets:
            self._widgets[cid] = widget
            if comm.route is not self:
                comm.route = self
                if isinstance(widget, anywidget.AnyWidget):
                    comm.drop_inner()  # marimo opened it for a view that never comes
            if isinstance(widget, anywidget.AnyWidget):
                self._hosted.add(cid)
        for name in ("layout", "style"):
            part = getattr(widget, name, None)
            if isinstance(part, w.Widget) and part is not widget:
                self._adopt(part)
                self._owners.setdefault(part.model_id, set()).add(cid)
        if isinstance(widget, w.Box):
            for child in widget.children:
                self._adopt(child)

    def comm_close(self, cid: str) -> None:
        """A hosted widget closed (``_comm.Route``)."""
        self._widgets.pop(cid, None)
        self._hosted.discard(cid)
        self._sent_children.pop(cid, None)

    def _draw(self, widget: w.Widget, models: dict[str, Any]) -> str:
        """``widget``'s HTML (children included); hosted anywidgets' state goes in ``models``."""
        self._adopt(widget)
        cid = widget.model_id
        if isinstance(widget, w.Box):
            self._sent_children[cid] = [c.model_id for c in widget.children]
        if cid in self._hosted:
            models[cid] = _json_state(widget)
        return render(widget, lambda child: self._draw(child, models))

    # -- kernel -> page ----------------------------------------------------------------------
    def comm_msg(self, cid: str, data: dict[str, Any]) -> None:
        """What a hosted widget sends, as a patch of the page (``_comm.Route``)."""
        widget = self._widgets.get(cid)
        if widget is None:
            return
        method = data.get("method")
        if cid in self._hosted:
            if method in ("update", "custom"):
                self._child_msgs.append([cid, _plain(data)])
        elif method == "update":
            state = data.get("state") or {}
            if cid in self._owners:  # a layout or a style: its widgets' look
                for owner in self._owners[cid]:
                    target = self._widgets.get(owner)
                    if isinstance(target, w.Box) and isinstance(widget, w.Layout):
                        self._shell.add(owner)  # restyled in place: its rows stay
                    else:
                        self._replace.add(owner)
            elif isinstance(widget, w.Box):
                if "children" in state:
                    self._children.add(cid)
                if set(state) - {"children"}:
                    self._shell.add(cid)
            else:
                self._replace.add(cid)
        self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._bridge.loop.call_soon_threadsafe(self.flush)

    def flush(self) -> None:
        """Send the patches gathered since the last flush (runs once per loop turn)."""
        self._scheduled = False
        if not (self._replace or self._shell or self._children or self._child_msgs):
            return
        models: dict[str, Any] = {}
        children = []
        fresh_ids: set[str] = set()
        for cid in list(self._children):
            box = self._widgets.get(cid)
            if not isinstance(box, w.Box):
                continue
            before = set(self._sent_children.get(cid, []))
            fresh = {}
            for child in box.children:
                self._adopt(child)
                if child.model_id not in before:
                    fresh[child.model_id] = self._draw(child, models)
                    fresh_ids.update(self._ids_under(child))
            order = [c.model_id for c in box.children]
            self._sent_children[cid] = order
            children.append([cid, order, fresh])
        replace = []
        for cid in self._replace - fresh_ids:
            widget = self._widgets.get(cid)
            if widget is not None:
                replace.append([cid, self._draw(widget, models)])
        shell = []
        for cid in self._shell - fresh_ids - self._replace:
            widget = self._widgets.get(cid)
            if isinstance(widget, w.Box):
                shell.append([cid, _box_classes(widget), layout_style(widget)])
            elif widget is not None:
                replace.append([cid, self._draw(widget, models)])
        self._replace, self._shell, self._children = set(), set(), set()
        child_msgs, self._child_msgs = self._child_msgs, []
        self.seq += 1
        self.send(
            {"seq": self.seq, "models": models, "children": children, "shell": shell,
             "replace": replace, "child": child_msgs}
        )  # fmt: skip

    def _ids_under(self, widget: w.Widget) -> set[str]:
        ids = {widget.model_id}
        if isinstance(widget, w.Box):
            for child in widget.children:
                ids |= self._ids_under(child)
        return ids

    def full(self) -> dict[str, Any]:
        """The whole tree as the front end draws it first: ``{"seq", "full", "models"}``."""
        models: dict[str, Any] = {}
        html = self._draw(self.root, models)
        return {"seq": self.seq, "full": html, "models": models}

    # -- page -> kernel ----------------------------------------------------------------------
    def _on_front_end(self, _host: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("hello"):
            self.flush()  # what is pending first, so that the seq of the whole is current
            self.send(self.full())
            return
        cid, data = content.get("w"), content.get("data")
        widget = self._widgets.get(cid) if isinstance(cid, str) else None
        if widget is None or not isinstance(data, dict):
            return
        comm = tapped(widget)
        if comm is not None and comm.route is self and data.get("method") in ("update", "custom"):
            try:
                comm.receive(data)
            except Exception:  # a bad value from the page must not break the host
                logger.exception("nb_hitl: a message from the marimo page failed")


def _json_state(widget: w.Widget) -> dict[str, Any]:
    state = widget.get_state()
    return {k: v for k, v in state.items() if not isinstance(v, (bytes, memoryview))}


def _plain(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in ("method", "state", "content")}


def _box_classes(widget: w.Box) -> str:
    box = "widget-vbox" if isinstance(widget, w.VBox) else "widget-hbox"
    parts = ["lm-Widget", "jupyter-widgets", "widget-container", "widget-box", box]
    return " ".join([*parts, *widget._dom_classes])


def marimo_panel(agent: Any, **kwargs: Any) -> Any:
    """The panel for ``agent`` (or a ``MsgHub``) as marimo shows it.

    ``kwargs`` are ``nb_hitl.show``'s (``AgentPanel`` or ``HubPanel`` options). A panel class
    that is one ``PanelModel`` comes through ``mo.ui.anywidget`` (``native_view``; the
    result's ``widget`` is the panel); the others inside a ``MarimoHost`` (``host.root`` is
    the panel). ``agent`` may also be a panel already made: a ``PanelModel``
    (``MemoryInspector(agent)``) or any other ipywidget.
    """
    prepare_marimo()
    from nb_hitl.agent import AgentBase
    from nb_hitl.pipeline import MsgHub

    from ._panel import AgentPanel
    from .hub import HubPanel

    if isinstance(agent, PanelModel):
        return native_view(agent)
    if isinstance(agent, w.Widget):
        return MarimoHost(agent)
    if not isinstance(agent, (AgentBase, MsgHub)):
        raise TypeError(
            "marimo_panel() takes an agent, a MsgHub or an nb_hitl panel, got "
            f"{type(agent).__name__}."
        )
    kind: Any = HubPanel if isinstance(agent, MsgHub) else AgentPanel
    native = issubclass(kind, PanelModel)
    if native:
        return native_view(kind(agent, **kwargs))
    with hosting():
        panel = kind(agent, **kwargs)
    return MarimoHost(panel)


__all__ = [
    "MARIMO_NOTE",
    "MarimoHost",
    "hosting",
    "in_marimo",
    "marimo_panel",
    "native_view",
    "prepare_marimo",
]
