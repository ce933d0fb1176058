"""The pipeline property test's checker catches what it must, and its episodes really pause.

``test_pipeline_property.py`` passes when no invariant breaks; that means something only if the
invariants can break (a wrong broadcast, a pipeline that does not pause, a lost instruction are
reported) and the episodes deliver Stops that pause the pipeline and get resumed.
"""

from __future__ import annotations

import pytest
from interrupt_harness import ToolPlan, TurnPlan, Violation
from machine_support import run_soak
from pipeline_harness import PipelineHarness
from pipeline_plans import HubPlan, PipelineEpisodePlan, Segment, SteerPlan, StopPlan

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
    ada = harness.agents[0]
    ada.memory.delete_sync([next(m.id for m in ada.memory.messages if m.name == "Mia")])
    harness.seen_ids["Ada"] = []
    with pytest.raises(Violation, match="a broadcast lost or duplicated"):
        harness.check_all()

    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker("retry"))
    secret = next(m for m in harness.private[harness.pipe.agents[1].name] if m.name == "Host")
    harness.pipe.agents[2].memory.add_sync(secret)
    with pytest.raises(Violation, match="holds an instruction given to"):
        harness.check_all()


async def test_check_all_reports_an_observed_text_that_is_not_what_the_reply_said() -> None:
    harness = PipelineHarness(HubPlan(size=3))
    await harness.episode(stop_second_speaker("retry"))
    second = harness.pipe.agents[1].name
    observer = next(a for a in harness.agents if a.name != second)
    held = next(m for m in observer.memory.messages if m.name == second and m.is_interrupted)
    stale = held.model_copy(update={"content": "[Interrupted] an earlier reply's text"})
    observer.memory.replace(stale)
    with pytest.raises(Violation, match=f"observed {second}'s reply 1 as"):
        harness.check_all()


def user_in_fanout_plan() -> PipelineEpisodePlan:
    turn = [TurnPlan(15)]
    return PipelineEpisodePlan(
        turns=[turn, turn, turn],
        segments=[
            Segment(StopPlan(0, "reply_started", 1), "retry", False, announce=True, reload=True),
            Segment(StopPlan(0, "reply_started", 1), "retry", True),
        ],
        tps=2000.0,
        user_ms=50,
    )


async def test_a_fanout_with_a_person_in_the_loop_pauses_twice_and_reloads_in_the_pause() -> None:
    harness = PipelineHarness(HubPlan(size=2, kind="fanout", user=True, order_seed=0))
    harness.pipe.agents = sorted(harness.pipe.agents, key=lambda a: a.name != "Uma")
    await harness.episode(user_in_fanout_plan())
    stats = harness.stats
    assert (stats.interrupts, stats.pauses, stats.announcements) == (2, 2, 1)
    assert stats.reloads == 2 and stats.actions == {"retry": 2} and stats.runs == 3
    assert [r.is_interrupted for r in harness.replies["Uma"]] == [True, True, False]
    await harness.replies_normally()
    harness.close()


async def test_a_steered_speaker_stopped_after_the_steer_and_a_parked_save_that_loads() -> None:
    harness = PipelineHarness(HubPlan(size=2))
    first = harness.pipe.agents[0].name
    turns = [TurnPlan(3, [ToolPlan("approval", 5), ToolPlan("ghost", 0)]), TurnPlan(20)]
    plan = PipelineEpisodePlan(
        turns=[turns, turns],
        segments=[Segment(None, "retry")],
        tps=2000.0,
        steers=[SteerPlan(0, "tool_call_started", 1, then_stop=2)],
        save_parked=True,
    )
    await harness.episode(plan)
    stats = harness.stats
    assert (stats.steers, stats.interrupts, stats.parked_loads) == (1, 1, 1)
    said = harness.ledger.replies[first][0]
    assert said.interrupted and len(said.streamed) == 2  # before the steer, and after it
    await harness.replies_normally()
    harness.close()


def test_the_soak_script_runs_pipeline_episodes_with_pauses_and_no_violation() -> None:
    run, n, k, s, v = run_soak("--pipeline", "--episodes", "12", "--seed", "3")
    assert (run.returncode, n, v) == (0, 12, 0), run.stdout + run.stderr
    assert k > 0 and s > 0 and "pauses: 0" not in run.stdout, run.stdout
