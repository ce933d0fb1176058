"""The MemoryInspector's chart: prompt tokens step by step, and the points it has gathered.

The chart starts with the agent's memory replayed call by call (what this agent would have sent),
then gains a point per finished turn, compression and undo. Turn and undo points are counted at
the inspector's next (throttled) refresh, not when the event arrives: right after a reply ends
or is interrupted, the chat's own updates must not wait behind a plan computation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._live import html
from ._svg import steps_chart

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

CHART_STEPS = 300
"""The chart shows the latest this many points (a long memory's SVG stays small)."""

Step = tuple[str, int, str]
"""A chart point: (kind, prompt tokens, hover text); see ``steps_chart``."""


def replayed_steps(agent: AgentBase) -> list[Step]:
    """The prompt of every model call in memory, replayed with the agent's setting.

    A transcript loaded into memory has no history of its own; the replay shows what this
    agent would have sent for each of its calls (nothing is called).
    """
    from nb_hitl.agent import replay_compression

    try:
        replay = replay_compression(agent, getattr(agent, "compression_config", None))
    except ValueError:  # nothing to replay yet (TranscriptError, ConfigError)
        return []
    steps: list[Step] = []
    for row in replay.rows:
        tip = f"call {row.call} (message {row.message}), replayed: {row.prompt_tokens:,} tokens"
        if row.compressed:
            tip += f" after compressing {len(row.folded_ids)} message(s) (estimate)"
        steps.append(("compress" if row.compressed else "replayed", row.prompt_tokens, tip))
    return steps


class StepsChart:
    """The chart's points and the ``HTML`` widget that draws them."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        """Every point so far, oldest first (only the last ``CHART_STEPS`` are drawn)."""
        self.due: list[tuple[str, str]] = []
        """(kind, label) of points to count at the next refresh."""
        self.turns = 0
        self.view = html()

    def start(self, agent: AgentBase, total_tokens: int) -> None:
        """Begin with the replayed calls of ``agent``'s memory and a point for now."""
        self.steps[:] = replayed_steps(agent)
        self.steps.append(("turn", total_tokens, "now"))

    def turn_finished(self) -> None:
        """A reply ended: a turn point at the next refresh."""
        self.turns += 1
        self.due.append(("turn", f"after turn {self.turns}"))

    def undone(self) -> None:
        """A compression was undone: an undo point at the next refresh."""
        self.due.append(("undo", "compression undone"))

    def compressed(self, ev: Any) -> None:
        """A ``CompressionFinished`` event: a compression point at its tokens after, now."""
        ids = getattr(ev, "compressed_ids", ())
        before, after = getattr(ev, "tokens_before", 0), getattr(ev, "tokens_after", 0)
        self.steps.append(
            (
                "compress",
                int(after),
                f"compressed {len(ids)} message(s): {before:,} → {after:,} tokens",
            )
        )

    def count_due(self, total_tokens: int | None) -> None:
        """Add the points due at ``total_tokens`` (dropped when there is no plan)."""
        if total_tokens is not None:
            self.steps.extend(
                (kind, total_tokens, f"{label}: {total_tokens:,} tokens")
                for kind, label in self.due
            )
        self.due.clear()

    def draw(self, threshold: int) -> None:
        """Draw the latest points with the ``threshold`` line (0 for none)."""
        self.view.value = steps_chart(self.steps[-CHART_STEPS:], threshold)


__all__ = ["CHART_STEPS", "StepsChart", "replayed_steps"]
