"""Tool calls that need approval park the reply until a person decides."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent import DENIED_PREFIX, ReActAgent
from nb_hitl.events import ApprovalDecided, ApprovalRequested, Event, ReplyFinished
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit


def user(text: str) -> Msg:
    """A user message."""
    return Msg("User", text, "user")


class Files:
    """Tools with a record of what really ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def toolkit(self, delete_rule: Any = True) -> Toolkit:
        toolkit = Toolkit()

        def write_file(path: str, text: str) -> str:
            """Write a file.

            Args:
                path: where.
                text: what.
            """
            self.ran.append(("write_file", {"path": path, "text": text}))
            return f"wrote {len(text)} characters to {path}"

        async def read_file(path: str) -> str:
            """Read a file.

            Args:
                path: where.
            """
            self.ran.append(("read_file", {"path": path}))
            return f"contents of {path}"

        def delete_file(path: str) -> str:
            """Delete a file.

            Args:
                path: which.
            """
            self.ran.append(("delete_file", {"path": path}))
            return f"deleted {path}"

        toolkit.register_tool_function(write_file, needs_approval=True)
        toolkit.register_tool_function(read_file)
        toolkit.register_tool_function(delete_file, needs_approval=delete_rule)
        return toolkit


def call(name: str, call_id: str, **args: Any) -> ScriptedToolCall:
    return ScriptedToolCall(name, args, id=call_id)


def build(files: Files, script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=5000)
    return ReActAgent("Friday", "Test.", model, toolkit=files.toolkit(), **kwargs)


class Recorder:
    def __init__(self, agent: ReActAgent) -> None:
        self.events: list[Event] = []
        agent.subscribe(self.events.append)

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def write_read_delete_turn() -> ScriptedTurn:
    """One model turn asking for two calls that need approval (w1, d1) around one that does not."""
    return ScriptedTurn(
        tool_calls=[
            call("write_file", "w1", path="a", text="1"),
            call("read_file", "r1", path="a"),
            call("delete_file", "d1", path="b"),
        ]
    )


async def park(agent: ReActAgent, text: str = "Please write the file.") -> asyncio.Task[Msg]:
    task = asyncio.create_task(agent(user(text)))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    await asyncio.sleep(0)  # let every request of the turn be emitted
    return task


def results(agent: ReActAgent) -> dict[str, str]:
    return {
        b.id: b.output_text()
        for m in agent.memory.messages
        for b in m.get_content_blocks("tool_result")
    }


