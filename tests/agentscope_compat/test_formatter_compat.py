"""AgentScope 1.x formatter code (``OpenAIChatFormatter``, ``DashScopeChatFormatter``) run
after renaming the imports.

Written from AgentScope 1.0.21's documented output format, in its calling style. Differences
kept on purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import base64
import inspect
from pathlib import Path

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import ConfigError
from nb_hitl.formatter import DashScopeChatFormatter, FormatterBase, OpenAIChatFormatter
from nb_hitl.formatter._formatter_base import _save_base64_data
from nb_hitl.message import (
    AudioBlock,
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)
from nb_hitl.model import ScriptedModel
from nb_hitl.testing import assert_prompt_valid

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
WAV_B64 = base64.b64encode(b"fake audio content").decode()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    image = tmp_path / "image.png"
    image.write_bytes(PNG)
    audio = tmp_path / "audio.wav"
    audio.write_bytes(b"fake audio content")
    return {"image": str(image), "audio": str(audio)}


def _conversation(files: dict[str, str]) -> list[Msg]:
    return [
        Msg("system", "You're a helpful assistant.", "system"),
        Msg(
            "user",
            [
                TextBlock(type="text", text="What is the capital of France?"),
                ImageBlock(type="image", source=URLSource(type="url", url=files["image"])),
            ],
            "user",
        ),
        Msg("assistant", "The capital of France is Paris.", "assistant"),
        Msg(
            "user",
            [
                TextBlock(type="text", text="And Germany?"),
                AudioBlock(type="audio", source=URLSource(type="url", url=files["audio"])),
            ],
            "user",
        ),
    ]


def _tool_turn(files: dict[str, str]) -> list[Msg]:
    return [
        Msg(
            "assistant",
            [ToolUseBlock(type="tool_use", id="1", name="get_capital", input={"country": "Japan"})],
            "assistant",
        ),
        Msg(
            "system",
            [
                ToolResultBlock(
                    type="tool_result",
                    id="1",
                    name="get_capital",
                    output=[
                        TextBlock(type="text", text="The capital of Japan is Tokyo."),
                        ImageBlock(type="image", source=URLSource(type="url", url=files["image"])),
                        AudioBlock(
                            type="audio",
                            source=Base64Source(
                                type="base64", media_type="audio/wav", data=WAV_B64
                            ),
                        ),
                    ],
                )
            ],
            "system",
        ),
        Msg("assistant", "The capital of Japan is Tokyo.", "assistant"),
    ]


CAPITAL_CALL = {
    "id": "1",
    "type": "function",
    "function": {"name": "get_capital", "arguments": '{"country": "Japan"}'},
}
"""The tool call of ``_tool_turn`` as both formatters send it."""


def saved_audio() -> str:
    """Where the tool result's base64 audio is saved (by its content, once)."""
    return _save_base64_data("audio/wav", WAV_B64)


def _capital_result(files: dict[str, str]) -> dict[str, str]:
    """The tool message of ``_tool_turn`` as both formatters send it."""
    return {
        "role": "tool",
        "tool_call_id": "1",
        # As AgentScope, base64 media are written to a file that the line names (differs on
        # purpose: named by content and written once, not a new temp file per format call).
        "content": "- The capital of Japan is Tokyo.\n"
        f"- The returned image can be found at: {files['image']}\n"
        f"- The returned audio can be found at: {saved_audio()}",
        "name": "get_capital",
    }


