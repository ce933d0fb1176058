"""What a random pipeline episode is made of: the plans, and how the soak draws them.

The hypothesis strategies (``test_pipeline_property.py``) and the soak (``random_hub_plan``,
``random_pipeline_plan``) draw the same dataclasses; ``pipeline_harness.PipelineHarness`` plays
them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from interrupt_harness import ToolPlan, TurnPlan

NAMES = ("Ada", "Ben", "Mia")
USER_NAME = "Uma"
"""The person in the loop (a ``UserAgent``) when the hub has one."""
PIPE_TOOL_KINDS = ("async", "stream", "raises", "approval", "ghost")
"""``ghost`` is a tool no toolkit has: the toolkit answers it with an error result."""
STOP_KINDS = (
    "message_updated",
    "tool_call_started",
    "tool_result",
    "approval_requested",
    "message_added",
    "reply_started",
    "steered",
)
ACTIONS = ("retry", "skip", "stop")
PIPE_SPEEDS = (2000.0, 1e6)
KINDS = ("sequential", "fanout")


@dataclass
class StopPlan:
    """Press Stop on the participant at ``position`` (of the pipeline, modulo its length) at
    its ``nth`` event of ``kind`` during one run or resume."""

    position: int = 0
    kind: str = "message_updated"
    nth: int = 1


@dataclass
class SteerPlan:
    """Steer the participant at ``position`` at its ``nth`` event of ``kind``; with
    ``then_stop`` set, Stop it ``then_stop - 1`` streamed chunks after the steer is taken in
    (1: as soon as it is taken in), so a steered speaker is interrupted."""

    position: int = 0
    kind: str = "message_updated"
    nth: int = 1
    then_stop: int = 0


@dataclass
class Segment:
    """The first run or one resume: where Stop lands, and what happens at the pause after it."""

    stop: StopPlan | None = None
    action: str = "retry"
    instruction: bool = True
    announce: bool = False
    """The host broadcasts an announcement during the pause, before resuming."""
    reload: bool = False
    """Every participant is saved (``save_session``) and loaded back during the pause."""
    continue_first: int = 0
    """During the pause the interrupted speaker continues its reply first (``agent.resume()``,
    observed by the others): 0 no, 1 to its end, n > 1 stopped at its (n-1)-th chunk."""


@dataclass
class PipelineEpisodePlan:
    """One pipeline run, its pauses and resumes."""

    turns: list[list[TurnPlan]]
    """Per participant, the model turns queued for this episode (then ``<name>: done.``)."""
    segments: list[Segment]
    """The first run and the resumes after it, in turn: segment ``i`` arms a Stop for run ``i``
    and says how to resume if that run pauses. When they run out, no Stop is armed."""
    approval: str = "approve"
    with_input: bool = True
    tps: float = 1e6
    steers: list[SteerPlan] = field(default_factory=list)
    user_ms: int = 5
    """How long the person takes to answer (milliseconds)."""
    save_parked: bool = False
    """Save the session of a participant parked on an approval; the file must load into a
    fresh agent with the same tools, whose resumed reply must end."""


@dataclass
class HubPlan:
    """The participants: how many, the pipeline's kind and order, parallel tool calls."""

    size: int = 3
    order_seed: int = 0
    parallel: bool = False
    kind: str = "sequential"
    user: bool = False
    """A ``UserAgent`` takes part too (its input comes after ``user_ms``)."""
    gather: bool = True
    """Fanout: run the participants concurrently."""


@dataclass
class PipelineStats:
    episodes: int = 0
    runs: int = 0
    """Pipeline runs and resumes."""
    interrupts: int = 0
    """Stops that reached a replying participant."""
    steers: int = 0
    """Steering messages given to participants."""
    pauses: int = 0
    reloads: int = 0
    """Participants saved and loaded back during a pause."""
    parked_loads: int = 0
    """Sessions saved while parked on an approval, loaded into a fresh agent and resumed."""
    announcements: int = 0
    continuations: int = 0
    """Interrupted replies continued with ``agent.resume()`` during a pause."""
    actions: Counter[str] = field(default_factory=Counter)

    def add(self, other: PipelineStats) -> None:
        for name in ("episodes", "runs", "interrupts", "steers", "pauses", "reloads"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.parked_loads += other.parked_loads
        self.announcements += other.announcements
        self.continuations += other.continuations
        self.actions.update(other.actions)


def random_turns(rng: random.Random) -> list[TurnPlan]:
    return [
        TurnPlan(
            rng.randint(0, 20),
            [
                ToolPlan(rng.choice(PIPE_TOOL_KINDS), rng.randint(0, 10))
                for _ in range(rng.randint(0, 3))
            ],
        )
        for _ in range(rng.randint(0, 2))
    ]


def random_stop(rng: random.Random) -> StopPlan:
    kind = rng.choice(("message_updated",) * 4 + ("reply_started",) * 2 + STOP_KINDS)
    return StopPlan(rng.randint(0, 3), kind, rng.randint(1, 3 if kind != "steered" else 1))


def random_pipeline_plan(rng: random.Random) -> PipelineEpisodePlan:
    """An episode plan drawn from ``rng`` (the soak's twin of the hypothesis strategy)."""
    segments = [
        Segment(
            random_stop(rng) if rng.random() < 0.95 else None,
            rng.choice(("retry", "retry", "retry", "skip", "stop")),
            rng.random() < 0.5,
            announce=rng.random() < 0.25,
            reload=rng.random() < 0.2,
            continue_first=rng.choice((0, 0, 0, 1, 1, 2, 3)),
        )
        for _ in range(rng.randint(1, 6))
    ]
    steers = [
        SteerPlan(
            rng.randint(0, 3),
            rng.choice(("message_updated",) * 3 + ("tool_call_started", "tool_result")),
            rng.randint(1, 3),
            rng.choice((0, 0, 1, 2, 3)),
        )
        for _ in range(rng.randint(1, 4))
    ]
    return PipelineEpisodePlan(
        turns=[random_turns(rng) for _ in NAMES],
        segments=segments,
        approval=rng.choice(("approve", "deny")),
        with_input=rng.random() < 0.7,
        tps=rng.choice((2000.0, 2000.0, 1e6)),
        steers=steers,
        user_ms=rng.randint(0, 15),
        save_parked=rng.random() < 0.3,
    )


def random_hub_plan(rng: random.Random) -> HubPlan:
    return HubPlan(
        rng.randint(2, 3),
        rng.randint(0, 5),
        rng.random() < 0.4,
        rng.choice(KINDS),
        rng.random() < 0.35,
        rng.random() < 0.7,
    )


__all__ = [
    "ACTIONS",
    "KINDS",
    "NAMES",
    "PIPE_SPEEDS",
    "PIPE_TOOL_KINDS",
    "STOP_KINDS",
    "USER_NAME",
    "HubPlan",
    "PipelineEpisodePlan",
    "PipelineStats",
    "Segment",
    "SteerPlan",
    "StopPlan",
    "random_hub_plan",
    "random_pipeline_plan",
    "random_stop",
    "random_turns",
]
