"""The remote agent's pure parts: SSE framing, event parsing, JSON Patch, message conversion,
interrupt reading, and a run's events fed straight into a ``RunMapper`` (no server)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from ag_ui.core import Interrupt

from nb_hitl.exceptions import RemoteAgentError
from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock
from nb_hitl.remote import RemoteAgent
from nb_hitl.remote._convert import from_agui, to_agui
from nb_hitl.remote._decisions import read_interrupt
from nb_hitl.remote._run import RunMapper
from nb_hitl.remote._sse import Skipped, parse_event, sse_data
from nb_hitl.remote._state import apply_patch


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def collect(*parts: bytes, limit: int = 1000) -> list[str]:
    return [d async for d in sse_data(chunks(*parts), limit)]


async def test_sse_framing_across_chunks_comments_crlf_and_multiline_data() -> None:
    out = await collect(
        b': hello\r\ndata: {"a"',
        b": 1}\r\n\r\nevent: x\nid: 3\ndata: l1\ndata: l2\n\n",
        b"data: last",
    )
    assert out == ['{"a": 1}', "l1\nl2", "last"]


async def test_an_event_over_the_limit_is_an_error_not_a_memory_hog() -> None:
    with pytest.raises(RemoteAgentError) as info:
        await collect(b"data: " + b"x" * 5000)  # no newline ever comes
    assert info.value.kind == "protocol" and "larger than 1,000 bytes" in str(info.value)
    with pytest.raises(RemoteAgentError):
        await collect(b"data: " + b"y" * 600 + b"\ndata: " + b"y" * 600 + b"\n\n")


def test_parse_event_uses_the_sdk_models_and_skips_what_is_not_an_event() -> None:
    ev = parse_event('{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "<b>"}')
    assert type(ev).__name__ == "TextMessageContentEvent" and ev.delta == "<b>"
    kinds = [
        parse_event(d).kind
        for d in ("{nope", "[1]", '{"type": "X_Y"}', '{"type": "TEXT_MESSAGE_CONTENT"}')
    ]
    assert kinds == ["json", "shape", "unknown", "invalid"]
    assert isinstance(parse_event("[" * 100_000), Skipped)  # deep nesting: skipped, no crash


def test_json_patch_applies_to_a_copy_and_refuses_bad_operations() -> None:
    state = {"a": {"b": [1, 2]}, "n": 1}
    new = apply_patch(
        state,
        [
            {"op": "add", "path": "/a/b/-", "value": 3},
            {"op": "replace", "path": "/n", "value": 2},
            {"op": "remove", "path": "/a/b/0"},
            {"op": "copy", "from": "/n", "path": "/m"},
        ],
    )
    assert new == {"a": {"b": [2, 3]}, "n": 2, "m": 2} and state == {"a": {"b": [1, 2]}, "n": 1}
    for bad in (
        [{"op": "replace", "path": "/nope", "value": 1}],
        [{"op": "jump", "path": ""}],
        "not a list",
        [{"op": "test", "path": "/n", "value": 9}],
    ):
        with pytest.raises(ValueError):
            apply_patch(state, bad)


def test_json_patch_takes_the_operations_the_sdk_parsed() -> None:
    """ag-ui-protocol 1.0 parses a STATE_DELTA's operations into objects (ReplaceOperation...)."""
    ev = parse_event(
        json.dumps(
            {
                "type": "STATE_DELTA",
                "delta": [
                    {"op": "replace", "path": "/replyState", "value": "running"},
                    {"op": "add", "path": "/pendingSteering", "value": 1},
                    {"op": "move", "from": "/pendingSteering", "path": "/steered"},
                ],
            }
        )
    )
    assert not isinstance(ev, Skipped)
    assert not isinstance(ev.delta[0], dict)  # the SDK hands objects over
    new = apply_patch({"replyState": "idle"}, ev.delta)
    assert new == {"replyState": "running", "steered": 1}


def test_messages_round_trip_with_ids_tool_calls_and_flags() -> None:
    call = ToolUseBlock(id="c1", name="deploy", input={"env": "prod"})
    messages = [
        Msg("User", "hi", "user"),
        Msg("Friday", [call], "assistant", metadata={"_partial": True}),
        Msg("system", [ToolResultBlock(id="c1", name="deploy", output="ok")], "system"),
        Msg("Friday", "stopped", "assistant", metadata={"_is_interrupted": True}),
    ]
    back = [from_agui(m, "Friday") for m in to_agui(messages)]
    assert [m.id for m in back if m] == [m.id for m in messages]
    assert back[1] is not None and back[1].get_content_blocks("tool_use")[0].input == {
        "env": "prod"
    }
    assert back[1].metadata == {"_partial": True} and back[3] and back[3].is_interrupted
    assert back[2] is not None and back[2].get_content_blocks("tool_result")[0].id == "c1"


