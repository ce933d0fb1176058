"""Content blocks are dicts (``json.dumps`` writes them) that stay validated and typed."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

import nb_hitl.message._blocks as blocks_module
from nb_hitl.message import (
    Base64Source,
    ContentBlock,
    ImageBlock,
    Msg,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)


def test_json_dumps_of_a_content_list_needs_nothing_but_the_standard_library() -> None:
    msg = Msg(
        "Jarvis",
        [
            TextBlock(type="text", text="hello"),
            ToolUseBlock(id="c1", name="get_weather", input={"city": "Rome"}),
            {"type": "image", "source": {"type": "url", "url": "https://x/cat.png"}},
        ],
        "assistant",
    )
    assert json.loads(json.dumps(msg.content)) == [
        {"type": "text", "text": "hello"},
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Rome"}},
        {"type": "image", "source": {"type": "url", "url": "https://x/cat.png"}},
    ]
    image = msg.content[2]
    assert isinstance(image, ImageBlock) and image.source.url == "https://x/cat.png"
    assert msg.content[1]["input"]["city"] == "Rome" and msg.content[1].name == "get_weather"


def test_blocks_validate_when_made_and_when_a_key_is_set() -> None:
    with pytest.raises(ValidationError, match="text"):
        TextBlock(type="text")
    with pytest.raises(ValidationError, match="Extra inputs"):
        TextBlock(type="text", text="a", colour="red")
    with pytest.raises(ValidationError, match="'text'"):
        TextBlock(type="thinking", text="a")
    block = TextBlock(text="a")
    with pytest.raises(ValidationError, match="valid string"):
        block["text"] = 3
    with pytest.raises(ValidationError, match="valid string"):
        block.text = 3  # type: ignore[assignment]
    with pytest.raises(KeyError, match="has no key 'colour'"):
        block["colour"] = "red"
    with pytest.raises(ValidationError):
        ImageBlock(source={"type": "ftp", "url": "x"})
    assert block == {"type": "text", "text": "a"}


def test_optional_keys_and_nb_hitl_flags_are_absent_until_set() -> None:
    call = ToolUseBlock(id="c1", name="f", raw_input='{"ci')
    assert call["raw_input"] == '{"ci' and call.input == {}
    call.raw_input = None
    assert "raw_input" not in call and call.raw_input is None
    result = ToolResultBlock(id="c1", name="f", output=[{"type": "text", "text": "ok"}])
    assert result == {
        "type": "tool_result",
        "id": "c1",
        "name": "f",
        "output": [TextBlock(text="ok")],
    }
    assert (result.is_error, result.is_interrupted) == (False, False)
    result.is_interrupted = True
    assert result["is_interrupted"] is True and isinstance(result.output[0], TextBlock)


def test_copies_keep_the_class_and_the_validation() -> None:
    result = ToolResultBlock(id="c1", name="f", output=[TextBlock(text="ok")], is_error=True)
    for twin in (result.copy(), copy.copy(result), copy.deepcopy(result)):
        assert type(twin) is ToolResultBlock and twin == result
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is ToolResultBlock and type(again.output[0]) is TextBlock
    deep = copy.deepcopy(result)
    assert deep.output[0] is not result.output[0]
    edited = ToolUseBlock(id="1", name="f", raw_input="{").model_copy(
        update={"input": {"a": 1}, "raw_input": None}
    )
    assert edited == {"type": "tool_use", "id": "1", "name": "f", "input": {"a": 1}}


def test_sessions_of_todays_schema_load_and_round_trip() -> None:
    # what the pydantic blocks wrote: every key, None and the flags' defaults included
    saved = {
        "name": "Friday",
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "c1", "name": "f", "input": {"q": 1}, "raw_input": None},
            {
                "type": "tool_result",
                "id": "c1",
                "name": "f",
                "output": [{"type": "text", "text": "r"}],
                "is_error": False,
                "is_interrupted": False,
            },
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "AA=="},
            },
        ],
        "metadata": {},
        "id": "m1",
        "timestamp": "2026-01-01T00:00:00.000+00:00",
    }
    msg = Msg.from_dict(saved)
    assert [type(b) for b in msg.content] == [ToolUseBlock, ToolResultBlock, ImageBlock]
    assert isinstance(msg.content[2].source, Base64Source)
    assert Msg.from_dict(msg.to_dict()) == msg
    assert Msg.model_validate_json(msg.model_dump_json()) == msg


def test_a_pydantic_model_holding_blocks_validates_and_dumps_them() -> None:
    class Holder(BaseModel):
        blocks: list[ContentBlock]
        call: ToolUseBlock | None = None

    held = Holder(
        blocks=[{"type": "text", "text": "x"}], call={"type": "tool_use", "id": "1", "name": "f"}
    )
    assert isinstance(held.blocks[0], TextBlock) and isinstance(held.call, ToolUseBlock)
    assert held.model_dump(mode="json") == {
        "blocks": [{"type": "text", "text": "x"}],
        "call": {"type": "tool_use", "id": "1", "name": "f", "input": {}},
    }
    with pytest.raises(ValidationError, match="picture"):
        Holder(blocks=[{"type": "picture"}])


def test_the_blocks_module_imports_without_pydantic() -> None:
    # it depends on nothing of nb_hitl's: load the file alone and look at what came in
    path = str(Path(blocks_module.__file__))
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('blocks_alone', {path!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "module.TextBlock(text='hi')\n"
        "print('pydantic' in sys.modules, 'pydantic_core' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