async def test_openai_chat_formatter_output(files: dict[str, str]) -> None:
    formatter = OpenAIChatFormatter()
    assert inspect.iscoroutinefunction(formatter.format)
    res = await formatter.format([*_conversation(files), *_tool_turn(files)])
    png_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert res == [
        {
            "role": "system",
            "name": "system",
            "content": [{"type": "text", "text": "You're a helpful assistant."}],
        },
        {
            "role": "user",
            "name": "user",
            "content": [
                {"type": "text", "text": "What is the capital of France?"},
                {"type": "image_url", "image_url": {"url": png_url}},
            ],
        },
        {
            "role": "assistant",
            "name": "assistant",
            "content": [{"type": "text", "text": "The capital of France is Paris."}],
        },
        {
            "role": "user",
            "name": "user",
            "content": [
                {"type": "text", "text": "And Germany?"},
                {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
            ],
        },
        {
            "role": "assistant",
            "name": "assistant",
            "content": None,  # a tool-call-only reply
            "tool_calls": [CAPITAL_CALL],
        },
        _capital_result(files),
        {
            "role": "assistant",
            "name": "assistant",
            "content": [{"type": "text", "text": "The capital of Japan is Tokyo."}],
        },
    ]
    assert_prompt_valid(res)


async def test_openai_formatter_details(files: dict[str, str]) -> None:
    formatter = OpenAIChatFormatter()
    msgs = [
        Msg(
            "assistant",
            [
                ThinkingBlock(type="thinking", thinking="hmm"),
                TextBlock(type="text", text="Here you go."),
                AudioBlock(type="audio", source=Base64Source(media_type="audio/wav", data="AA==")),
                VideoBlock(type="video", source=URLSource(url="https://x/v.mp4")),
            ],
            "assistant",
        ),
        Msg(
            "user",
            [ImageBlock(type="image", source=URLSource(url="https://example.com/cat.png"))],
            "user",
        ),
        Msg("user", [ThinkingBlock(type="thinking", thinking="only")], "user"),
    ]
    res = await formatter.format(msgs)
    # thinking, video and an assistant's own audio are not sent; a web image goes by URL;
    # a message with nothing to send is left out.
    assert res == [
        {
            "role": "assistant",
            "name": "assistant",
            "content": [{"type": "text", "text": "Here you go."}],
        },
        {
            "role": "user",
            "name": "user",
            "content": [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}],
        },
    ]


async def test_openai_formatter_promotes_tool_result_images(files: dict[str, str]) -> None:
    res = await OpenAIChatFormatter(promote_tool_result_images=True).format(_tool_turn(files)[:2])
    assert [m["role"] for m in res] == ["assistant", "tool", "user"]
    promoted = res[2]["content"]
    assert promoted[0]["text"].startswith("<system-info>The following are the image contents")
    assert "'get_capital'" in promoted[0]["text"]
    assert promoted[1] == {"type": "text", "text": f"\n- The image from '{files['image']}': "}
    assert promoted[2]["type"] == "image_url"
    assert promoted[2]["image_url"]["url"].startswith("data:image/png;base64,")
    assert promoted[-1] == {"type": "text", "text": "</system-info>"}


async def test_media_errors_are_clear(files: dict[str, str], tmp_path: Path) -> None:
    formatter = OpenAIChatFormatter()
    web_audio = Msg("user", [AudioBlock(source=URLSource(url="https://x/a.wav"))], "user")
    # differs on purpose: AgentScope downloads web audio inside format(); nb_hitl does no
    # network I/O while formatting and says what to pass instead.
    with pytest.raises(ValueError, match="Base64Source"):
        await formatter.format([web_audio])
    ogg = Msg(
        "user", [AudioBlock(source=Base64Source(media_type="audio/ogg", data="AA=="))], "user"
    )
    with pytest.raises(TypeError, match="audio/wav"):
        await formatter.format([ogg])
    missing = Msg("user", [ImageBlock(source=URLSource(url=str(tmp_path / "nope.png")))], "user")
    with pytest.raises(ValueError, match="Invalid image URL"):
        await formatter.format([missing])
    with pytest.raises(TypeError, match="list of Msg"):
        await formatter.format("hello")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Expected Msg"):
        await formatter.format([{"role": "user", "content": "hi"}])  # type: ignore[list-item]


def test_truncation_is_refused_with_a_pointer_to_compression() -> None:
    # differs on purpose: AgentScope drops the oldest messages past max_tokens; nb_hitl keeps
    # long histories in budget by summarising them (CompressionConfig).
    with pytest.raises(ConfigError, match="CompressionConfig"):
        OpenAIChatFormatter(max_tokens=1000)
    with pytest.raises(ConfigError, match="CompressionConfig"):
        DashScopeChatFormatter(max_tokens=1000)


async def test_names_the_api_would_reject_are_made_valid() -> None:
    # differs on purpose: AgentScope sends "Ann Lee", which the OpenAI API rejects (HTTP 400).
    res = await OpenAIChatFormatter().format([Msg("Ann Lee", "hi", "user")])
    assert res[0]["name"] == "Ann_Lee"


