"""replay_compression: a recorded conversation replayed under a setting equals a real run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compression_helpers import COUNTER, record, user

from nb_hitl.agent import (
    CompressionConfig,
    FixedSummary,
    RatioSummary,
    ReActAgent,
    ScriptedSummary,
    replay_compression,
    replay_compression_async,
)
from nb_hitl.events import CompressionFinished
from nb_hitl.exceptions import ConfigError, TranscriptError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg, ToolResultBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit

LOG = "\n".join(f"12:{i:02d} WARN captcha score=0.{i % 9} path=/signup" for i in range(40))


def lookup(topic: str) -> str:
    """Look up notes on a topic.

    Args:
        topic: what to look up.
    """
    return f"Notes on {topic}:\n{LOG if topic == 'logs' else 'short answer ' + topic}"


def scripted_run_turns() -> list[Any]:
    """Four questions; each answer calls a tool once or twice, then answers in text."""
    turns: list[Any] = []
    for q in range(4):
        topics = ["logs", f"topic{q}"] if q % 2 == 0 else [f"topic{q}"]
        for i, topic in enumerate(topics):
            turns.append(
                ScriptedTurn(
                    text=f"Step {i} of question {q}: looking up {topic}.",
                    tool_calls=[ScriptedToolCall("lookup", {"topic": topic}, id=f"c{q}_{i}")],
                )
            )
        turns.append(f"Answer {q}: the captcha explains it, with details " + "x " * 40)
    return turns


QUESTIONS = [f"Question {q}: why did sign-ups drop, part {q}?" for q in range(4)]


async def real_run(threshold: int, keep_recent: int) -> tuple[ReActAgent, ScriptedModel, list]:
    toolkit = Toolkit()
    toolkit.register_tool_function(lookup)
    config = CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=threshold, keep_recent=keep_recent
    )
    model = ScriptedModel(scripted_run_turns(), tokens_per_second=1e6)
    agent = ReActAgent(
        "Friday", "You are a test analyst.", model, toolkit=toolkit, compression_config=config
    )
    events = record(agent)
    for question in QUESTIONS:
        await agent(user(question))
    return agent, model, [e for e in events if isinstance(e, CompressionFinished)]


@pytest.mark.parametrize(("threshold", "keep_recent"), [(700, 2), (900, 0), (1200, 5)])
async def test_replay_equals_a_real_agent_run_to_the_token(
    threshold: int, keep_recent: int
) -> None:
    agent, model, finished = await real_run(threshold, keep_recent)
    assert finished, "the scripted run must compress at least once"
    sent = [
        COUNTER.count_sync(c.messages, c.tools)
        for c in model.calls
        if "structured_model" not in c.kwargs
    ]
    assert agent.compression_config is not None
    replay = replay_compression(agent, agent.compression_config, summary="scripted")

    assert replay.prompt_tokens == sent
    compressed_rows = [r for r in replay.rows if r.compressed]
    assert [r.folded_ids for r in compressed_rows] == [e.compressed_ids for e in finished]
    assert [r.tokens_before for r in compressed_rows] == [e.tokens_before for e in finished]
    assert [r.prompt_tokens for r in compressed_rows] == [e.tokens_after for e in finished]
    assert replay.summaries == [e.summary for e in finished]
    assert replay.compressions == len(finished)
    assert replay.billed_input_tokens == sum(sent)
    assert replay.peak_prompt_tokens == max(sent)


async def test_replay_keeps_pins_like_the_agent_does() -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(lookup)
    config = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=700, keep_recent=1)
    model = ScriptedModel(scripted_run_turns(), tokens_per_second=1e6)
    agent = ReActAgent("Friday", "Test.", model, toolkit=toolkit, compression_config=config)
    events = record(agent)
    await agent.observe(user(QUESTIONS[0]))
    task_statement = agent.memory.messages[0]
    agent.pin(task_statement.id)
    await agent(None)
    for question in QUESTIONS[1:]:
        await agent(user(question))
    finished = [e.compressed_ids for e in events if isinstance(e, CompressionFinished)]
    assert finished, "the agent must compress, or the pin checks below hold vacuously"
    replay = replay_compression(
        agent.memory,
        config,
        sys_prompt="Test.",
        tools=toolkit.get_json_schemas(),
        summary="scripted",
    )
    assert [r.folded_ids for r in replay.rows if r.compressed] == finished
    assert all(task_statement.id not in ids for ids in finished)
    unpinned = replay_compression(
        agent.memory.messages, config, sys_prompt="Test.", tools=toolkit.get_json_schemas()
    )
    assert any(task_statement.id in r.folded_ids for r in unpinned.rows)


async def test_baseline_counts_every_prompt_without_compressing() -> None:
    agent, model, _ = await real_run(100_000, 2)
    sent = [COUNTER.count_sync(c.messages, c.tools) for c in model.calls]
    baseline = replay_compression(agent, None)
    assert baseline.prompt_tokens == sent
    assert baseline.compressions == 0 and baseline.trigger_threshold is None
    assert [r.message for r in baseline.rows] == [
        n for n, m in enumerate(agent.memory.messages, start=1) if m.role == "assistant"
    ]


async def test_async_replay_with_a_real_model_summariser_calls_it_and_reports_progress() -> None:
    agent, _, finished = await real_run(700, 2)
    summariser = ScriptedModel(tokens_per_second=1e6)
    seen: list[tuple[int, str]] = []
    replay = await replay_compression_async(
        agent,
        agent.compression_config,
        summary=summariser,
        progress=lambda p: seen.append((p.compressions, p.phase)),
    )
    assert len(summariser.calls) == replay.compressions == len(finished) > 0
    assert replay.summaries == [e.summary for e in finished]
    assert seen[-1] == (replay.compressions, "done")
    assert [s for s in seen if s[1] == "summarising"] == [
        (i, "summarising") for i in range(replay.compressions)
    ]
    with pytest.raises(ConfigError, match="replay_compression_async"):
        replay_compression(agent, agent.compression_config, summary=summariser)


def test_summary_policies_set_the_summary_size(long_task: list[Msg]) -> None:
    config = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=8000, keep_recent=6)
    fixed = replay_compression(long_task, config, summary=FixedSummary(300))
    assert fixed.compressions >= 1
    first = next(r for r in fixed.rows if r.compressed)
    assert first.summary_tokens == 300 and first.summariser_output_tokens == 300
    assert first.prompt_tokens == first.tokens_before - first.folded_tokens + 300
    ratio = replay_compression(long_task, config, summary=0.5)
    first = next(r for r in ratio.rows if r.compressed)
    assert first.summary_tokens == first.folded_tokens // 2
    scripted = replay_compression(long_task, config, summary=ScriptedSummary())
    assert len(scripted.summaries) == scripted.compressions
    assert all("# Task overview" in s for s in scripted.summaries)
    assert replay_compression(long_task, config).policy == repr(RatioSummary())


def test_every_prompt_is_at_most_the_baseline_and_compression_keeps_it_near_the_threshold(
    long_task: list[Msg],
) -> None:
    baseline = replay_compression(long_task, None, counter=COUNTER)
    config = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=6000, keep_recent=4)
    replay = replay_compression(long_task, config)
    assert baseline.peak_prompt_tokens > 14_000  # the task outgrows any small budget
    for row, base in zip(replay.rows, baseline.rows, strict=True):
        assert row.prompt_tokens <= base.prompt_tokens
        if row.compressed:
            assert row.tokens_before > 6000
            assert row.kept_tokens + row.summary_tokens < row.tokens_before
    assert replay.peak_prompt_tokens < baseline.peak_prompt_tokens
    assert replay.savings(baseline) > 0


def test_inputs_memory_session_file_and_dicts_replay_the_same(
    long_task: list[Msg], tmp_path: Path
) -> None:
    config = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=8000, keep_recent=6)
    as_list = replay_compression(long_task, config, sys_prompt="S.")
    memory = InMemoryMemory()
    memory.add_sync(long_task)
    assert replay_compression(memory, config, sys_prompt="S.").rows == as_list.rows
    dicts = [m.to_dict() for m in long_task]
    assert replay_compression(dicts, config, sys_prompt="S.").rows == as_list.rows
    agent = ReActAgent("Analyst", "S.", ScriptedModel(), memory=memory)
    path = tmp_path / "s.json"
    agent.save_session(path)
    assert replay_compression(str(path), config).rows == as_list.rows


def test_bad_inputs_give_clear_errors(long_task: list[Msg]) -> None:
    before = [m.to_dict() for m in long_task]
    config = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=8000, keep_recent=6)
    with pytest.raises(TranscriptError, match="empty: nothing to replay"):
        replay_compression([], config)
    with pytest.raises(ConfigError, match="trigger_threshold must be a positive"):
        replay_compression(long_task, CompressionConfig(trigger_threshold=0))
    too_many = CompressionConfig(
        agent_token_counter=COUNTER, trigger_threshold=8000, keep_recent=500
    )
    with pytest.raises(
        ConfigError, match=r"keep_recent=500 is more than the 109 messages.*at most 108"
    ):
        replay_compression(long_task, too_many)
    orphan = [
        user("hi"),
        Msg("system", [ToolResultBlock(id="nope", name="lookup", output="x")], "system"),
        Msg("Friday", "hello", "assistant"),
    ]
    with pytest.raises(TranscriptError, match=r"Message 2 .* tool call 'nope' .* orphan"):
        replay_compression(orphan, config)
    with pytest.raises(TranscriptError, match="no assistant answer"):
        replay_compression([user("hi")], config)
    with pytest.raises(TranscriptError, match="same id"):
        replay_compression([long_task[0], long_task[0], long_task[1]], config)
    with pytest.raises(ConfigError, match="not a summary policy"):
        replay_compression(long_task, config, summary="huge")
    with pytest.raises(ConfigError, match="0 < ratio <= 1"):
        replay_compression(long_task, config, summary=1.5)
    with pytest.raises(ConfigError, match="must be a CompressionConfig"):
        replay_compression(long_task, {"trigger_threshold": 10})  # type: ignore[arg-type]
    with pytest.raises(TranscriptError, match="not a Msg"):
        replay_compression([long_task[0], 42], config)
    assert [m.to_dict() for m in long_task] == before  # the transcript itself was not changed
