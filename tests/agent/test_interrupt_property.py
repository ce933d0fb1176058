"""Property-based: random replies with random interrupts always leave a valid, resumable history.

A hypothesis ``RuleBasedStateMachine`` runs several episodes on one agent (see
``interrupt_harness`` for what an episode draws and which invariants are checked after each
one); rules steer, switch branches and round-trip the agent's state between replies, and
episodes may steer or stop after a step mid-reply, and start by resuming the last interrupted
reply or by rewinding (edit an earlier question, regenerate an earlier answer). CI runs a fixed,
derandomized example budget (about a minute on 2 shared cores);
``scripts/soak_interrupts.py`` runs the same episodes for much longer.
"""

from __future__ import annotations

import asyncio

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from interrupt_harness import (
    APPROVALS,
    CALL_IDS,
    EVENT_KINDS,
    HOWS,
    MOMENTS,
    SECOND_HOWS,
    SPEEDS,
    STARTS,
    TOOL_KINDS,
    AgentPlan,
    EpisodePlan,
    Harness,
    ToolPlan,
    TurnPlan,
)
from machine_support import finish, machine_settings
from permission_harness import MODES as PERMISSION_MODES
from permission_harness import RULES as PERMISSION_RULES

tool_plans = st.builds(
    ToolPlan,
    kind=st.sampled_from(TOOL_KINDS),
    ms=st.integers(0, 20),
    call_id=st.sampled_from(CALL_IDS),
)
turn_plans = st.builds(
    TurnPlan, text_tokens=st.integers(0, 30), calls=st.lists(tool_plans, max_size=4)
)
episode_plans = st.builds(
    EpisodePlan,
    turns=st.lists(turn_plans, min_size=1, max_size=3),
    tps=st.sampled_from(SPEEDS),
    approval=st.sampled_from(APPROVALS),
    moment=st.sampled_from(MOMENTS),
    iterations=st.integers(0, 120),
    event_kind=st.sampled_from(EVENT_KINDS),
    event_nth=st.integers(1, 4),
    how=st.sampled_from(HOWS),
    second=st.none() | st.sampled_from(SECOND_HOWS),
    concurrent_call=st.booleans(),
    steer_kind=st.none() | st.sampled_from(EVENT_KINDS),
    steer_nth=st.integers(1, 3),
    start=st.sampled_from(STARTS),
    pick=st.integers(0, 5),
    decide_ms=st.integers(0, 5),
)
agent_plans = st.builds(
    AgentPlan,
    parallel=st.booleans(),
    compress=st.booleans(),
    threshold=st.integers(250, 1500),
    keep_recent=st.integers(1, 4),
    prefix=st.booleans(),
    mode=st.sampled_from(PERMISSION_MODES),
    rule=st.sampled_from(PERMISSION_RULES),
)


class InterruptMachine(RuleBasedStateMachine):
    """One agent, several random episodes; invariants after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.harness: Harness | None = None

    @initialize(plan=agent_plans)
    def make_agent(self, plan: AgentPlan) -> None:
        self.harness = Harness(plan)

    @rule(plan=episode_plans)
    def episode(self, plan: EpisodePlan) -> None:
        assert self.harness is not None
        self.loop.run_until_complete(self.harness.episode(plan))

    @rule()
    def steer_between_replies(self) -> None:
        assert self.harness is not None
        self.harness.steer("steered between replies")

    @rule(which=st.integers(0, 5))
    def switch_branch_between_replies(self, which: int) -> None:
        assert self.harness is not None
        self.harness.checkout(which)

    @rule()
    def state_round_trip_between_replies(self) -> None:
        assert self.harness is not None
        self.harness.state_round_trip()

    @invariant()
    def memory_is_valid(self) -> None:
        if self.harness is not None:
            self.harness.check_memory()

    def teardown(self) -> None:
        finish(self.loop, self.harness)


InterruptMachine.TestCase.settings = machine_settings("NB_HITL_PROPERTY_EXAMPLES", 30)
TestInterruptMachine = InterruptMachine.TestCase