async def test_plain_content_is_what_strict_servers_take() -> None:
    msgs = [
        Msg("system", "Be brief.", "system"),
        Msg("Ann", [TextBlock(text="one"), TextBlock(text="two")], "user"),
        Msg("Friday", [ToolUseBlock(id="c1", name="calc", input={"e": "2+2"})], "assistant"),
        Msg("system", [ToolResultBlock(id="c1", name="calc", output="4")], "system"),
    ]
    res = await OpenAIChatFormatter(plain_content=True).format(msgs)
    assert res == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "one\ntwo", "name": "Ann"},
        {
            "role": "assistant",
            "content": "",  # llama.cpp's server rejects null next to tool calls
            "name": "Friday",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "calc", "arguments": '{"e": "2+2"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "4"},
    ]
    image = Msg(
        "u", [TextBlock(text="look"), ImageBlock(source=URLSource(url="https://x/y.png"))], "user"
    )
    (entry,) = await OpenAIChatFormatter(plain_content=True).format([image])
    assert entry["content"][1] == {"type": "image_url", "image_url": {"url": "https://x/y.png"}}


def test_react_agent_without_a_formatter_uses_the_strict_server_format() -> None:
    agent = ReActAgent("Friday", "sys", ScriptedModel(["ok"]))
    assert isinstance(agent.formatter, OpenAIChatFormatter)
    assert agent.formatter.plain_content
    given = OpenAIChatFormatter()
    assert ReActAgent("Friday", "sys", ScriptedModel(["ok"]), formatter=given).formatter is given


async def test_agent_runs_with_agentscope_formatter_output() -> None:
    model = ScriptedModel(
        [{"text": "Let me add.", "tool_calls": [{"name": "add", "input": {"a": 1, "b": 2}}]}, "3."]
    )
    from nb_hitl.tool import Toolkit

    def add(a: int, b: int) -> str:
        """Add two numbers.

        Args:
            a: first.
            b: second.
        """
        return str(a + b)

    toolkit = Toolkit()
    toolkit.register_tool_function(add)
    agent = ReActAgent("Friday", "sys", model, toolkit=toolkit, formatter=OpenAIChatFormatter())
    reply = await agent(Msg("user", "What is 1+2?", "user"))
    assert reply.get_text_content() == "3."
    second = model.prompts[1]
    assert second[1] == {
        "role": "user",
        "name": "user",
        "content": [{"type": "text", "text": "What is 1+2?"}],
    }
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": second[-2]["tool_calls"][0]["id"],
        "content": "3",
        "name": "add",
    }


async def test_dashscope_chat_formatter_output(files: dict[str, str]) -> None:
    formatter = DashScopeChatFormatter()
    assert isinstance(formatter, FormatterBase)
    res = await formatter.format(
        [
            Msg("system", "You're a helpful assistant.", "system"),
            Msg(
                "user",
                [
                    TextBlock(type="text", text="What is this?"),
                    ImageBlock(type="image", source=URLSource(type="url", url="https://x/cat.png")),
                    VideoBlock(type="video", source=URLSource(type="url", url="https://x/v.mp4")),
                ],
                "user",
            ),
            Msg("assistant", [TextBlock(text="a"), TextBlock(text="b")], "assistant"),
            *_tool_turn(files),
        ]
    )
    assert res == [
        {"role": "system", "content": "You're a helpful assistant."},
        {
            "role": "user",
            "content": [
                {"text": "What is this?"},
                {"image": "https://x/cat.png"},
                {"video": "https://x/v.mp4"},
            ],
        },
        {"role": "assistant", "content": "a\nb"},
        {
            "role": "assistant",
            "content": [],  # DashScope's vision models fail on None
            "tool_calls": [CAPITAL_CALL],
        },
        _capital_result(files),
        {"role": "assistant", "content": "The capital of Japan is Tokyo."},
    ]


async def test_dashscope_inlines_local_and_base64_media(files: dict[str, str]) -> None:
    msg = Msg(
        "user",
        [
            ImageBlock(source=URLSource(url=files["image"])),
            AudioBlock(source=Base64Source(media_type="audio/wav", data=WAV_B64)),
        ],
        "user",
    )
    (entry,) = await DashScopeChatFormatter().format([msg])
    assert entry["content"] == [
        {"image": "data:image/png;base64," + base64.b64encode(PNG).decode()},
        {"audio": f"data:audio/wav;base64,{WAV_B64}"},
    ]
    res = await DashScopeChatFormatter(promote_tool_result_audios=True).format(
        _tool_turn(files)[:2]
    )
    assert res[-1]["role"] == "user"
    assert res[-1]["content"][0]["text"].startswith("<system-info>The following are the media")
    # promoted from the saved file, whose .wav name reads back as audio/x-wav
    assert {"audio": f"data:audio/x-wav;base64,{WAV_B64}"} in res[-1]["content"]
