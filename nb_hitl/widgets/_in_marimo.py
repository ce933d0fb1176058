"""nb_hitl in a marimo kernel: the check (``in_marimo``) and marimo's construction hook.

Kept apart from ``_marimo.py`` so that ``PanelModel`` can prepare marimo's kernel
before its first panel is made without importing the panels.
"""

from __future__ import annotations

import logging
import sys
import uuid

import anywidget
import ipywidgets as w

logger = logging.getLogger("nb_hitl.widgets")

MARIMO_NOTE = "comm.create_comm called with target_name"
"""The start of marimo's warning for every ipywidget made in its kernel (each would otherwise
log one line)."""


def in_marimo() -> bool:
    """True inside a running marimo notebook or app (``marimo edit`` / ``marimo run``).

    marimo is not imported for the check: a kernel that has not imported it is not marimo's.
    """
    mo = sys.modules.get("marimo")
    if mo is None:
        return False
    try:
        return bool(mo.running_in_notebook())
    except Exception:  # an unexpected marimo version: not a place to fail
        return False


class _QuietMarimo(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(MARIMO_NOTE)


def _placeholder(widget: w.Widget) -> None:
    from comm import DummyComm

    cid = getattr(widget, "_model_id", None) or uuid.uuid4().hex
    widget.comm = DummyComm(comm_id=cid, target_name="jupyter.widget")


def prepare_marimo() -> None:
    """Get marimo's kernel ready for nb_hitl's widgets (idempotent).

    marimo gives every ipywidget a comm of its own when it is constructed
    (``Widget.on_widget_constructed``, the hook ipywidgets offers). nb_hitl wraps that hook:

    - a ``PanelModel`` made for a host to draw (``_model.inside_host()``) gets no comm, as
      in Jupyter; any other ``PanelModel`` goes to marimo, which opens the comm its native
      view uses (``native_view``). One made outside a cell's run (an explorer opened by a click, a
      child to ``embed``) cannot be opened there in marimo 0.25 (its ES module's virtual file
      exists only for a running cell: ``AssertionError``); it gets a placeholder comm, as a
      model drawn inside its host needs none;
    - any other nb_hitl anywidget (none today: every one is a ``PanelModel``) gets a
      placeholder comm; every other widget goes to marimo as before.
    - marimo's warning for each ipywidget that is not an anywidget is dropped.

    ipywidgets has a public setter for the hook but no getter: the hook to wrap is read from
    ``Widget._widget_construction_callback``, where that setter stores it.
    """
    log = logging.getLogger("marimo")
    if not any(isinstance(f, _QuietMarimo) for f in log.filters):
        log.addFilter(_QuietMarimo())
    inner = w.Widget._widget_construction_callback
    if inner is None or getattr(inner, "_nb_hitl", False):
        return

    def construct(widget: w.Widget) -> None:
        mine = type(widget).__module__.startswith("nb_hitl.")
        if not mine or not isinstance(widget, anywidget.AnyWidget):
            inner(widget)
        elif getattr(widget, "_commless", False):  # made for a host's embed: no comm at all
            return
        elif getattr(widget, "_nb_hitl_panel", False):  # a PanelModel
            try:
                inner(widget)
            except Exception:  # made outside a cell's run (see above): drawn by its host
                logger.debug("nb_hitl: marimo opened no comm for %s", type(widget).__name__)
                _placeholder(widget)
        else:
            _placeholder(widget)

    construct._nb_hitl = True  # type: ignore[attr-defined]
    w.Widget.on_widget_constructed(construct)


__all__ = ["MARIMO_NOTE", "in_marimo", "prepare_marimo"]
