"""Msg: AgentScope-style construction, block access, lossless JSON, escaped HTML."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import (
    Msg,
    MsgListAdapter,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def test_positional_construction_like_agentscope() -> None:
    msg = Msg("User", "Please continue.", "user")
    assert (msg.name, msg.content, msg.role, msg.metadata) == (
        "User",
        "Please continue.",
        "user",
        {},
    )
    assert msg.id and msg.timestamp
    assert Msg("User", "x", "user").id != msg.id
    assert msg.get_text_content() == "Please continue."


def test_blocks_and_filters() -> None:
    msg = Msg(
        "Friday",
        [
            ThinkingBlock(thinking="hmm"),
            TextBlock(text="a"),
            {"type": "tool_use", "id": "c1", "name": "f", "input": {"x": 1}},
            TextBlock(text="b"),
        ],
        "assistant",
    )
    assert msg.get_text_content() == "a\nb"
    assert [b.id for b in msg.get_content_blocks("tool_use")] == ["c1"]
    assert len(msg.get_content_blocks()) == 4
    assert msg.has_content_blocks("thinking") and not msg.has_content_blocks("tool_result")
    assert Msg("a", [ToolUseBlock(id="1", name="f")], "assistant").get_text_content() is None


def test_invalid_role_and_block_are_rejected() -> None:
    with pytest.raises(ValidationError):
        Msg("x", "y", "robot")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Msg("x", [{"type": "image", "url": "u"}], "user")


def test_json_round_trip_of_every_block_and_of_a_memory() -> None:
    msgs = [
        Msg("User", "hi", "user", metadata={"k": [1, 2]}),
        Msg(
            "Friday",
            [
                ThinkingBlock(thinking="t"),
                TextBlock(text="calling"),
                ToolUseBlock(id="c1", name="f", input={"nested": {"a": [1, None]}}),
                ToolUseBlock(id="c2", name="g", input={}, raw_input='{"bad'),
            ],
            "assistant",
            metadata={"_partial": True},
        ),
        Msg(
            "system",
            [
                ToolResultBlock(id="c1", name="f", output="ok"),
                ToolResultBlock(id="c2", name="g", output=[TextBlock(text="e")], is_error=True),
            ],
            "system",
        ),
    ]
    for m in msgs:
        assert Msg.model_validate_json(m.model_dump_json()) == m
        assert Msg.from_dict(m.to_dict()) == m
    assert MsgListAdapter.validate_json(MsgListAdapter.dump_json(msgs)) == msgs
    memory = InMemoryMemory()
    memory.add_sync(msgs)
    memory.update_marks_sync("pinned", msg_ids=[msgs[0].id])
    memory.summary = "S"
    restored = InMemoryMemory()
    import json

    restored.load_state_dict(json.loads(json.dumps(memory.state_dict())))
    assert restored.messages == msgs
    assert restored.marks_of(msgs[0].id) == {"pinned"}
    assert restored.summary == "S"


def test_repr_html_escapes_hostile_strings() -> None:
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    msg = Msg(
        hostile,
        [TextBlock(text=hostile), ToolUseBlock(id="1", name=hostile, input={"q": hostile})],
        "assistant",
        metadata={"_is_interrupted": True},
    )
    html = msg._repr_html_()
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
    assert "nb-hitl-interrupted" in html
    assert "interrupted" in repr(msg)


def test_of_text_builds_the_message_msg_would() -> None:
    metadata = {"_is_interrupted": True, "interrupted_at": "streaming"}
    fast = Msg._of_text("Friday", "[Interrupted] stopped.", "assistant", dict(metadata))
    checked = Msg("Friday", "[Interrupted] stopped.", "assistant", metadata=metadata)
    assert type(fast) is Msg
    skip = {"id", "timestamp"}
    assert fast.model_dump(exclude=skip) == checked.model_dump(exclude=skip)
    assert fast.model_fields_set == checked.model_fields_set
    assert len(fast.id) == len(checked.id) and fast.id != checked.id
    assert datetime.fromisoformat(fast.timestamp).tzinfo is not None
    assert Msg.from_dict(fast.to_dict()) == fast  # it validates as any message does
    fast.content = [{"type": "text", "text": "later"}]  # assignments are still validated
    assert fast.get_text_content() == "later"
    with pytest.raises(ValidationError):
        fast.role = "robot"  # type: ignore[assignment]


def test_of_text_validates_what_it_cannot_vouch_for() -> None:
    with pytest.raises(ValidationError):
        Msg._of_text("Friday", "text", "robot", {})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Msg._of_text(None, "text", "assistant", {})  # type: ignore[arg-type]
    blocks = [{"type": "text", "text": "hi"}]
    from_blocks = Msg._of_text("Friday", blocks, "user", {})  # type: ignore[arg-type]
    assert from_blocks.get_text_content() == "hi" and from_blocks.role == "user"
