"""The MemoryInspector's chart: the prompt of every model call, and compressions and undos.

One rule draws every point, live or afterwards: a call's point is the prompt that call sent,
the system prompt and tool schemas plus every message before the call's answer. The chart
starts with the agent's memory replayed call by call (``replay_compression``: what this
agent would have sent); at each (throttled) refresh, every answer added since is a point at
the prompt of its own call, worked out from the plan's per-message counts, not the memory's
total at refresh time. So a live 100-turn loop draws the same line as the same memory shown
afterwards, however many turns one refresh gathers (it once drew a staircase: every turn of a
refresh at the same height). Compressions (at their tokens after) and undos (at the total of
the next refresh) are marks between the calls; the last point is the prompt now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.message import Msg

CHART_STEPS = 300
"""The chart shows the latest this many points (a long memory's chart stays small)."""

Step = tuple[str, int, str]
"""A chart point: (kind, prompt tokens, hover text); kinds: replayed, turn, compress, undo."""


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


def _is_call(msg: Msg, agent_name: str) -> bool:
    """Whether ``msg`` was written by one of the agent's model calls (as the replay counts)."""
    return msg.role == "assistant" and msg.name == agent_name and not msg.is_interrupted


class StepsChart:
    """The chart's points: replayed calls, then live calls, compressions and undos."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        """Every point so far but "now", oldest first (only the last ``CHART_STEPS`` drawn)."""
        self.due: list[tuple[str, str]] = []
        """(kind, label) of marks to count at the next refresh (undos)."""
        self.now = 0
        """The prompt now (the last point)."""
        self._ids: list[str] = []
        self._calls = 0

    def start(self, agent: AgentBase, total_tokens: int) -> None:
        """Begin with the replayed calls of ``agent``'s memory and a point for now."""
        self.steps[:] = replayed_steps(agent)
        self._calls = sum(1 for kind, _, _ in self.steps if kind in ("replayed", "compress"))
        self._ids = [m.id for m in agent.memory.messages]
        self.now = total_tokens

    def undone(self) -> None:
        """A compression was undone: an undo mark at the next refresh."""
        self.due.append(("undo", "compression undone"))

    def compressed(self, ev: Any) -> None:
        """A ``CompressionFinished`` event: a compression mark at its tokens after, now."""
        ids = getattr(ev, "compressed_ids", ())
        before, after = getattr(ev, "tokens_before", 0), getattr(ev, "tokens_after", 0)
        self.steps.append(
            (
                "compress",
                int(after),
                f"compressed {len(ids)} message(s): {before:,} → {after:,} tokens",
            )
        )

    def follow(self, agent: AgentBase, plan: Any | None) -> None:
        """At a refresh: a point per model call since the last one, then the marks due."""
        memory = getattr(agent, "memory", None)
        if plan is None or memory is None:
            self.due.clear()
            return
        messages = memory.messages
        ids = [m.id for m in messages]
        total = int(plan.total_tokens)
        if ids[: len(self._ids)] != self._ids:  # cleared, loaded, another branch: start over
            self.start(agent, total)
            self.due.clear()
            return
        if len(ids) > len(self._ids):  # new messages: a point for each call among them
            self._add_calls(agent, plan, messages)
        self._ids = ids
        self.steps.extend((kind, total, f"{label}: {total:,} tokens") for kind, label in self.due)
        self.due.clear()
        self.now = total

    def _add_calls(self, agent: AgentBase, plan: Any, messages: list[Msg]) -> None:
        """A point per model call among the messages after ``_ids``, at its own prompt."""
        memory = agent.memory
        tokens = plan.per_message_tokens
        fixed = sum(int(v) for k, v in plan.breakdown.items() if k != "history")
        counted = [m for m in messages if "compressed" not in memory.marks_of(m.id)]
        position = {m.id: i for i, m in enumerate(counted)}
        running = fixed + sum(int(tokens.get(i, 0)) for i in self._ids if i in position)
        for msg in messages[len(self._ids) :]:
            if _is_call(msg, agent.name):
                self._calls += 1
                self.steps.append(("turn", running, f"call {self._calls}: {running:,} tokens sent"))
            if msg.id in position:
                running += int(tokens.get(msg.id, 0))

    def drawn(self) -> list[Step]:
        """The points the chart draws: the latest ``CHART_STEPS`` and the prompt now."""
        return [*self.steps[-(CHART_STEPS - 1) :], ("now", self.now, f"now: {self.now:,} tokens")]


__all__ = ["CHART_STEPS", "Step", "StepsChart", "replayed_steps"]
