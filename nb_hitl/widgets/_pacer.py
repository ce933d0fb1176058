"""CommPacer, comm_pacer, walk: the former comm pacer's names, for the kernel-wide budget.

The pacer wrapped the comm of every ipywidget of a panel's tree (``walk``) and merged their
trait updates. Each panel is one ``PanelModel`` now, and every panel's op batches go through
the loop's one budget (``_budget.IopubBudget``), joined while they wait. ``comm_pacer(loop)``
returns that budget, ``CommPacer`` is its class, and ``pace(widgets)`` has nothing left to do
(a panel paces itself): kept for code written against the pacer; nb_hitl calls none of them.
"""

from __future__ import annotations

import asyncio

import ipywidgets as w

from ._budget import BURST, MESSAGES_PER_SECOND, IopubBudget, iopub_budget

CommPacer = IopubBudget
"""The kernel-wide budget (``IopubBudget``) under the pacer's former name."""


def comm_pacer(loop: asyncio.AbstractEventLoop) -> IopubBudget:
    """The loop's kernel-wide budget (``iopub_budget(loop)``)."""
    return iopub_budget(loop)


def walk(widget: w.Widget) -> list[w.Widget]:
    """``widget`` and every widget under it (what ``pace`` used to take)."""
    out, stack, seen = [], [widget], set()
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        out.append(cur)
        stack.extend(getattr(cur, "children", ()) or ())
    return out


__all__ = ["BURST", "MESSAGES_PER_SECOND", "CommPacer", "comm_pacer", "walk"]
