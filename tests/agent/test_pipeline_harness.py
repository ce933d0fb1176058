"""The pipeline property test's checker catches what it must, and its episodes really pause.

``test_pipeline_property.py`` passes when no invariant breaks; that means something only if the
invariants can break (a wrong broadcast, a pipeline that does not pause, a lost instruction are
reported) and the episodes deliver Stops that pause the pipeline and get resumed.
"""

from __future__ import annotations

import pytest
from interrupt_harness import ToolPlan, TurnPlan, Violation
from machine_support import run_soak
from pipeline_harness import HubPlan, PipelineEpisodePlan, PipelineHarness, Segment, StopPlan

from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock


def stop_second_speaker(action: str, kind: str = "message_updated") -> PipelineEpisodePlan:
    """Every participant talks; Stop lands on the pipeline's second speaker; then ``action``."""
    turn = [TurnPlan(2, [ToolPlan("async", 20)])] if kind == "tool_call_started" else [TurnPlan(15)]
    return PipelineEpisodePlan(
        turns=[turn, turn, turn],
        segments=[Segment(StopPlan(1, kind, 2 if kind == "message_updated" else 1), action)],
        tps=2000.0,
    )


@pytest.mark.parametrize("action", ["retry", "skip", "stop"])
@pytest.mark.parametrize("kind", ["message_updated", "tool_call_started"])
async def test_a_planned_stop_pauses_the_pipeline_and_each_resume_is_counted(
    action: str, kind: str
) -> None:
    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker(action, kind))
    stats = harness.stats
    assert (stats.episodes, stats.interrupts, stats.pauses) == (1, 1, 1)
    assert stats.actions == {action: 1} and stats.runs == 2
    second = harness.pipe.agents[1].name
    assert sum(r.is_interrupted for r in harness.replies[second]) == 1
    await harness.replies_normally()


async def test_a_pipeline_that_passes_an_interrupted_reply_on_is_reported() -> None:
    harness = PipelineHarness(HubPlan(size=3))
    harness.pipe.pause_on_interrupt = False  # AgentScope's behaviour: not what nb_hitl promises
    with pytest.raises(Violation, match="went on after an interrupted reply"):
        await harness.episode(stop_second_speaker("retry"))


async def test_check_all_reports_a_broadcast_tool_call_a_lost_reply_and_a_leaked_instruction() -> (
    None
):
    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker("retry"))
    harness.check_all()
    ben = harness.agents[1]

    ben.memory.add_sync(
        Msg("Ada", [ToolUseBlock(id="x1", name="async", input={"ms": 0})], "assistant")
    )
    ben.memory.add_sync(
        Msg("system", [ToolResultBlock(id="x1", name="async", output="ok")], "system")
    )
    with pytest.raises(Violation, match="Ben observed a tool block of Ada"):
        harness.check_all()

    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker("retry"))
    harness.replies["Mia"].append(Msg("Mia", "a reply nobody observed", "assistant"))
    with pytest.raises(Violation, match="a broadcast lost or duplicated"):
        harness.check_all()

    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker("retry"))
    secret = next(m for m in harness.private[harness.pipe.agents[1].name] if m.name == "Host")
    harness.pipe.agents[2].memory.add_sync(secret)
    with pytest.raises(Violation, match="holds an instruction given to"):
        harness.check_all()


def test_the_soak_script_runs_pipeline_episodes_with_pauses_and_no_violation() -> None:
    run, n, k, v = run_soak("--pipeline", "--episodes", "12", "--seed", "3")
    assert (run.returncode, n, v) == (0, 12, 0), run.stdout + run.stderr
    assert k > 0 and "pauses: 0" not in run.stdout, run.stdout