async def test_approve_runs_the_call_and_continues_without_asking_the_model_again() -> None:
    files = Files()
    agent = build(
        files,
        [
            ScriptedTurn(
                text="Writing.", tool_calls=[call("write_file", "c1", path="a.txt", text="hi")]
            ),
            "Done: the file is written.",
        ],
    )
    rec = Recorder(agent)
    task = await park(agent)
    assert agent.is_replying and agent.is_waiting_for_approval
    [pending] = agent.pending_approvals
    assert (pending.call_id, pending.tool_name, pending.arguments) == (
        "c1",
        "write_file",
        {"path": "a.txt", "text": "hi"},
    )
    assert files.ran == []
    assert len(agent.model.calls) == 1  # type: ignore[attr-defined]
    assert "c1" not in results(agent)

    agent.approve("c1")
    reply = await task
    assert reply.get_text_content() == "Done: the file is written."
    assert files.ran == [("write_file", {"path": "a.txt", "text": "hi"})]
    assert len(agent.model.calls) == 2  # type: ignore[attr-defined]
    assert results(agent)["c1"] == "wrote 2 characters to a.txt"
    assert agent.pending_approvals == [] and not agent.is_waiting_for_approval
    [decided] = rec.of(ApprovalDecided)
    assert (decided.call_id, decided.decision) == ("c1", "approved")
    assert [e.tool_use.id for e in rec.of(ApprovalRequested)] == ["c1"]
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize("as_json", [False, True])
async def test_approve_with_edited_arguments_runs_the_edited_call(as_json: bool) -> None:
    files = Files()
    agent = build(
        files,
        [ScriptedTurn(tool_calls=[call("write_file", "c1", path="/etc/passwd", text="x")]), "ok"],
    )
    rec = Recorder(agent)
    task = await park(agent)
    edited = {"path": "notes.txt", "text": "x"}
    agent.approve("c1", '{"path": "notes.txt", "text": "x"}' if as_json else edited)
    await task
    assert files.ran == [("write_file", edited)]
    [use] = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    assert use.input == edited  # memory says what really ran...
    holder = next(m for m in agent.memory.messages if m.has_content_blocks("tool_use"))
    assert holder.metadata["edited_tool_calls"]["c1"]["original_input"]["path"] == "/etc/passwd"
    # ...and so does the next prompt the model saw
    sent = [c for m in agent.model.calls[-1].messages for c in m.get("tool_calls", [])]  # type: ignore[attr-defined]
    assert '"notes.txt"' in sent[0]["function"]["arguments"]
    [decided] = rec.of(ApprovalDecided)
    assert decided.decision == "edited" and decided.arguments == edited
    assert_history_valid(agent.memory.messages)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('{"path": "a.txt", "text": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"path": "a.txt"}, "text"),
        ({"path": "a.txt", "text": "x", "mode": "w"}, "mode"),
        ({"path": 3, "text": "x"}, "path"),
    ],
)
async def test_invalid_edit_is_a_clear_error_and_the_call_keeps_waiting(
    arguments: Any, message: str
) -> None:
    files = Files()
    agent = build(
        files, [ScriptedTurn(tool_calls=[call("write_file", "c1", path="a", text="x")]), "ok"]
    )
    rec = Recorder(agent)
    task = await park(agent)
    before = [m.to_dict() for m in agent.memory.messages]
    with pytest.raises(ApprovalError, match=message):
        agent.approve("c1", arguments)
    assert [p.call_id for p in agent.pending_approvals] == ["c1"]
    assert [m.to_dict() for m in agent.memory.messages] == before
    assert files.ran == [] and not task.done()
    await asyncio.sleep(0)
    assert rec.of(ApprovalDecided) == []
    agent.approve("c1", {"path": "b", "text": "y"})  # a valid edit still works afterwards
    await task
    assert files.ran == [("write_file", {"path": "b", "text": "y"})]
    assert_history_valid(agent.memory.messages)


async def test_deny_sends_the_reason_to_the_model_and_never_runs_the_tool() -> None:
    files = Files()
    agent = build(
        files,
        [ScriptedTurn(tool_calls=[call("write_file", "c1", path="a", text="x")]), "Understood."],
    )
    task = await park(agent)
    agent.deny("c1", "too risky")
    reply = await task
    assert reply.get_text_content() == "Understood."
    assert files.ran == []
    assert results(agent)["c1"] == DENIED_PREFIX + "too risky" == "denied by the user: too risky"
    tool_msgs = [m for m in agent.model.calls[-1].messages if m["role"] == "tool"]  # type: ignore[attr-defined]
    assert tool_msgs == [
        {"role": "tool", "tool_call_id": "c1", "content": "denied by the user: too risky"}
    ]
    assert_history_valid(agent.memory.messages)


async def test_always_allow_approves_waiting_calls_and_stops_asking() -> None:
    files = Files()
    agent = build(
        files,
        [
            ScriptedTurn(tool_calls=[call("write_file", "c1", path="a", text="1")]),
            ScriptedTurn(tool_calls=[call("write_file", "c2", path="b", text="2")]),
            "Both written.",
        ],
    )
    rec = Recorder(agent)
    task = await park(agent)
    agent.always_allow("write_file")
    reply = await task
    assert reply.get_text_content() == "Both written."
    assert [r[1]["path"] for r in files.ran] == ["a", "b"]
    assert [e.tool_use.id for e in rec.of(ApprovalRequested)] == ["c1"]  # c2 never asked
    assert agent.always_allowed == {"write_file"}
    assert agent.state_dict()["approvals"]["always_allowed"] == ["write_file"]
    with pytest.raises(ApprovalError, match="No tool named 'nope'"):
        agent.always_allow("nope")
    assert_history_valid(agent.memory.messages)


