"""The agent keeps its last plans: a threshold move recounts nothing, any change plans afresh.

Every test compares the plan the agent gives after a change with the plan counted from
scratch (``forget_plans()`` first): a kept plan must never be told apart from a fresh one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compression_helpers import COUNTER, facts, make, said, tool_round, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nb_hitl.agent import CompressionConfig, ReActAgent, plan_compression
from nb_hitl.demo import demo_toolkit
from nb_hitl.exceptions import ConfigError
from nb_hitl.formatter import OpenAIMultiAgentFormatter
from nb_hitl.memory import COMPRESSED, InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.token import TokenCounter


def fresh(agent: ReActAgent, threshold: int | None = None, keep: int | None = None) -> Any:
    """The plan counted from scratch, with nothing kept."""
    agent.compressor.forget_plans()
    return agent.compression_plan(trigger_threshold=threshold, keep_recent=keep)


def assert_current(agent: ReActAgent, threshold: int | None = None, keep: int | None = None):
    """The plan the agent gives now equals a fresh one (and the kept one is current again)."""
    kept = agent.compression_plan(trigger_threshold=threshold, keep_recent=keep)
    assert kept == fresh(agent, threshold, keep)
    return kept


def counted(counter: TokenCounter) -> int:
    """Messages the counter was asked about so far (each plan asks about every message)."""
    info = counter.cache_info()
    return info.hits + info.misses


@pytest.mark.parametrize("exact", [True, False])
def test_with_threshold_equals_planning_with_that_threshold(exact: bool, tmp_path: Path) -> None:
    counter = COUNTER if exact else TokenCounter(vocab_dir=str(tmp_path))  # no vocabulary
    msgs = [*facts(0, 6), *tool_round("c1", "Two notes."), user("And now?")]
    base = plan_compression(msgs, counter=counter, trigger_threshold=None, keep_recent=2)
    assert base.exact is exact
    for threshold in (None, 1, 10, base.total_tokens - 1, base.total_tokens, 10**9):
        planned = plan_compression(
            msgs, counter=counter, trigger_threshold=threshold, keep_recent=2
        )
        moved = base.with_threshold(threshold)
        assert moved == planned
        assert moved.with_threshold(None) == base
    over = base.with_threshold(10)
    assert over.over_threshold and over.would_trigger
    assert f"Over the threshold: {base.total_tokens} > 10." in over.reasons
    assert base.with_threshold(base.trigger_threshold) is base
    with pytest.raises(ConfigError, match="trigger_threshold must be a positive number"):
        base.with_threshold(0)


def test_nothing_to_compress_never_triggers_whatever_the_threshold() -> None:
    msgs = facts(0, 1)
    base = plan_compression(msgs, counter=COUNTER, trigger_threshold=None, keep_recent=10)
    moved = base.with_threshold(1)
    assert moved.over_threshold and not moved.would_trigger
    assert moved == plan_compression(msgs, counter=COUNTER, trigger_threshold=1, keep_recent=10)


def test_a_threshold_move_recounts_nothing() -> None:
    counter = TokenCounter()
    agent = make(threshold=500, config={"agent_token_counter": counter})
    agent.memory.add_sync(facts(0, 20))
    first = agent.compression_plan()
    asked = counted(counter)
    for threshold in (100, 200, 5000, 300):
        plan = agent.compression_plan(trigger_threshold=threshold)
        assert plan.trigger_threshold == threshold
        assert plan.per_message_tokens is first.per_message_tokens  # the kept counts
    assert counted(counter) == asked, "no message was counted again"
    agent.compression_plan(keep_recent=7)  # a new keep_recent: counted once...
    asked = counted(counter)
    agent.compression_plan(keep_recent=7, trigger_threshold=90)  # ...then kept
    agent.compression_plan()
    assert counted(counter) == asked
    assert agent.compression_plan() == fresh(agent)


def test_only_the_last_few_keep_recent_values_are_kept() -> None:
    from nb_hitl.agent._compressor import PLANS_KEPT

    counter = TokenCounter()
    agent = make(threshold=500, config={"agent_token_counter": counter})
    agent.memory.add_sync(facts(0, 10))
    for keep in range(PLANS_KEPT + 2):
        agent.compression_plan(keep_recent=keep)
    asked = counted(counter)
    agent.compression_plan(keep_recent=PLANS_KEPT + 1)  # kept
    assert counted(counter) == asked
    agent.compression_plan(keep_recent=0)  # the oldest: forgotten, counted again
    assert counted(counter) > asked
    assert_current(agent, keep=0)


def test_memory_changes_give_a_fresh_plan() -> None:
    agent = make(threshold=120, keep_recent=2)
    msgs = facts(0, 6)
    agent.memory.add_sync(msgs)
    before = assert_current(agent)
    agent.memory.add_sync(said("One more answer."))
    after = assert_current(agent)
    assert after.total_tokens > before.total_tokens
    agent.memory.update_marks_sync("pinned", msg_ids=[msgs[0].id])  # a pin
    assert msgs[0].id in assert_current(agent).pinned_ids
    agent.memory.update_marks_sync(COMPRESSED, msg_ids=[m.id for m in msgs[1:4]])
    assert msgs[1].id not in assert_current(agent).per_message_tokens
    agent.memory.summary = "Earlier: three facts were noted."
    assert assert_current(agent).breakdown["summary"] > 0
    agent.memory.replace(msgs[5].model_copy(update={"content": "A much longer answer " * 20}))
    assert (
        assert_current(agent).per_message_tokens[msgs[5].id] > before.per_message_tokens[msgs[5].id]
    )
    agent.memory.delete_sync([msgs[6].id])
    assert msgs[6].id not in assert_current(agent).per_message_tokens
    snapshot = agent.memory.snapshot()
    agent.memory.restore([], {}, "")
    assert assert_current(agent).breakdown["history"] == 0
    agent.memory.restore(*snapshot)
    assert_current(agent)


def test_another_memory_object_gives_a_fresh_plan() -> None:
    agent = make(threshold=120)
    agent.memory.add_sync(facts(0, 6))
    before = agent.compression_plan()
    other = InMemoryMemory()
    other.add_sync(facts(0, 2))
    assert other.version <= agent.memory.version
    agent.memory = other
    after = assert_current(agent)
    assert after.total_tokens < before.total_tokens


def test_summary_prompt_name_and_tools_give_a_fresh_plan() -> None:
    agent = make(threshold=120, keep_recent=2)
    agent.memory.add_sync([*facts(0, 3), Msg("Robin", "Over to you, Friday.", "assistant")])
    first = assert_current(agent)
    agent.sys_prompt = "You are a test agent. " * 20
    assert assert_current(agent).breakdown["system"] > first.breakdown["system"]
    # Without a user message, the question is the last message not written by the agent.
    agent.memory.update_marks_sync(COMPRESSED, msg_ids=[m.id for m in agent.memory.messages[:6]])
    assert assert_current(agent).protected_ids == [agent.memory.messages[-1].id]
    agent.name = "Robin"
    assert assert_current(agent).protected_ids == []
    for name, tool in demo_toolkit().tools.items():
        agent.toolkit.register_tool_function(tool.original_func)
        assert assert_current(agent).breakdown["tools"] > 0, name
        break
    agent.toolkit.remove_tool_function(name)
    assert assert_current(agent).breakdown["tools"] == 0


def test_config_counter_and_formatter_changes_give_a_fresh_plan(tmp_path: Path) -> None:
    agent = make(threshold=120)
    agent.memory.add_sync(facts(0, 6))
    assert assert_current(agent).enabled is True
    cfg = agent.compression_config
    assert cfg is not None
    cfg.enable = False
    assert assert_current(agent).enabled is False
    cfg.agent_token_counter = TokenCounter(vocab_dir=str(tmp_path))  # approximate
    assert assert_current(agent).exact is False
    agent.compression_config = CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=900, keep_recent=4
    )
    plan = assert_current(agent)
    assert (plan.exact, plan.enabled, plan.keep_recent, plan.trigger_threshold) == (
        True,
        True,
        4,
        900,
    )
    before = plan.total_tokens
    agent.formatter = OpenAIMultiAgentFormatter()
    assert assert_current(agent).total_tokens != before
    agent.compression_config = None
    assert assert_current(agent).enabled is False


ACTIONS = st.one_of(
    st.tuples(st.just("user"), st.integers(0, 40)),
    st.tuples(st.just("said"), st.integers(0, 40)),
    st.tuples(st.just("tools"), st.integers(1, 3)),
    st.tuples(st.just("pin"), st.integers(0, 60)),
    st.tuples(st.just("unpin"), st.integers(0, 60)),
    st.tuples(st.just("compress"), st.integers(0, 60)),
    st.tuples(st.just("summary"), st.integers(0, 40)),
    st.tuples(st.just("prompt"), st.integers(0, 40)),
    st.tuples(st.just("delete"), st.integers(0, 60)),
    st.tuples(st.just("enable"), st.booleans()),
)
"""What may happen between two plans: messages, pins, compressions, a summary, a new
system prompt, a deletion, compression switched on or off."""


def apply(agent: ReActAgent, action: tuple[str, Any], step: int) -> None:
    kind, arg = action
    memory = agent.memory
    ids = [m.id for m in memory.messages]
    pick = ids[arg % len(ids)] if ids else None
    if kind == "user":
        memory.add_sync(user(f"question {step} " + "word " * arg))
    elif kind == "said":
        memory.add_sync(said(f"answer {step} " + "word " * arg))
    elif kind == "tools":
        memory.add_sync(tool_round(f"call{step}_", *(f"result {i}" for i in range(arg))))
    elif kind in ("pin", "unpin") and pick is not None:
        if kind == "pin":
            agent.pin(pick)
        else:
            agent.unpin(pick)
    elif kind == "compress" and pick is not None:
        memory.update_marks_sync(COMPRESSED, msg_ids=[pick])
    elif kind == "summary":
        memory.summary = "summary " * arg
    elif kind == "prompt":
        agent.sys_prompt = "You are a test agent. " + "rule " * arg
    elif kind == "delete" and pick is not None:
        memory.delete_sync([pick])
    elif kind == "enable":
        assert agent.compression_config is not None
        agent.compression_config.enable = arg


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(
        st.tuples(ACTIONS, st.integers(1, 3000) | st.none(), st.integers(0, 6) | st.none()),
        min_size=1,
        max_size=12,
    )
)
def test_a_kept_plan_always_equals_a_fresh_one(steps: list[Any]) -> None:
    agent = make(threshold=400, keep_recent=2)
    agent.memory.add_sync(facts(0, 3))
    for step, (action, threshold, keep) in enumerate(steps):
        agent.compression_plan(trigger_threshold=threshold, keep_recent=keep)  # kept
        agent.compression_plan(keep_recent=0)  # another kept plan, as the inspector makes
        apply(agent, action, step)
        for t, k in ((threshold, keep), (None, None), (threshold, 0), (1, keep)):
            kept = agent.compression_plan(trigger_threshold=t, keep_recent=k)
            agent.compressor.forget_plans()
            assert kept == agent.compression_plan(trigger_threshold=t, keep_recent=k)
