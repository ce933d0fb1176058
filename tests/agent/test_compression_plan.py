"""The compression plan: what is counted, where the boundary falls and why; pure and cheap."""

from __future__ import annotations

from pathlib import Path

import pytest
from compression_helpers import COUNTER, facts, make, said, tool_round, user

from nb_hitl.agent import CompressionPlan, ReActAgent, plan_compression
from nb_hitl.demo import demo_toolkit
from nb_hitl.exceptions import ConfigError
from nb_hitl.memory import COMPRESSED
from nb_hitl.model import ScriptedModel
from nb_hitl.token import TokenCounter


async def test_plan_counts_exactly_what_the_next_prompt_sends() -> None:
    agent = make(threshold=300, toolkit=demo_toolkit())
    agent.memory.add_sync([*facts(0, 4), *tool_round("c1", "Two notes found.")])
    agent.memory.summary = "Earlier: the user likes short answers."
    plan = agent.compression_plan()
    tools = agent.toolkit.get_json_schemas()
    assert plan.total_tokens == await COUNTER.count(await agent.format_prompt(), tools)
    assert plan.total_tokens == sum(plan.breakdown.values()) == plan.tokens_before
    assert set(plan.breakdown) == {"system", "summary", "history", "tools"}
    assert plan.breakdown["tools"] == COUNTER.count_tools(tools) > 0
    assert plan.breakdown["summary"] > 0
    assert plan.breakdown["history"] == sum(plan.per_message_tokens.values())
    assert list(plan.per_message_tokens) == [m.id for m in agent.memory.messages]
    assert plan.exact is True
    assert plan.reasons[0].startswith(f"{plan.total_tokens} tokens: system prompt")


def test_plan_is_pure() -> None:
    agent = make(threshold=50)
    agent.memory.add_sync(facts(0, 6))
    version = agent.memory.version
    first = agent.compression_plan()
    assert first.would_trigger
    assert agent.compression_plan() == first
    assert agent.memory.version == version
    assert agent.memory.select(mark=COMPRESSED) == []
    assert agent.model.calls == []  # type: ignore[attr-defined]


def test_keep_recent_sets_the_boundary() -> None:
    agent = make(threshold=50, keep_recent=3)
    msgs = facts(0, 5)  # u0 a0 ... u4 a4; u4 (the question) is in the kept tail
    agent.memory.add_sync(msgs)
    plan = agent.compression_plan()
    assert plan.boundary_index == 7
    assert plan.compress_ids == [m.id for m in msgs[:7]]
    assert plan.keep_ids == [m.id for m in msgs[7:]]
    assert plan.over_threshold and plan.would_trigger
    assert plan.tokens_after_estimate < plan.tokens_before
    assert "The last 3 message(s) are kept (keep_recent=3)." in plan.reasons


def test_tool_use_and_its_results_are_never_split() -> None:
    agent = make(threshold=50, keep_recent=4)
    first = user("Find my notes.")
    rounds = tool_round("call_a", "note one", "note two", text="Searching.")  # 3 messages
    tail = [said("Found two notes."), user("Thanks, and the third?"), said("No third one.")]
    agent.memory.add_sync([first, *rounds, *tail])
    # keep_recent=4 puts the boundary on the second result (index 3): inside the tool span.
    plan = agent.compression_plan()
    assert plan.boundary_index == 1
    assert plan.compress_ids == [first.id]
    assert any(
        "moved back from message 4 to 2" in r and "call_a" in r and "never split" in r
        for r in plan.reasons
    )
    # keep_recent=2: the boundary falls after the whole span; everything before goes.
    plan = agent.compression_plan(keep_recent=2)
    assert plan.boundary_index == 5
    assert plan.compress_ids == [first.id, *(m.id for m in rounds), tail[0].id]


def test_short_memory_compresses_nothing() -> None:
    agent = make(threshold=10, keep_recent=3)
    agent.memory.add_sync([user("A long question " * 20), said("A long answer " * 20)])
    plan = agent.compression_plan()
    assert plan.over_threshold is True
    assert plan.would_trigger is False
    assert plan.compress_ids == [] and plan.boundary_index == 0
    assert plan.tokens_after_estimate == plan.total_tokens
    assert any("2 message(s), not more than keep_recent=3" in r for r in plan.reasons)
    assert "Nothing can be compressed: every message is kept." in plan.reasons
    empty = make(threshold=10).compression_plan()
    assert empty.compress_ids == [] and empty.breakdown["history"] == 0


def test_the_question_being_answered_is_never_compressed() -> None:
    agent = make(threshold=50, keep_recent=2)
    old = facts(0, 2)
    question = user("Now research the whole topic, step by step.")
    work = [m for i in range(4) for m in tool_round(f"c{i}", f"result {i} " * 30)]
    agent.memory.add_sync([*old, question, *work])
    plan = agent.compression_plan(keep_recent=0)
    assert question.id not in plan.compress_ids
    assert plan.protected_ids == [question.id]
    assert all(m.id in plan.compress_ids for m in old)  # older questions may go
    assert all(m.id in plan.compress_ids for m in work)
    assert any(
        question.id in r and "the question the agent is answering" in r for r in plan.reasons
    )


