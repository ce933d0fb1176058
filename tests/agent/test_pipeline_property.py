"""Property-based: random pipelines of 2-3 agents in a MsgHub, stopped anywhere and resumed with
a random choice, keep every participant's history valid and every broadcast right.

A hypothesis ``RuleBasedStateMachine`` runs several pipeline episodes on one hub (see
``pipeline_harness`` for what an episode draws and which invariants are checked: every history
valid with each tool_use answered once, no tool call in a broadcast, no message lost or
duplicated, instructions and steering recorded once where they belong, the pipeline's position
and speaker order right after every run and resume). Rules also steer a participant and
broadcast an announcement between episodes. CI runs a fixed, derandomized example budget (about
half a minute on 2 shared cores); ``scripts/soak_interrupts.py --pipeline`` runs the same
episodes for much longer.
"""

from __future__ import annotations

import asyncio

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from interrupt_harness import ToolPlan, TurnPlan
from machine_support import finish, machine_settings
from pipeline_harness import (
    ACTIONS,
    PIPE_SPEEDS,
    PIPE_TOOL_KINDS,
    STOP_KINDS,
    HubPlan,
    PipelineEpisodePlan,
    PipelineHarness,
    Segment,
    StopPlan,
)

turns = st.lists(
    st.builds(
        TurnPlan,
        text_tokens=st.integers(0, 20),
        calls=st.lists(
            st.builds(ToolPlan, kind=st.sampled_from(PIPE_TOOL_KINDS), ms=st.integers(0, 10)),
            max_size=3,
        ),
    ),
    max_size=2,
)
stops = st.builds(
    StopPlan,
    position=st.integers(0, 2),
    kind=st.sampled_from(STOP_KINDS),
    nth=st.integers(1, 4),
)
segments = st.builds(
    Segment, stop=st.none() | stops, action=st.sampled_from(ACTIONS), instruction=st.booleans()
)
episode_plans = st.builds(
    PipelineEpisodePlan,
    turns=st.lists(turns, min_size=3, max_size=3),
    segments=st.lists(segments, min_size=1, max_size=4),
    approval=st.sampled_from(("approve", "deny")),
    with_input=st.booleans(),
    tps=st.sampled_from(PIPE_SPEEDS),
    steer_position=st.none() | st.integers(0, 2),
    steer_kind=st.sampled_from(STOP_KINDS),
    steer_nth=st.integers(1, 3),
)
hub_plans = st.builds(
    HubPlan, size=st.integers(2, 3), order_seed=st.integers(0, 5), parallel=st.booleans()
)


class PipelineMachine(RuleBasedStateMachine):
    """One hub and its pipeline, several random episodes; invariants after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.harness: PipelineHarness | None = None

    @initialize(plan=hub_plans)
    def make_hub(self, plan: HubPlan) -> None:
        self.harness = PipelineHarness(plan)

    @rule(plan=episode_plans)
    def episode(self, plan: PipelineEpisodePlan) -> None:
        assert self.harness is not None
        self.loop.run_until_complete(self.harness.episode(plan))

    @rule(position=st.integers(0, 2))
    def steer_between_runs(self, position: int) -> None:
        assert self.harness is not None
        self.harness.steer(position, "steered between runs")

    @rule()
    def announce(self) -> None:
        assert self.harness is not None
        self.loop.run_until_complete(self.harness.announce("the host says: time check"))

    @invariant()
    def memories_are_valid(self) -> None:
        if self.harness is not None:
            self.harness.check_all()

    def teardown(self) -> None:
        finish(self.loop, self.harness)


PipelineMachine.TestCase.settings = machine_settings("NB_HITL_PIPELINE_PROPERTY_EXAMPLES", 40)
TestPipelineMachine = PipelineMachine.TestCase
