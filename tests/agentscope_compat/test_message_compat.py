"""AgentScope 1.x message code (``Msg`` and content blocks) run after renaming the imports.

Written from AgentScope 1.0.21's documented behaviour, in its calling style (blocks built and
read as dicts). Differences kept on purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import copy
import json

import pytest
from pydantic import ValidationError

from nb_hitl.message import (
    AudioBlock,
    Base64Source,
    ContentBlock,
    ImageBlock,
    Msg,
    MsgListAdapter,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)


def _multimodal_msg() -> Msg:
    return Msg(
        "user",
        [
            TextBlock(type="text", text="What is in this picture?"),
            ImageBlock(
                type="image",
                source=URLSource(type="url", url="https://example.com/cat.png"),
            ),
            AudioBlock(
                type="audio",
                source=Base64Source(type="base64", media_type="audio/wav", data="UklGRg=="),
            ),
            VideoBlock(type="video", source=URLSource(type="url", url="/tmp/clip.mp4")),
        ],
        "user",
    )


def test_blocks_read_like_dicts() -> None:
    block = TextBlock(type="text", text="Hello")
    assert block["text"] == "Hello"
    assert block["type"] == "text"
    assert block.get("type") == "text"
    assert block.get("missing") is None
    assert block.get("missing", "default") == "default"
    assert "text" in block
    assert "missing" not in block
    assert {**block} == {"type": "text", "text": "Hello"}
    assert dict(block) == {"type": "text", "text": "Hello"}
    assert list(block) == ["type", "text"]
    assert len(block) == 2
    with pytest.raises(KeyError):
        block["missing"]


def test_blocks_compare_equal_to_the_plain_dicts_agentscope_uses() -> None:
    assert TextBlock(type="text", text="hi") == {"type": "text", "text": "hi"}
    assert TextBlock(type="text", text="hi") != {"type": "text", "text": "bye"}
    call = ToolUseBlock(type="tool_use", id="1", name="get_weather", input={"city": "Paris"})
    assert call == {
        "type": "tool_use",
        "id": "1",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }
    # nb_hitl's own result flags at their defaults do not break the comparison ...
    result = ToolResultBlock(type="tool_result", id="1", name="f", output="ok")
    assert result == {"type": "tool_result", "id": "1", "name": "f", "output": "ok"}
    # ... but a failed call is not equal to a successful one.
    failed = ToolResultBlock(type="tool_result", id="1", name="f", output="ok", is_error=True)
    assert failed != {"type": "tool_result", "id": "1", "name": "f", "output": "ok"}
    image = ImageBlock(type="image", source=URLSource(type="url", url="https://x/y.png"))
    assert image == {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}


def test_optional_keys_left_out_are_absent_like_in_a_typed_dict() -> None:
    call = ToolUseBlock(type="tool_use", id="1", name="f", input={})
    assert "raw_input" not in call
    assert call.get("raw_input") is None
    with pytest.raises(KeyError):
        call["raw_input"]
    assert set(call) == {"type", "id", "name", "input"}


def test_blocks_can_be_written_like_dicts_and_stay_validated() -> None:
    block = TextBlock(type="text", text="draft")
    block["text"] = "final"
    assert block.text == "final"
    with pytest.raises(KeyError, match="has no key 'colour'"):
        block["colour"] = "red"


def test_plain_dicts_are_accepted_wherever_blocks_are() -> None:
    msg = Msg("user", [{"type": "text", "text": "hi"}], "user")
    assert isinstance(msg.content[0], TextBlock)
    msg.content.append({"type": "image", "source": {"type": "url", "url": "https://x/y.png"}})
    assert isinstance(msg.content[1], ImageBlock)
    assert isinstance(msg.content[1]["source"], URLSource)
    msg.content = [{"type": "thinking", "thinking": "hmm"}]
    assert isinstance(msg.content[0], ThinkingBlock)
    msg.content.extend([{"type": "text", "text": "a"}])
    msg.content.insert(0, {"type": "text", "text": "b"})
    msg.content[0] = {"type": "text", "text": "c"}
    assert [b["type"] for b in msg.content] == ["text", "thinking", "text"]
    result = ToolResultBlock(
        type="tool_result", id="1", name="f", output=[{"type": "text", "text": "done"}]
    )
    assert isinstance(result["output"][0], TextBlock)


def test_a_malformed_block_is_a_clear_error_and_changes_nothing() -> None:
    msg = Msg("user", [{"type": "text", "text": "hi"}], "user")
    # differs on purpose: AgentScope's TypedDicts accept anything at run time; a block without
    # its required keys fails later, far from the mistake. Here it fails where it is made.
    with pytest.raises(ValidationError, match="text"):
        msg.content.append({"type": "text"})
    with pytest.raises(ValidationError):
        Msg("user", [{"type": "picture", "url": "x"}], "user")
    with pytest.raises(ValidationError):
        ImageBlock(type="image", source={"type": "ftp", "url": "x"})
    assert msg.content == [{"type": "text", "text": "hi"}]


def test_msg_constructor_and_attributes() -> None:
    msg = Msg(
        "Friday",
        "Hello!",
        "assistant",
        metadata={"score": 1},
        timestamp="2025-01-01 10:00:00.000",
        invocation_id="call-42",
    )
    assert (msg.name, msg.content, msg.role) == ("Friday", "Hello!", "assistant")
    assert msg.metadata == {"score": 1}
    assert msg.timestamp == "2025-01-01 10:00:00.000"
    assert msg.invocation_id == "call-42"
    assert isinstance(msg.id, str) and msg.id
    assert Msg("a", "x", "user").id != Msg("a", "x", "user").id
    assert Msg("a", "x", "user").invocation_id is None
    # differs on purpose: AgentScope's default timestamp is local "%Y-%m-%d %H:%M:%S.fff";
    # here it is ISO 8601 with a UTC offset, unambiguous when a session moves between machines.
    assert Msg("a", "x", "user").timestamp.endswith("+00:00")
    with pytest.raises(ValidationError):
        Msg("a", "x", "narrator")  # type: ignore[arg-type]


def test_get_text_content_joins_text_blocks_with_a_separator() -> None:
    msg = Msg(
        "assistant",
        [
            TextBlock(type="text", text="one"),
            ToolUseBlock(type="tool_use", id="1", name="f", input={}),
            TextBlock(type="text", text="two"),
        ],
        "assistant",
    )
    assert msg.get_text_content() == "one\ntwo"
    assert msg.get_text_content(separator=" | ") == "one | two"
    assert Msg("user", "plain", "user").get_text_content() == "plain"
    assert _multimodal_msg().get_text_content() == "What is in this picture?"
    only_call = Msg("a", [ToolUseBlock(type="tool_use", id="1", name="f", input={})], "assistant")
    assert only_call.get_text_content() is None


def test_get_content_blocks_by_type_and_by_list_of_types() -> None:
    msg = _multimodal_msg()
    assert [b["type"] for b in msg.get_content_blocks()] == ["text", "image", "audio", "video"]
    assert msg.get_content_blocks("image") == [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}
    ]
    assert [b["type"] for b in msg.get_content_blocks(["audio", "video"])] == ["audio", "video"]
    assert msg.get_content_blocks("tool_use") == []
    assert Msg("user", "hi", "user").get_content_blocks() == [{"type": "text", "text": "hi"}]
    assert Msg("user", "hi", "user").get_content_blocks("text") == [
        TextBlock(type="text", text="hi")
    ]
    # differs on purpose: AgentScope turns "" into one empty text block; here an empty message
    # has no blocks, so it renders, formats and counts as nothing.
    assert Msg("user", "", "user").get_content_blocks() == []


def test_has_content_blocks() -> None:
    msg = _multimodal_msg()
    assert msg.has_content_blocks("image")
    assert msg.has_content_blocks("audio")
    assert not msg.has_content_blocks("tool_result")
    assert msg.has_content_blocks()  # any block
    assert Msg("user", "hi", "user").has_content_blocks("text")


def test_to_dict_and_from_dict_round_trip_every_block() -> None:
    msg = _multimodal_msg()
    msg.metadata["source"] = "test"
    data = msg.to_dict()
    assert json.loads(json.dumps(data)) == data  # JSON-able
    assert {"id", "name", "role", "content", "metadata", "timestamp"} <= set(data)
    assert data["content"][1] == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.com/cat.png"},
    }
    again = Msg.from_dict(data)
    assert again == msg
    assert again.id == msg.id and again.timestamp == msg.timestamp
    assert isinstance(again.content[2]["source"], Base64Source)
    assert MsgListAdapter.validate_json(MsgListAdapter.dump_json([msg])) == [msg]


def test_from_dict_loads_what_agentscope_writes() -> None:
    # The shape AgentScope's Msg.to_dict() produces (no invocation_id key).
    data = {
        "id": "abc123",
        "name": "Friday",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_1", "name": "search", "input": {"q": "x"}},
        ],
        "metadata": {},
        "timestamp": "2025-06-01 12:00:00.000",
    }
    msg = Msg.from_dict(data)
    assert msg.id == "abc123"
    assert msg.get_content_blocks("tool_use")[0]["input"] == {"q": "x"}
    assert msg.invocation_id is None
    assert Msg.from_dict({"name": "u", "content": "hi", "role": "user"}).metadata == {}


def test_copies_keep_blocks_validated() -> None:
    msg = _multimodal_msg()
    clone = copy.deepcopy(msg)
    assert clone == msg
    clone.content.append({"type": "text", "text": "more"})
    assert isinstance(clone.content[-1], TextBlock)
    assert len(msg.content) == 4


def test_content_block_union_validates_each_type() -> None:
    from pydantic import TypeAdapter

    adapter: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock)
    for raw in (
        {"type": "text", "text": "t"},
        {"type": "thinking", "thinking": "t"},
        {"type": "tool_use", "id": "1", "name": "f", "input": {}},
        {"type": "tool_result", "id": "1", "name": "f", "output": "o"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
        {"type": "audio", "source": {"type": "url", "url": "https://x/a.wav"}},
        {"type": "video", "source": {"type": "url", "url": "https://x/v.mp4"}},
    ):
        assert adapter.validate_python(raw) == raw


def test_blocks_are_dicts_that_json_dumps_writes_as_agentscope_does() -> None:
    # AgentScope's quickstart_message: json.dumps(msg.content) with the standard library.
    msg = Msg(
        "Jarvis",
        [
            TextBlock(type="text", text="hi"),
            ImageBlock(
                type="image",
                source=Base64Source(type="base64", media_type="image/png", data="AA=="),
            ),
            ToolUseBlock(type="tool_use", id="343", name="get_weather", input={"city": "Rome"}),
            ToolResultBlock(type="tool_result", id="343", name="get_weather", output="Sunny"),
        ],
        "assistant",
    )
    assert all(isinstance(b, dict) for b in msg.content)
    assert json.loads(json.dumps(msg.content)) == [
        {"type": "text", "text": "hi"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
        {"type": "tool_use", "id": "343", "name": "get_weather", "input": {"city": "Rome"}},
        {"type": "tool_result", "id": "343", "name": "get_weather", "output": "Sunny"},
    ]
    assert json.dumps(msg.content[0]) == '{"type": "text", "text": "hi"}'
    assert json.loads(json.dumps(msg.to_dict()))["content"] == json.loads(json.dumps(msg.content))
    # nb_hitl's flags appear once they are set, and read their default otherwise
    result = msg.content[3]
    assert result.is_error is False and "is_error" not in result
    result.is_error = True
    assert json.loads(json.dumps(result))["is_error"] is True