async def test_several_pending_calls_are_asked_together_and_decided_one_by_one() -> None:
    files = Files()
    agent = build(files, [write_read_delete_turn(), "All handled."])
    rec = Recorder(agent)
    task = await park(agent)
    assert [p.call_id for p in agent.pending_approvals] == ["w1", "d1"]
    assert [e.tool_use.id for e in rec.of(ApprovalRequested)] == ["w1", "d1"]
    agent.approve("w1")
    await asyncio.sleep(0.01)
    # one decided: the turn still waits for the other, nothing ran yet
    assert [p.call_id for p in agent.pending_approvals] == ["d1"]
    assert files.ran == [] and not task.done()
    with pytest.raises(ApprovalError, match=r"already decided: approved at \d\d:\d\d:\d\d UTC"):
        agent.deny("w1", "changed my mind")
    agent.deny("d1", "keep it")
    reply = await task
    assert reply.get_text_content() == "All handled."
    assert [name for name, _ in files.ran] == ["write_file", "read_file"]  # the model's order
    out = results(agent)
    assert out["d1"] == "denied by the user: keep it"
    assert out["r1"] == "contents of a"
    assert len(agent.model.calls) == 2  # type: ignore[attr-defined]
    assert_history_valid(agent.memory.messages)


async def test_approve_all_and_deny_all_decide_the_whole_turn() -> None:
    files = Files()
    turn = ScriptedTurn(
        tool_calls=[
            call("write_file", "w1", path="a", text="1"),
            call("delete_file", "d1", path="b"),
        ]
    )
    turn2 = ScriptedTurn(
        tool_calls=[
            call("write_file", "w2", path="a", text="1"),
            call("delete_file", "d2", path="b"),
        ]
    )
    agent = build(files, [turn, "first done", turn2, "second done"])
    task = await park(agent)
    agent.approve_all()
    await task
    assert [n for n, _ in files.ran] == ["write_file", "delete_file"]
    task = await park(agent, "again")
    agent.deny_all("no more")
    await task
    out = results(agent)
    assert out["w2"] == out["d2"] == "denied by the user: no more"
    assert len(files.ran) == 2
    assert_history_valid(agent.memory.messages)


async def test_predicate_decides_per_call_and_a_failing_predicate_asks() -> None:
    files = Files()

    def outside_home(c: Any) -> bool:
        if c.input["path"] == "boom":
            raise RuntimeError("predicate bug")
        return not c.input["path"].startswith("home/")

    toolkit = files.toolkit(delete_rule=outside_home)
    model = ScriptedModel(
        [
            ScriptedTurn(
                tool_calls=[
                    call("delete_file", "d1", path="home/x"),
                    call("delete_file", "d2", path="/etc"),
                    call("delete_file", "d3", path="boom"),
                ]
            ),
            "ok",
        ],
        tokens_per_second=5000,
    )
    agent = ReActAgent("Friday", "Test.", model, toolkit=toolkit)
    task = await park(agent)
    assert [p.call_id for p in agent.pending_approvals] == ["d2", "d3"]
    agent.deny("d2")
    agent.deny("d3", "")
    await task
    assert files.ran == [("delete_file", {"path": "home/x"})]
    assert results(agent)["d2"] == "denied by the user: no reason given"
    assert_history_valid(agent.memory.messages)


async def test_a_call_with_invalid_arguments_is_not_asked_about_it_just_fails() -> None:
    files = Files()
    agent = build(
        files,
        [
            ScriptedTurn(
                tool_calls=[ScriptedToolCall("write_file", id="bad", raw_arguments='{"path": ')]
            ),
            "ok",
        ],
    )
    rec = Recorder(agent)
    await agent(user("go"))
    assert rec.of(ApprovalRequested) == []
    assert "not valid JSON" in results(agent)["bad"]
    assert files.ran == []
    assert_history_valid(agent.memory.messages)


