"""What the memory inspector's page draws, worked out from the agent and the current plan.

``InspectorView`` turns the plan (``agent.compression_plan()`` under the what-if settings) and
what the agent reports into the panel's view state: escaped HTML for the header, token bar,
plan and table (``nb_hitl._render`` escapes every model, tool and user string), numbers for the
what-if controls and the chart's points (``js/src/inspector.js`` draws them). Nothing here
changes the agent.
"""

from __future__ import annotations

from typing import Any

from nb_hitl.agent import ScriptedSummary

from ._memory_table import TableRows, agent_table
from ._plan_predict import scripted_after
from ._plan_view import (
    approx_html,
    bar_html,
    floor_html,
    header_html,
    pending_header_html,
    pending_plan_html,
    plan_html,
)

KEEP_SLIDER_STEPS = 100
"""The keep_recent slider spans at most this many messages; its number box goes further."""
THRESHOLD_BOX_MAX = 10**9
"""The largest threshold the number box takes (the slider's end grows with the memory)."""
KEEP_BOX_MAX = 10**7
"""The largest keep_recent the number box takes."""


class InspectorView:
    """The inspector's what-if values and the drawing of its state.

    Args:
        threshold: the what-if ``trigger_threshold`` it starts with (0: none).
        keep: the what-if ``keep_recent`` it starts with.
    """

    def __init__(self, threshold: int, keep: int) -> None:
        self.threshold = threshold
        self.keep = keep
        self.threshold_max = max(threshold * 2, 1000)
        self.keep_max = max(keep * 2, 20)
        self.scripted = ScriptedSummary()
        """Caches the summaries it wrote to predict the exact size after compressing."""
        self.rows = TableRows()
        """The table's rows drawn last (a what-if move redraws only the rows it changes)."""

    def set_threshold(self, value: int) -> None:
        """Move the threshold, widening the slider's end past ``value`` when needed."""
        value = max(0, min(int(value), THRESHOLD_BOX_MAX))
        if value > self.threshold_max:
            self.threshold_max = int(value * 1.5)
        self.threshold = value

    def set_keep(self, value: int) -> None:
        """Move keep_recent, widening the slider's end past ``value`` when needed."""
        value = max(0, min(int(value), KEEP_BOX_MAX))
        if value > self.keep_max:
            self.keep_max = int(value * 1.5)
        self.keep = value

    def controls(self, off: dict[str, str], show_all: bool) -> dict[str, Any]:
        """The what-if controls' values, ranges and which controls are off (with why)."""
        return {
            "threshold": self.threshold,
            "threshold_max": self.threshold_max,
            "threshold_box_max": THRESHOLD_BOX_MAX,
            "keep": self.keep,
            "keep_max": self.keep_max,
            "keep_box_max": KEEP_BOX_MAX,
            "off": dict(off),
            "show_all": show_all,
        }

    def parts(
        self,
        agent: Any,
        plan: Any | None,
        agent_settings: tuple[int, int],
        floor: int,
        max_rows: int | None,
    ) -> dict[str, Any]:
        """The state parts drawn from ``plan``: header, approx, bar, plan and table HTML."""
        memory = getattr(agent, "memory", None)
        if memory is None:
            return {"header": "<b>This agent has no memory.</b>", "table": ""}
        if plan is None:
            header = (
                f"<b>{len(memory)} messages</b> · this agent has no compression_plan(), so no "
                "token counts or compression plan."
            )
            return {"header": header, "table": agent_table(agent, None, max_rows, self.rows)}
        total = int(plan.total_tokens)
        if total > self.threshold_max * 0.8:
            self.threshold_max = int(total * 1.5)
        # A slider of at most ~100 steps stays usable on any memory; the box goes further.
        wanted = max(min(len(memory), KEEP_SLIDER_STEPS), self.keep)
        if len(memory) > 0:
            self.keep_max = wanted
        after = scripted_after(agent, plan, self.scripted)
        return {
            "header": header_html(plan, len(memory), agent_settings),
            "approx": approx_html(plan),
            "bar": bar_html(plan, after),
            "plan": plan_html(plan, after) + floor_html(floor, int(plan.trigger_threshold or 0)),
            "table": agent_table(agent, plan, max_rows, self.rows),
        }

    def pending_parts(self, agent: Any, max_rows: int | None, why: str = "") -> dict[str, Any]:
        """The parts drawn before the first plan is counted: the settings, the rows' roles and
        names, and "counting tokens…" where the numbers go (``why``: why they never will,
        e.g. the inspector was replaced; "" while they are being counted). Counts nothing."""
        memory = agent.memory
        return {
            "header": pending_header_html(len(memory), self.threshold, self.keep, why),
            "approx": "",
            "bar": "",
            "plan": pending_plan_html(why),
            "table": agent_table(agent, None, max_rows, self.rows, counting=not why),
        }


def smallest_prompt(least: Any | None) -> int:
    """The smallest prompt compression can reach (``least``: the plan for threshold 1 and
    keep_recent 0): system prompt, tool schemas and what is never folded (the question, pins,
    their tool partners)."""
    if least is None:
        return 0
    fixed = int(least.breakdown.get("system", 0)) + int(least.breakdown.get("tools", 0))
    tokens = least.per_message_tokens
    return fixed + sum(int(tokens.get(i, 0)) for i in least.keep_ids)


__all__ = [
    "KEEP_BOX_MAX",
    "KEEP_SLIDER_STEPS",
    "THRESHOLD_BOX_MAX",
    "InspectorView",
    "smallest_prompt",
]
