"""Doing compression: automatic and on demand, rolling summaries, atomicity, failure, undo."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from compression_helpers import facts, make, record, said, state, tool_round, user, wait_until
from pydantic import BaseModel

from nb_hitl.agent import CompressionResult, SummarySchema
from nb_hitl.events import (
    CompressionFailed,
    CompressionFinished,
    CompressionStarted,
    CompressionUndone,
    MessageUpdated,
)
from nb_hitl.exceptions import AgentBusyError, ModelError
from nb_hitl.memory import COMPRESSED, InMemoryMemory
from nb_hitl.model import ScriptedModel


async def test_reply_compresses_before_reasoning_when_over_the_threshold() -> None:
    agent = make(["The code words are zebra0 to zebra5."], threshold=150, keep_recent=2)
    old = facts(0, 6)
    agent.memory.add_sync(old)
    events = record(agent)
    question = user("Which code words did I give you?")
    reply = await agent(question)
    assert reply.get_text_content() == "The code words are zebra0 to zebra5."

    kinds = [e.kind for e in events]
    assert kinds.index("compression_started") < kinds.index("compression_finished")
    assert kinds.index("compression_finished") < kinds.index("message_updated")
    compressed = agent.memory.select(mark=COMPRESSED)
    assert [m.id for m in compressed] == [m.id for m in old[:-1]]  # keep_recent=2
    assert len(agent.memory) == len(old) + 2  # marked, never deleted

    summary = agent.memory.summary
    assert summary.startswith("<system-info>") and "# Task overview" in summary
    assert all(f"zebra{i}" in summary for i in range(6))
    calls = agent.model.calls  # type: ignore[attr-defined]
    assert calls[0].kwargs["structured_model"] is SummarySchema
    prompt = calls[1].messages  # the reasoning call, after compression
    assert summary in prompt[0]["content"]
    sent = json.dumps(prompt[1:])
    assert "Remember fact 0" not in sent and question.get_text_content() in sent
    finished = next(e for e in events if isinstance(e, CompressionFinished))
    assert finished.compressed_ids == tuple(m.id for m in compressed)
    assert (
        finished.tokens_after
        == agent.compression_plan().total_tokens
        - agent.compression_plan().per_message_tokens[reply.id]
    )
    assert finished.summary == summary


async def test_no_compression_under_the_threshold_or_when_disabled() -> None:
    agent = make(["ok"], threshold=100_000)
    agent.memory.add_sync(facts(0, 6))
    await agent(user("Hi"))
    assert agent.memory.select(mark=COMPRESSED) == []
    disabled = make(["ok"], threshold=10, enable=False)
    disabled.memory.add_sync(facts(0, 6))
    await disabled(user("Hi"))
    assert disabled.memory.select(mark=COMPRESSED) == []
    assert len(disabled.model.calls) == 1  # type: ignore[attr-defined]


async def test_two_successive_compressions_keep_the_first_summarys_facts() -> None:
    agent = make(threshold=10, keep_recent=1)
    agent.memory.add_sync(facts(0, 3))
    first = await agent.compress_memory()
    assert isinstance(first, CompressionResult) and first.trigger == "manual"
    assert all(f"zebra{i}" in first.summary for i in range(2))
    assert "zebra2" not in first.summary  # the last question and keep_recent=1 stay verbatim

    agent.memory.add_sync([*facts(3, 6), *tool_round("c9", "The vault number is 4471.")])
    agent.memory.add_sync(said("Done searching."))
    second = await agent.compress_memory()
    assert second is not None
    assert second.previous_summary == first.summary
    assert all(f"zebra{i}" in second.summary for i in range(6))  # first summary's facts too
    assert "4471" in second.summary
    assert agent.memory.summary == second.summary
    prompt = agent.model.calls[-1].messages  # type: ignore[attr-defined]
    assert "<previous-summary>" in prompt[-1]["content"]
    kept = agent.memory.select(exclude_mark=COMPRESSED)
    assert [m.get_text_content() for m in kept] == [
        "Remember fact 5: the code word is zebra5.",
        "Done searching.",
    ]


async def test_tokens_before_and_after_are_counted() -> None:
    agent = make(threshold=10, keep_recent=1)
    agent.memory.add_sync(facts(0, 4))
    plan = agent.compression_plan()
    result = await agent.compress_memory()
    assert result is not None
    assert result.tokens_before == plan.total_tokens
    assert result.tokens_after == agent.compression_plan().total_tokens
    assert result.compressed_ids == plan.compress_ids
    assert result.structured["task_overview"].startswith("[user User]: Remember fact 0")


async def test_interrupt_during_compression_leaves_memory_as_before() -> None:
    slow = ScriptedModel(tokens_per_second=20)  # ~1 s for a summary: time to interrupt
    agent = make(["never reached"], threshold=50, config={"compression_model": slow})
    agent.memory.add_sync(facts(0, 6))
    events = record(agent)
    question = user("Continue.")
    task = asyncio.create_task(agent(question))
    await wait_until(lambda: any(isinstance(e, CompressionStarted) for e in events))
    await wait_until(lambda: bool(slow.calls))
    ids, marks, summary = state(agent)
    assert await agent.interrupt()
    result = await task
    assert result.is_interrupted
    assert result.metadata["interrupted_at"] == "compressing memory"
    after_ids, after_marks, after_summary = state(agent)
    assert after_ids == [*ids, result.id]
    assert (after_marks, after_summary) == (marks, summary) == ({}, "")
    assert [e.reason for e in events if isinstance(e, CompressionFailed)] == ["interrupted"]
    assert not any(isinstance(e, CompressionFinished) for e in events)
    assert agent.model.calls == []  # type: ignore[attr-defined]


async def test_cancelling_compress_memory_itself_reraises_and_changes_nothing() -> None:
    agent = make(threshold=10, config={"compression_model": ScriptedModel(tokens_per_second=20)})
    agent.memory.add_sync(facts(0, 4))
    agent.memory.summary = "Old summary."
    before = state(agent)
    task = asyncio.create_task(agent.compress_memory())
    await wait_until(lambda: agent.compression_config.compression_model.calls != [])  # type: ignore[union-attr]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert state(agent) == before


class FailingMemory(InMemoryMemory):
    """Applies the compression's new state half-way, then fails: the worst moment."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error: BaseException | None = error

    def restore(self, messages: Any, marks: Any, summary: str) -> None:
        if self.error is not None and summary != self.summary:
            error, self.error = self.error, None
            self._marks = {k: set(v) for k, v in marks.items()}  # marks land, summary not
            raise error
        super().restore(messages, marks, summary)