def test_the_question_is_the_last_user_message_even_when_others_follow() -> None:
    agent = make(threshold=50, keep_recent=0)
    question = user("What is the code word?")
    agent.memory.add_sync([*facts(0, 2), question, said("Let me check."), said("It is zebra1.")])
    assert agent.current_question_id() == question.id
    assert agent.compression_plan().keep_ids == [question.id]


def test_pinned_messages_are_kept_with_their_tool_partners() -> None:
    agent = make(threshold=50, keep_recent=1)
    rounds = tool_round("pin_me", "important result")
    msgs = [user("Start."), *rounds, *facts(0, 3)]
    agent.memory.add_sync(msgs)
    agent.pin(rounds[1].id)  # the result: its tool_use must stay too
    plan = agent.compression_plan()
    assert plan.pinned_ids == [rounds[1].id]
    assert rounds[0].id in plan.keep_ids and rounds[1].id in plan.keep_ids
    assert any(
        "is pinned: kept with its tool-call partners (2 messages)" in r for r in plan.reasons
    )
    agent.unpin(rounds[1].id)
    plan = agent.compression_plan()
    assert plan.pinned_ids == []
    assert rounds[1].id in plan.compress_ids
    with pytest.raises(KeyError, match="nothing to pin"):
        agent.pin("no-such-id")


def test_a_tool_call_without_its_result_is_kept() -> None:
    agent = make(threshold=50, keep_recent=1)
    open_call = tool_round("open_1", "ignored")[0]  # the tool_use message alone
    agent.memory.add_sync([*facts(0, 2), open_call, *facts(2, 4)])
    plan = agent.compression_plan()
    assert open_call.id in plan.keep_ids
    assert any("open_1, which has no result yet" in r for r in plan.reasons)


def test_what_if_overrides_leave_the_config_alone() -> None:
    agent = make(threshold=100_000, keep_recent=3)
    agent.memory.add_sync(facts(0, 10))
    assert agent.compression_plan().would_trigger is False
    plan = agent.compression_plan(trigger_threshold=50, keep_recent=6)
    assert (plan.trigger_threshold, plan.keep_recent, plan.would_trigger) == (50, 6, True)
    assert len(plan.keep_ids) == 6
    assert agent.compression_config is not None
    assert agent.compression_config.trigger_threshold == 100_000
    with pytest.raises(ConfigError, match="trigger_threshold must be a positive number"):
        agent.compression_plan(trigger_threshold=0)
    with pytest.raises(ConfigError, match="keep_recent must be 0 or more"):
        agent.compression_plan(keep_recent=-2)


def test_without_a_config_the_plan_still_counts() -> None:
    agent = ReActAgent("Friday", "Hi.", ScriptedModel(["ok"]))
    agent.memory.add_sync(facts(0, 3))
    plan = agent.compression_plan()
    assert plan.trigger_threshold is None and plan.enabled is False
    assert plan.would_trigger is False and plan.total_tokens > 0
    assert "No trigger threshold is set, so compression never triggers." in plan.reasons
    assert agent.compression_plan(trigger_threshold=10).would_trigger is True


def test_compressed_messages_are_not_counted_again() -> None:
    agent = make(threshold=50, keep_recent=2)
    msgs = facts(0, 4)
    agent.memory.add_sync(msgs)
    before = agent.compression_plan()
    agent.memory.update_marks_sync(COMPRESSED, msg_ids=[m.id for m in msgs[:4]])
    after = agent.compression_plan()
    removed = sum(before.per_message_tokens[m.id] for m in msgs[:4])
    assert after.breakdown["history"] == before.breakdown["history"] - removed
    assert msgs[0].id not in after.per_message_tokens


def test_plan_compression_is_a_plain_function() -> None:
    msgs = facts(0, 4)
    plan = plan_compression(
        msgs, counter=COUNTER, trigger_threshold=20, keep_recent=2, system_prompt="Be brief."
    )
    assert isinstance(plan, CompressionPlan)
    assert plan.compress_ids == [m.id for m in msgs[:6]]
    assert plan.protected_ids == []  # nothing protected unless said
    assert plan.breakdown["system"] == COUNTER.count_system("Be brief.") + 3


def test_an_approximate_counter_is_flagged_in_the_plan(tmp_path: Path) -> None:
    counter = TokenCounter(vocab_dir=str(tmp_path))  # an empty folder: no vocabulary
    agent = make(threshold=50, config={"agent_token_counter": counter})
    agent.memory.add_sync(facts(0, 3))
    plan = agent.compression_plan()
    assert plan.exact is False and plan.total_tokens > 0
    assert any(r.startswith("Counts are APPROXIMATE (no exact o200k_base") for r in plan.reasons)
