"""The property test's checker catches what it must, and its episodes really interrupt.

``test_interrupt_property.py`` passes when no invariant breaks; that means something only if
the invariants can break (a bad history is reported) and the episodes deliver interrupts.
"""

from __future__ import annotations

import pytest
from interrupt_harness import (
    AgentPlan,
    EpisodePlan,
    Harness,
    ToolPlan,
    TurnPlan,
    Violation,
    check_history,
)
from machine_support import run_soak

from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock


def use(call_id: str) -> Msg:
    return Msg("Friday", [ToolUseBlock(id=call_id, name="sync", input={"ms": 0})], "assistant")


def result(call_id: str) -> Msg:
    return Msg("system", [ToolResultBlock(id=call_id, name="sync", output="ok")], "system")


@pytest.mark.parametrize(
    ("history", "complaint"),
    [
        ([use("a")], "never answered"),
        ([use("a"), result("a"), result("a")], "answered twice"),
        ([result("a"), use("a")], "answers no earlier tool_use"),
        ([use("a"), result("a"), use("a"), result("a")], "not unique"),
        ([use(""), result("")], "empty"),
    ],
)
def test_check_history_reports_each_broken_history(history: list[Msg], complaint: str) -> None:
    with pytest.raises(Violation, match=complaint):
        check_history(history)
    check_history([use("a"), result("a"), use("b"), result("b")])  # a valid one passes


async def test_check_memory_reports_an_unanswered_call_left_in_memory() -> None:
    harness = Harness(AgentPlan())
    await harness.episode(EpisodePlan(turns=[TurnPlan(3)]))
    harness.check_memory()
    harness.agent.memory.add_sync(use("dangling"))
    with pytest.raises(Violation, match="never answered"):
        harness.check_memory()


@pytest.mark.parametrize(
    ("how", "by"),
    [("interrupt", "interrupt"), ("caller_cancel", "cancelled"), ("raw_cancel", "cancelled")],
)
async def test_an_episode_delivers_its_interrupt_and_counts_it(how: str, by: str) -> None:
    harness = Harness(AgentPlan())
    turns = [TurnPlan(2, [ToolPlan("async", ms=20)]), TurnPlan(5)]
    await harness.episode(
        EpisodePlan(turns=turns, moment="event", event_kind="tool_call_started", how=how)
    )
    stats = harness.stats
    assert (stats.episodes, stats.interrupts, stats.interrupted) == (1, 1, 1)
    assert dict(stats.by) == {by: 1}  # interrupted_by names what stopped it
    await harness.replies_normally()


def test_the_soak_script_runs_episodes_with_interrupts_and_no_violation() -> None:
    run, n, k, s, v = run_soak("--episodes", "12", "--seed", "3")
    assert (run.returncode, n, v) == (0, 12, 0), run.stdout + run.stderr
    assert k > 0 and s >= 0, run.stdout