@pytest.mark.parametrize("error", [asyncio.CancelledError(), RuntimeError("disk on fire")])
async def test_an_error_while_applying_restores_the_snapshot(error: BaseException) -> None:
    agent = make(threshold=10, memory=FailingMemory(error))
    agent.memory.add_sync(facts(0, 4))
    before = state(agent)
    events = record(agent)
    if isinstance(error, asyncio.CancelledError):
        with pytest.raises(asyncio.CancelledError):
            await agent.compress_memory()
    else:
        assert await agent.compress_memory() is None
    await asyncio.sleep(0)
    assert state(agent) == before
    failed = [e for e in events if isinstance(e, CompressionFailed)]
    assert len(failed) == 1
    assert failed[0].reason in ("interrupted", "RuntimeError: disk on fire")


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (ModelError("HTTP 503 from the provider"), "ModelError: HTTP 503 from the provider"),
        ("I would rather not.", "did not answer with JSON"),
        ('{"task_overview": "only this"}', "does not fit SummarySchema"),
    ],
)
async def test_a_failed_summary_skips_compression_and_the_reply_goes_on(
    answer: Any, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedModel(tokens_per_second=1e6, structured_responder=lambda m, s: answer)
    agent = make(["Answer anyway."], threshold=50, config={"compression_model": model})
    agent.memory.add_sync(facts(0, 6))
    before = state(agent)
    events = record(agent)
    with caplog.at_level(logging.WARNING, logger="nb_hitl.compression"):
        reply = await agent(user("Go on."))
    assert reply.get_text_content() == "Answer anyway."
    assert not reply.is_interrupted
    assert state(agent)[1:] == before[1:] == ({}, "")  # no marks, no summary
    failed = [e for e in events if isinstance(e, CompressionFailed)]
    assert len(failed) == 1 and why in failed[0].reason
    assert "Memory compression skipped" in caplog.text and why in caplog.text
    assert any(isinstance(e, MessageUpdated) for e in events)


async def test_undo_restores_the_last_compression() -> None:
    agent = make(threshold=10, keep_recent=1)
    agent.memory.add_sync(facts(0, 3))
    first = await agent.compress_memory()
    agent.memory.add_sync(facts(3, 5))
    second = await agent.compress_memory()
    assert first is not None and second is not None
    events = record(agent)

    assert await agent.undo_compression() is True
    assert agent.memory.summary == first.summary
    assert {m.id for m in agent.memory.select(mark=COMPRESSED)} == set(first.compressed_ids)
    assert await agent.undo_compression() is True
    assert agent.memory.summary == ""
    assert agent.memory.select(mark=COMPRESSED) == []
    assert await agent.undo_compression() is False
    await asyncio.sleep(0)
    undone = [e for e in events if isinstance(e, CompressionUndone)]
    assert [e.restored_ids for e in undone] == [
        tuple(second.compressed_ids),
        tuple(first.compressed_ids),
    ]


async def test_undo_refuses_when_the_summary_changed_since() -> None:
    agent = make(threshold=10, keep_recent=1)
    agent.memory.add_sync(facts(0, 3))
    assert await agent.compress_memory() is not None
    agent.memory.summary = "Edited by hand."
    assert await agent.undo_compression() is False
    assert agent.memory.summary == "Edited by hand."


async def test_compress_memory_only_when_triggered_unless_forced() -> None:
    agent = make(threshold=100_000, keep_recent=2)
    agent.memory.add_sync(facts(0, 3))
    assert await agent.compress_memory() is None
    forced = await agent.compress_memory(force=True)
    assert forced is not None and len(forced.compressed_ids) == 4
    assert await agent.compress_memory(force=True) is None  # nothing left to compress


async def test_compress_memory_refuses_while_a_reply_runs() -> None:
    agent = make(["slow answer " * 50], threshold=100_000, tokens_per_second=50)
    agent.memory.add_sync(facts(0, 3))
    task = asyncio.create_task(agent(user("Talk.")))
    await wait_until(lambda: agent.is_replying and agent.model.calls != [])  # type: ignore[attr-defined]
    with pytest.raises(AgentBusyError):
        await agent.compress_memory(force=True)
    await agent.interrupt()
    await task


async def test_a_message_pinned_while_summarising_stays_verbatim() -> None:
    slow = ScriptedModel(tokens_per_second=40)
    agent = make(threshold=10, keep_recent=1, config={"compression_model": slow})
    msgs = facts(0, 3)
    agent.memory.add_sync(msgs)
    task = asyncio.create_task(agent.compress_memory())
    await wait_until(lambda: slow.calls != [])
    agent.pin(msgs[2].id)
    result = await task
    assert result is not None
    assert msgs[2].id not in result.compressed_ids
    assert COMPRESSED not in agent.memory.marks_of(msgs[2].id)


async def test_custom_schema_template_and_a_model_without_structured_output() -> None:
    class Notes(BaseModel):
        goal: str
        facts: list[str]

    class PlainModel(ScriptedModel):
        supports_structured_model = False

    def answer(messages: list[dict[str, Any]], tools: Any) -> str:
        return (
            'Here you go:\n```json\n{"goal": "remember words", "facts": ["zebra0", "zebra1"]}\n```'
        )

    model = PlainModel(responder=answer, tokens_per_second=1e6)
    config = {
        "compression_model": model,
        "summary_schema": Notes,
        "summary_template": "Goal: {goal}\nFacts:\n{facts}",
    }
    agent = make(threshold=10, keep_recent=1, config=config)
    agent.memory.add_sync(facts(0, 2))
    result = await agent.compress_memory()
    assert result is not None
    assert result.summary == "Goal: remember words\nFacts:\n- zebra0\n- zebra1"
    assert "structured_model" not in model.calls[0].kwargs
    assert '"facts"' in model.calls[0].messages[0]["content"]  # the schema is in the prompt


async def test_loading_state_drops_the_undo_history() -> None:
    agent = make(threshold=10, keep_recent=1)
    agent.memory.add_sync(facts(0, 3))
    assert await agent.compress_memory() is not None
    other = make(threshold=10, keep_recent=1)
    other.memory.add_sync(facts(0, 2))
    agent.load_state_dict(other.state_dict())
    assert await agent.undo_compression() is False
    assert agent.memory.messages == other.memory.messages
