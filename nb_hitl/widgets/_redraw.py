"""RedrawBudget, redraw_budget: the former redraw budget's names, for the kernel-wide budget.

Redraws and every panel's messages now come from one budget per event loop with one token
bucket (``_budget.IopubBudget``, ``_budget.iopub_budget``): ``RedrawBudget`` is that class and
``redraw_budget(loop)`` returns the loop's budget, so code written against them keeps running.
Its rate counts comm messages a second (a redraw costs the messages it sends), not redraws.
"""

from __future__ import annotations

from ._budget import REDRAWS_PER_SECOND, IopubBudget, Streamer, iopub_budget

RedrawBudget = IopubBudget
"""The kernel-wide budget (``IopubBudget``) under its former name."""
redraw_budget = iopub_budget
"""The loop's kernel-wide budget (``iopub_budget``) under its former name."""

__all__ = ["REDRAWS_PER_SECOND", "RedrawBudget", "Streamer", "redraw_budget"]
