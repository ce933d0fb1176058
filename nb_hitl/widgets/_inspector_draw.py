"""Drawing the memory inspector: the header, the token bar, the plan, the table and the chart.

Everything is drawn from the current plan (``agent.compression_plan()`` under the what-if
settings) and from what the agent reports; nothing here changes the agent.
``InspectorDrawing`` is mixed into ``MemoryInspector`` (``_inspector.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl.agent import ScriptedSummary

from ._inspector_chart import StepsChart
from ._memory_table import agent_table
from ._plan_predict import scripted_after
from ._plan_view import approx_html, bar_html, floor_html, header_html, plan_html
from ._what_if import WhatIfSliders

KEEP_SLIDER_STEPS = 100
"""The keep_recent slider spans at most this many messages; its number box goes further."""


class InspectorDrawing(WhatIfSliders):
    """The drawing half of ``MemoryInspector`` (the what-if sliders come with it)."""

    # Provided by MemoryInspector.
    agent: Any
    plan: Any | None
    max_rows: int
    detached: bool
    undo_button: w.Button
    _show_all: bool
    _history: StepsChart
    _scripted: ScriptedSummary
    _header: w.HTML
    _approx: w.HTML
    _bar: w.HTML
    _plan_html: w.HTML
    _table: w.HTML

    if TYPE_CHECKING:

        @property
        def agent_settings(self) -> tuple[int, int]: ...

        def _compute_plan(self, threshold: int | None, keep: int | None) -> Any | None: ...

    # -- drawing -----------------------------------------------------------------------------
    def _draw(self) -> None:
        memory = getattr(self.agent, "memory", None)
        plan = self.plan
        if memory is None:
            self._header.value = "<b>This agent has no memory.</b>"
            return
        if plan is None:
            self._header.value = (
                f"<b>{len(memory)} messages</b> · this agent has no compression_plan(), so no "
                "token counts or compression plan."
            )
            self._draw_table()
            return
        total = int(plan.total_tokens)
        if total > self.threshold_slider.max * 0.8:
            self.threshold_slider.max = int(total * 1.5)
        # A slider of at most ~100 steps stays usable on any memory; the box goes further.
        wanted = max(min(len(memory), KEEP_SLIDER_STEPS), self.keep_recent)
        if self.keep_slider.max != wanted and len(memory) > 0:
            self.keep_slider.max = wanted
        after = scripted_after(self.agent, plan, self._scripted)
        if not self.detached:
            can_undo = bool(getattr(self.agent, "can_undo_compression", False))
            self.undo_button.disabled = not can_undo
        self._header.value = header_html(plan, len(memory), self.agent_settings)
        self._bar.value = bar_html(plan, after)
        self._plan_html.value = plan_html(plan, after) + floor_html(
            self._floor(), int(plan.trigger_threshold or 0)
        )
        approx = approx_html(plan)
        if self._approx.value != approx:
            self._approx.value = approx
        self._draw_table()
        self._draw_chart()

    def _floor(self) -> int:
        """The smallest prompt compression can reach now: system prompt, tool schemas and what
        is never folded (the question, pins, their tool partners), with nothing recent kept."""
        least = self._compute_plan(1, 0)
        if least is None:
            return 0
        fixed = int(least.breakdown.get("system", 0)) + int(least.breakdown.get("tools", 0))
        tokens = least.per_message_tokens
        return fixed + sum(int(tokens.get(i, 0)) for i in least.keep_ids)

    def _draw_table(self) -> None:
        rows = None if self._show_all else self.max_rows
        self._table.value = agent_table(self.agent, self.plan, rows)

    def _draw_chart(self) -> None:
        threshold = self.threshold if self.plan is not None else 0
        self._history.draw(threshold)


__all__ = ["KEEP_SLIDER_STEPS", "InspectorDrawing"]