async def test_interrupt_while_parked_closes_every_call_and_late_decisions_fail() -> None:
    files = Files()
    agent = build(files, [write_read_delete_turn(), "Resumed fine."])
    rec = Recorder(agent)
    task = await park(agent)
    agent.approve("w1")  # decided, but the turn had not run yet
    assert await agent.interrupt() is True
    result = await task
    assert result.is_interrupted
    assert result.metadata["interrupted_at"].startswith("waiting for approval")
    out = results(agent)
    assert set(out) == {"w1", "r1", "d1"}
    assert all("not run because the user interrupted" in text for text in out.values())
    assert files.ran == [] and agent.pending_approvals == []
    assert not agent.is_waiting_for_approval
    await asyncio.sleep(0)
    closed = {e.call_id: e.decision for e in rec.of(ApprovalDecided) if e.decision == "interrupted"}
    assert closed == {"w1": "interrupted", "d1": "interrupted"}
    assert_history_valid(agent.memory.messages)

    before = [m.to_dict() for m in agent.memory.messages]
    for decide in (lambda: agent.approve("d1"), lambda: agent.deny("d1", "x")):
        with pytest.raises(ApprovalError, match="closed by an interrupt"):
            decide()
    assert [m.to_dict() for m in agent.memory.messages] == before
    assert files.ran == []
    reply = await agent(user("Please continue."))
    assert reply.get_text_content() == "Resumed fine."
    assert_history_valid(agent.memory.messages)


async def test_unknown_call_id_is_a_clear_error_and_changes_nothing() -> None:
    files = Files()
    agent = build(
        files, [ScriptedTurn(tool_calls=[call("write_file", "c1", path="a", text="x")]), "ok"]
    )
    with pytest.raises(ApprovalError, match=r"No tool call 'zzz' is waiting .*waiting: none"):
        agent.approve("zzz")
    task = await park(agent)
    before = [m.to_dict() for m in agent.memory.messages]
    with pytest.raises(ApprovalError, match=r"No tool call 'zzz' is waiting .*waiting: 'c1'"):
        agent.deny("zzz", "x")
    assert [p.call_id for p in agent.pending_approvals] == ["c1"]
    assert [m.to_dict() for m in agent.memory.messages] == before
    agent.approve("c1")
    await task
    with pytest.raises(ApprovalError, match=r"already decided: approved at \d\d:\d\d:\d\d UTC"):
        agent.approve("c1")
    assert len(files.ran) == 1
    assert_history_valid(agent.memory.messages)


async def test_decisions_from_another_thread_hop_onto_the_agent_loop() -> None:
    files = Files()
    agent = build(
        files,
        [
            ScriptedTurn(
                tool_calls=[
                    call("write_file", "w1", path="a", text="1"),
                    call("delete_file", "d1", path="b"),
                ]
            ),
            "ok",
        ],
    )
    task = await park(agent)
    errors: list[BaseException] = []

    def widget_thread() -> None:
        agent.approve("w1")  # blocking variant: waits for the loop, re-raises its errors
        try:
            agent.approve("nope")
        except ApprovalError as exc:
            errors.append(exc)

    await asyncio.to_thread(widget_thread)  # the loop stays free to serve the hop
    assert len(errors) == 1 and [p.call_id for p in agent.pending_approvals] == ["d1"]
    future = await asyncio.to_thread(agent.deny_threadsafe, "d1", "no")
    reply = await task
    assert reply.get_text_content() == "ok"
    assert future.result(timeout=5) is None
    assert results(agent)["d1"] == "denied by the user: no"
    assert_history_valid(agent.memory.messages)


async def test_parallel_tool_calls_park_too() -> None:
    files = Files()
    agent = build(
        files,
        [
            ScriptedTurn(
                tool_calls=[
                    call("write_file", "w1", path="a", text="1"),
                    call("read_file", "r1", path="a"),
                ]
            ),
            "ok",
        ],
        parallel_tool_calls=True,
    )
    task = await park(agent)
    assert files.ran == []
    agent.approve("w1", {"path": "z", "text": "1"})
    await task
    assert sorted(files.ran, key=lambda r: r[0]) == [
        ("read_file", {"path": "a"}),
        ("write_file", {"path": "z", "text": "1"}),
    ]
    assert_history_valid(agent.memory.messages)


async def test_parked_reply_leaves_the_loop_free_and_reports_finish() -> None:
    files = Files()
    agent = build(
        files, [ScriptedTurn(tool_calls=[call("write_file", "c1", path="a", text="x")]), "ok"]
    )
    rec = Recorder(agent)
    task = await park(agent)
    ticks = 0
    for _ in range(20):  # other work keeps running while the reply is parked
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 20 and not task.done()
    assert rec.of(ReplyFinished) == []
    agent.approve("c1")
    await task
    await asyncio.sleep(0)
    assert [e.interrupted for e in rec.of(ReplyFinished)] == [False]
