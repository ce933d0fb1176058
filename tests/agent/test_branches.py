"""Rewind and fork: edit an earlier question or regenerate an answer on a new branch."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.events import BranchCheckedOut, BranchCreated, Event
from nb_hitl.exceptions import AgentBusyError, BranchError
from nb_hitl.memory import COMPRESSED
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.testing import user_msg as user
from nb_hitl.tool import Toolkit


def texts(agent: ReActAgent) -> list[str]:
    return [m.get_text_content() or m.role for m in agent.memory.messages]


async def two_questions(script: list[Any], **kwargs: Any) -> tuple[ReActAgent, Msg, Msg]:
    agent = ReActAgent("Friday", "sys", ScriptedModel(script, tokens_per_second=1e6), **kwargs)
    q1, q2 = user("Capital of France?"), user("Capital of Germany?")
    await agent(q1)
    await agent(q2)
    return agent, q1, q2


async def test_edit_and_resend_makes_a_branch_and_the_old_one_can_be_checked_out() -> None:
    agent, _q1, q2 = await two_questions(["Paris.", "Berlin.", "Rome."])
    events: list[Event] = []
    agent.subscribe(events.append)
    memory = agent.memory

    reply = await agent.edit_and_resend(q2.id, "Capital of Italy?")

    assert reply.get_text_content() == "Rome."
    assert texts(agent) == ["Capital of France?", "Paris.", "Capital of Italy?", "Rome."]
    edited = agent.memory.messages[2]
    assert edited.metadata["edited_from"] == q2.id and edited.id != q2.id
    assert agent.memory is memory  # the same object: widgets keep listening
    main, branch = agent.branches
    assert main.id == "main" and not main.active and main.size == 4
    assert branch.active and branch.parent == "main"
    assert branch.fork_point == agent.memory.messages[1].id and branch.head == reply.id

    assert agent.checkout("main").active
    assert texts(agent) == ["Capital of France?", "Paris.", "Capital of Germany?", "Berlin."]
    agent.checkout(branch.id)
    assert texts(agent)[-1] == "Rome."
    await asyncio.sleep(0)
    created = [e for e in events if isinstance(e, BranchCreated)]
    switched = [e for e in events if isinstance(e, BranchCheckedOut)]
    assert len(created) == 1 and created[0].branch_id == branch.id
    assert [(e.previous, e.branch_id) for e in switched] == [
        (branch.id, "main"),
        ("main", branch.id),
    ]
    assert_history_valid(agent.memory.messages)


async def test_regenerate_answers_the_same_question_again_on_a_new_branch() -> None:
    agent, q1, q2 = await two_questions(["Paris.", "Berlin.", "Berlin, Germany."])
    old = agent.memory.messages[-1]
    reply = await agent.regenerate(old.id)
    assert reply.metadata["regenerates"] == old.id
    assert texts(agent) == [
        "Capital of France?",
        "Paris.",
        "Capital of Germany?",
        "Berlin, Germany.",
    ]
    assert agent.memory.messages[2] is q2  # the question is shared, not copied
    assert [b.name for b in agent.branches] == ["main", "regenerate 1"]
    with pytest.raises(BranchError, match="edit_and_resend"):
        await agent.regenerate(q1.id)
    with pytest.raises(BranchError, match="regenerate"):
        await agent.edit_and_resend(reply.id, "no")


async def test_fork_with_a_new_message_and_the_refusals() -> None:
    agent, _q1, q2 = await two_questions(["Paris.", "Berlin.", "Madrid."])
    info = agent.fork(q2.id, "Capital of Spain?", name="spain")
    assert info.name == "spain" and texts(agent)[-1] == "Capital of Spain?"
    assert (await agent()).get_text_content() == "Madrid."
    before = (texts(agent), [b.id for b in agent.branches])
    with pytest.raises(BranchError, match="No message"):
        agent.fork("nope")
    with pytest.raises(BranchError, match="No branch"):
        agent.checkout("nope")
    assert (texts(agent), [b.id for b in agent.branches]) == before
    agent.checkout("spain")  # by name, already checked out: nothing changes
    assert texts(agent) == before[0]


async def test_a_fork_never_separates_a_tool_call_from_its_result() -> None:
    tk = Toolkit()
    tk.register_tool_function(lambda city: f"{city}: sunny", func_name="weather")
    turn = ScriptedTurn(tool_calls=[ScriptedToolCall("weather", {"city": "Oslo"})])
    model = ScriptedModel([turn, "Sunny."], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "sys", model, toolkit=tk)
    await agent(user("Weather in Oslo?"))
    result_msg = next(m for m in agent.memory.messages if m.get_content_blocks("tool_result"))
    with pytest.raises(BranchError, match="separate the tool call"):
        agent.fork(result_msg.id)
    assert len(agent.branches) == 1


async def test_branch_operations_on_a_running_agent_raise_agent_busy() -> None:
    agent, _q1, q2 = await two_questions(["Paris.", "Berlin.", "x " * 200])
    agent.model.tokens_per_second = 100  # type: ignore[attr-defined]
    task = asyncio.create_task(agent(user("Tell me more.")))
    await asyncio.sleep(0.05)
    with pytest.raises(AgentBusyError):
        agent.fork(q2.id)
    with pytest.raises(AgentBusyError):
        agent.checkout("main")
    with pytest.raises(AgentBusyError):
        await agent.edit_and_resend(q2.id, "other")
    with pytest.raises(AgentBusyError):
        await agent.regenerate(agent.memory.messages[1].id)
    await agent.interrupt()
    await task
    assert len(agent.branches) == 1


async def test_interrupting_a_rewound_reply_behaves_as_everywhere_and_resumes() -> None:
    agent, _q1, q2 = await two_questions(
        ["Paris.", "Berlin.", "Rome is the capital of Italy, on the Tiber river.", " river."]
    )
    agent.model.tokens_per_second = 300  # type: ignore[attr-defined]
    task = asyncio.create_task(agent.edit_and_resend(q2.id, "Capital of Italy?"))
    await wait_for_event(agent, lambda e: e.kind == "message_updated" and e.tokens >= 3)
    assert await agent.interrupt()
    record = await task
    assert record.is_interrupted and agent.branch.name == "edit 1"
    reply = await agent.resume()
    assert reply.metadata["continues"] == record.id
    assert_history_valid(agent.memory.messages)
    agent.checkout("main")
    assert texts(agent)[-1] == "Berlin." and not agent.can_resume


async def test_compression_state_follows_the_branch() -> None:
    agent = ReActAgent(
        "Friday", "sys", ScriptedModel([f"Answer {i}." for i in range(8)], tokens_per_second=1e6)
    )
    questions = [user(f"Question {i}?") for i in range(4)]
    for q in questions:
        await agent(q)
    result = await agent.compress_memory(force=True, keep_recent=2)
    assert result is not None and agent.memory.summary
    summary = agent.memory.summary
    compressed = set(result.compressed_ids)
    # a fork inside the compressed part: that compression is undone on the new branch
    agent.fork(questions[1].id)
    assert agent.memory.summary == result.previous_summary == ""
    assert not any(COMPRESSED in agent.memory.marks_of(m.id) for m in agent.memory.messages)
    assert not agent.can_undo_compression
    agent.checkout("main")
    assert agent.memory.summary == summary and agent.can_undo_compression
    assert {m.id for m in agent.memory.select(mark=COMPRESSED)} == compressed
    # a fork after the compressed part keeps the summary
    agent.fork(questions[3].id)
    assert agent.memory.summary == summary and agent.can_undo_compression
    assert await agent.undo_compression() and agent.memory.summary == ""
    agent.checkout("main")
    assert agent.memory.summary == summary  # undone on the other branch only


async def test_sessions_save_every_branch(tmp_path: Any) -> None:
    agent, _q1, q2 = await two_questions(["Paris.", "Berlin.", "Rome."])
    await agent.edit_and_resend(q2.id, "Capital of Italy?")
    path = agent.save_session(tmp_path / "chat.json")
    doc = json.loads(path.read_text())
    assert [b["id"] for b in doc["agent"]["state"]["branches"]["items"]] == ["main", "b1"]

    fresh = ReActAgent("Friday", "sys", ScriptedModel(["Bonn."], tokens_per_second=1e6))
    fresh.load_session(path)
    assert [(b.id, b.name, b.active) for b in fresh.branches] == [
        ("main", "main", False),
        ("b1", "edit 1", True),
    ]
    assert texts(fresh)[-1] == "Rome."
    fresh.checkout("main")
    assert texts(fresh) == ["Capital of France?", "Paris.", "Capital of Germany?", "Berlin."]
    assert (await fresh.regenerate(fresh.memory.messages[-1].id)).get_text_content() == "Bonn."
    assert len(fresh.branches) == 3


async def test_a_malformed_branches_state_changes_nothing() -> None:
    agent, _q1, _q2 = await two_questions(["Paris.", "Berlin."])
    state = json.loads(json.dumps(agent.state_dict()))
    state["branches"] = {"active": "zzz", "items": [{"id": "main"}]}
    before = texts(agent)
    with pytest.raises(ValueError, match="branches"):
        agent.load_state_dict(state)
    assert texts(agent) == before and len(agent.branches) == 1
