"""WidgetComm: the one seam between nb_hitl's widgets and whatever carries their messages.

ipywidgets reaches the front end only through a widget's ``comm`` (a public trait of
``Widget``) and only through the interface the ``comm`` package defines for it
(``comm.base_comm.BaseComm``: ``comm_id``, ``send(data, metadata, buffers)``, ``on_msg``,
``handle_msg``, ``close``). Every trait update (``{"method": "update", "state": ...}``) and
every custom message (``widget.send``) is one ``comm.send`` call, in the order the widget
made them. ``tap(widget)`` puts a ``WidgetComm`` in that trait, wrapping the comm the kernel
opened for the widget (ipykernel's, marimo's, a test's), and ``route`` decides where its
messages go: the wrapped kernel comm (``None``, the default) or a ``MarimoHost`` that draws the
widget in marimo (``_marimo.py``). (When messages go out is no longer decided here: each panel
is one ``PanelModel`` whose op batches go through the loop's budget, ``_budget.py``.)

Why here: this is the contract between ipywidgets and every kernel (ipykernel 6 and 7,
marimo, xeus), which an ipywidgets 8.x release cannot change without breaking them all,
while ``Widget._send`` and friends are private helpers. Wrapping one widget's comm (rather
than replacing ``comm.create_comm``, the process-wide factory that ipykernel and marimo each
install) leaves every other widget in the kernel alone. Messages from the front end still
arrive through the wrapped comm (its comm manager and ipykernel 7's subshell routing are
untouched); a host hands its page's messages in with ``receive``.
"""

from __future__ import annotations

import logging
import uuid
import weakref
from typing import Any, Protocol

import ipywidgets as w
from comm.base_comm import BaseComm

logger = logging.getLogger("nb_hitl.widgets")


class Route(Protocol):
    """Where a hosted widget's messages go instead of its kernel comm (``MarimoHost``)."""

    def comm_msg(self, comm_id: str, data: dict[str, Any]) -> None:
        """A message the widget sends (an update or a custom message)."""

    def comm_close(self, comm_id: str) -> None:
        """The widget closed."""


class WidgetComm(BaseComm):
    """A widget's comm as nb_hitl sees it: the kernel's comm, routed.

    Args:
        inner: the comm the kernel opened for the widget (``None``: a hosted widget that has
            none).
        comm_id: the widget's model id (the inner comm's id).
    """

    def __init__(self, inner: Any, comm_id: str) -> None:
        self.inner = inner
        self._route: weakref.ref[Route] | None = None
        super().__init__(
            comm_id=comm_id, primary=False, target_name=getattr(inner, "target_name", "comm")
        )

    # -- where messages go ---------------------------------------------------------------------
    @property
    def route(self) -> Route | None:
        """The host that draws this widget (``None``: the kernel comm carries it)."""
        return self._route() if self._route is not None else None

    @route.setter
    def route(self, route: Route | None) -> None:
        self._route = weakref.ref(route) if route is not None else None

    @property
    def kernel(self) -> Any:
        """What ipywidgets checks before it sends (``None``: no kernel to send to)."""
        if self._route is not None or self.inner is None:
            return True
        return getattr(self.inner, "kernel", True)

    @property
    def closed(self) -> bool:
        """Whether the widget closed its comm."""
        return self._closed

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        """What ipywidgets calls for each message: delivered at once, where it is routed."""
        self.deliver(data, metadata, buffers)

    def deliver(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        """Send one message now, to the host or through the kernel's comm."""
        if self._closed:
            return
        if self._route is not None:  # hosted: never the kernel comm, even once the host is gone
            route = self.route
            if route is not None and isinstance(data, dict):
                route.comm_msg(self.comm_id, data)
        elif self.inner is not None:
            self.inner.send(data=data, metadata=metadata, buffers=buffers)

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        """Unused: ``send`` and ``close`` go through the wrapped comm."""

    # -- what comes back -----------------------------------------------------------------------
    def on_msg(self, callback: Any) -> None:
        """The widget's handler for front-end messages (kept here and on the kernel comm)."""
        self._msg_callback = callback
        if self.inner is not None:
            self.inner.on_msg(callback)

    def on_close(self, callback: Any) -> None:
        """The handler for the front end closing the comm."""
        self._close_callback = callback
        if self.inner is not None:
            self.inner.on_close(callback)

    def receive(self, data: dict[str, Any]) -> None:
        """Hand the widget a message its host's page sent (as a front end's ``comm_msg``)."""
        if self._msg_callback is not None and not self._closed:
            self._msg_callback({"content": {"comm_id": self.comm_id, "data": data}, "buffers": []})

    def drop_inner(self) -> None:
        """Close the kernel comm of a hosted widget (opened for a view that never comes)."""
        inner, self.inner = self.inner, None
        if inner is not None:
            try:
                inner.close()
            except Exception:
                logger.debug("closing a hosted widget's kernel comm failed", exc_info=True)

    def close(
        self, data: Any = None, metadata: Any = None, buffers: Any = None, deleting: bool = False
    ) -> None:
        """The widget closed: its host forgets it and the kernel comm is closed."""
        if self._closed:
            return
        self._closed = True
        if deleting:
            return  # garbage: no host holds it; the kernel comm closes itself
        route = self.route
        if route is not None:
            route.comm_close(self.comm_id)
        if self.inner is not None:
            self.inner.close(data=data, metadata=metadata, buffers=buffers)


def tap(widget: w.Widget) -> WidgetComm:
    """``widget``'s ``WidgetComm``, put in place on first use (wrapping the comm it has)."""
    current = widget.comm
    if isinstance(current, WidgetComm):
        return current
    comm_id = current.comm_id if current is not None else uuid.uuid4().hex
    tapped = WidgetComm(current, comm_id)
    widget.comm = tapped  # ipywidgets registers its handler on it (``Widget._comm_changed``)
    return tapped


def tapped(widget: w.Widget) -> WidgetComm | None:
    """``widget``'s ``WidgetComm`` if it has one (``None``: untouched or closed)."""
    current = widget.comm
    return current if isinstance(current, WidgetComm) else None


__all__ = ["Route", "WidgetComm", "tap", "tapped"]