def test_interrupts_read_as_approvals_or_questions() -> None:
    nb = Interrupt(
        id="c1",
        reason="tool_approval",
        tool_call_id="c1",
        metadata={"kind": "approval", "toolName": "deploy", "arguments": {"v": 1}},
    )
    lg = Interrupt(
        id="i2",
        reason="langgraph:interrupt",
        metadata={
            "langgraph": {
                "raw": {
                    "kind": "question",
                    "questions": [
                        {"question": "Which?", "options": [{"label": "a"}, {"label": "b"}]}
                    ],
                }
            }
        },
    )
    plain = Interrupt(id="i3", reason="langgraph:interrupt", message="Proceed?")
    a, q, g = (read_interrupt(i, {}) for i in (nb, lg, plain))
    assert (a.kind, a.call and a.call.name, a.call and a.call.input) == (
        "approval",
        "deploy",
        {"v": 1},
    )
    assert q.kind == "question" and q.questions[0].labels == ["a", "b"]
    assert g.kind == "approval" and g.call is not None and g.call.input == {"message": "Proceed?"}


def feed(agent: RemoteAgent, *events: dict[str, object]) -> RunMapper:
    mapper = RunMapper(agent, 1000)
    agent._mapper = mapper
    for e in events:
        mapper.feed(parse_event(json.dumps(e)))
    return mapper


async def test_a_run_out_of_order_still_gives_a_valid_memory() -> None:
    agent = RemoteAgent("http://127.0.0.1:9/", name="R")
    notes: list[str] = []
    agent.subscribe(lambda ev: notes.append(getattr(ev, "text", "")))
    mapper = feed(
        agent,
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "no start, "},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "still text"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "ghost", "delta": "{}"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"x": '},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "1}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "r9", "toolCallId": "nobody", "content": "?"},
        {"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "done"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "late text"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    )
    assert mapper.finished
    msgs = agent.memory.messages
    assert [m.id for m in msgs] == ["m1", "r1"]
    assert msgs[0].get_text_content() == "no start, still text"
    assert msgs[0].get_content_blocks("tool_use")[0].input == {"x": 1}
    await asyncio.sleep(0)
    assert any("out of order" in n for n in notes)
    with pytest.raises(RemoteAgentError):
        feed(agent, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "big", "delta": "z" * 2000})
    await agent.aclose()


def test_remote_uses_the_agent_only_through_its_public_seams() -> None:
    """Issue 31: remote/ touched ``agent._emit``, ``agent._reply_id``, ``agent._where``."""
    import re
    from pathlib import Path

    import nb_hitl.remote

    for path in sorted(Path(nb_hitl.remote.__file__).parent.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"\._(?:emit|reply_id|where)\b", text)
        assert not found, f"{path.name} uses {found}: use agent.emit / reply_id / where"


async def test_agent_base_emit_reply_id_and_where_are_public() -> None:
    from nb_hitl.agent import AgentBase
    from nb_hitl.events import Notice

    seen: list[tuple[str | None, str]] = []
    emitted = asyncio.Event()

    class Waits(AgentBase):
        async def reply(self, msg: Msg | None = None, **kwargs: object) -> Msg:
            self.where = "waiting"
            self.emit(Notice(self.name, self.reply_id, "from inside"))
            await asyncio.sleep(30)
            return Msg(self.name, "never", "assistant")

    agent = Waits("W")

    def on_event(ev: Notice) -> None:
        seen.append((ev.reply_id, getattr(ev, "text", ev.kind)))
        if getattr(ev, "text", "") == "from inside":
            emitted.set()

    agent.subscribe(on_event)
    assert agent.reply_id is None
    task = asyncio.create_task(agent(Msg("User", "hi", "user")))
    await asyncio.wait_for(emitted.wait(), 10)
    reply_id = agent.reply_id
    assert reply_id is not None and (reply_id, "from inside") in seen
    await agent.interrupt()
    assert (await task).metadata["interrupted_at"] == "waiting"
