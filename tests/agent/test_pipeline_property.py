"""Property-based: random pipelines of 2-3 agents in a MsgHub (a person in the loop or not),
stopped anywhere and resumed with random choices, keep every participant's history valid and
every broadcast exactly what was said.

A hypothesis ``RuleBasedStateMachine`` runs several pipeline episodes on one hub (see
``pipeline_harness`` for what an episode draws and which invariants are checked after every
run, resume and pause: every history valid with each tool_use answered once, each participant
observing each reply exactly once and exactly as that reply's own text so far, no tool block in
a broadcast, instructions, announcements and steering recorded once where they belong, the
pipeline's position and speakers right, sessions saved during a pause or while parked loading
again). Rules also steer a participant and broadcast an announcement between episodes. CI runs
a fixed, derandomized example budget (about half a minute on 2 shared cores);
``scripts/soak_interrupts.py --pipeline`` runs the same episodes for much longer.
"""

from __future__ import annotations

import asyncio

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from interrupt_harness import ToolPlan, TurnPlan
from machine_support import finish, machine_settings
from pipeline_harness import PipelineHarness
from pipeline_plans import (
    KINDS,
    PIPE_SPEEDS,
    PIPE_TOOL_KINDS,
    STOP_KINDS,
    HubPlan,
    PipelineEpisodePlan,
    Segment,
    SteerPlan,
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
    position=st.integers(0, 3),
    kind=st.sampled_from(STOP_KINDS),
    nth=st.integers(1, 4),
)
segments = st.builds(
    Segment,
    stop=st.none() | stops,
    action=st.sampled_from(("retry", "retry", "skip", "stop")),
    instruction=st.booleans(),
    announce=st.booleans(),
    reload=st.booleans(),
    continue_first=st.integers(0, 3),
)
steers = st.builds(
    SteerPlan,
    position=st.integers(0, 3),
    kind=st.sampled_from(("message_updated", "tool_call_started", "tool_result")),
    nth=st.integers(1, 3),
    then_stop=st.integers(0, 3),
)
episode_plans = st.builds(
    PipelineEpisodePlan,
    turns=st.lists(turns, min_size=3, max_size=3),
    segments=st.lists(segments, min_size=1, max_size=5),
    approval=st.sampled_from(("approve", "deny")),
    with_input=st.booleans(),
    tps=st.sampled_from(PIPE_SPEEDS),
    steers=st.lists(steers, max_size=2),
    user_ms=st.integers(0, 10),
    save_parked=st.booleans(),
)
hub_plans = st.builds(
    HubPlan,
    size=st.integers(2, 3),
    order_seed=st.integers(0, 5),
    parallel=st.booleans(),
    kind=st.sampled_from(KINDS),
    user=st.booleans(),
    gather=st.booleans(),
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
        try:
            finish(self.loop, self.harness)
        finally:
            if self.harness is not None:
                self.harness.close()


PipelineMachine.TestCase.settings = machine_settings("NB_HITL_PIPELINE_PROPERTY_EXAMPLES", 40)
TestPipelineMachine = PipelineMachine.TestCase
