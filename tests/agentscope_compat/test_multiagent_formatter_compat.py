"""AgentScope 1.x multi-agent formatter code (``OpenAIMultiAgentFormatter``,
``DashScopeMultiAgentFormatter``) run after renaming the imports.

Written from AgentScope 1.0.21's documented behaviour: the conversation (without tool calls)
is folded into ``<history>`` user messages of ``name: text`` lines, the first one headed by
``conversation_history_prompt``; tool calls and results stay structured messages.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import ConfigError
from nb_hitl.formatter import (
    DashScopeMultiAgentFormatter,
    FormatterBase,
    OpenAIMultiAgentFormatter,
)
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
)
from nb_hitl.model import ScriptedModel
from nb_hitl.pipeline import MsgHub
from nb_hitl.testing import assert_prompt_valid

PROMPT = (
    "# Conversation History\n"
    "The content between <history></history> tags contains your conversation history\n"
)
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
WAV_B64 = base64.b64encode(b"fake audio content").decode()
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
TOOL_MSG = {
    "role": "tool",
    "tool_call_id": "call_1",
    "content": "Sunny, 25C",
    "name": "get_weather",
}


@pytest.fixture
def image(tmp_path: Path) -> str:
    path = tmp_path / "image.png"
    path.write_bytes(PNG)
    return str(path)


def _conversation(image: str) -> list[Msg]:
    return [
        Msg("system", "You're Bob, in a chat with Alice and Carol.", "system"),
        Msg(
            "Alice",
            [
                TextBlock(type="text", text="Hi all, look at this."),
                ImageBlock(type="image", source=URLSource(type="url", url=image)),
            ],
            "user",
        ),
        Msg(
            "Bob",
            [
                ThinkingBlock(type="thinking", thinking="A picture."),
                TextBlock(type="text", text="Nice picture, Alice."),
            ],
            "assistant",
        ),
        Msg(
            "Bob",
            [
                ToolUseBlock(
                    type="tool_use", id="call_1", name="get_weather", input={"city": "Paris"}
                )
            ],
            "assistant",
        ),
        Msg(
            "system",
            [
                ToolResultBlock(
                    type="tool_result", id="call_1", name="get_weather", output="Sunny, 25C"
                )
            ],
            "system",
        ),
        Msg("Bob", "It is sunny in Paris.", "assistant"),
        Msg(
            "Carol",
            [
                TextBlock(type="text", text="Thanks!"),
                AudioBlock(
                    type="audio",
                    source=Base64Source(type="base64", media_type="audio/wav", data=WAV_B64),
                ),
            ],
            "user",
        ),
    ]


async def test_openai_multiagent_formatter_output(image: str) -> None:
    formatter = OpenAIMultiAgentFormatter()
    assert isinstance(formatter, FormatterBase)
    assert formatter.support_multiagent and formatter.support_tools_api
    res = await formatter.format(_conversation(image))
    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert res == [
        {
            "role": "system",
            "content": [{"type": "text", "text": "You're Bob, in a chat with Alice and Carol."}],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": PROMPT + "<history>\nAlice: Hi all, look at this.\n"
                    "Bob: Nice picture, Alice.\n</history>",
                },
                {"type": "image_url", "image_url": {"url": png}},
            ],
        },
        {"role": "assistant", "name": "Bob", "content": None, "tool_calls": [CALL]},
        TOOL_MSG,
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<history>\nBob: It is sunny in Paris.\nCarol: Thanks!\n</history>",
                },
                {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
            ],
        },
    ]


async def test_dashscope_multiagent_formatter_output(image: str) -> None:
    formatter = DashScopeMultiAgentFormatter()
    assert formatter.support_multiagent
    res = await formatter.format(_conversation(image))
    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert res == [
        {"role": "system", "content": "You're Bob, in a chat with Alice and Carol."},
        {
            "role": "user",
            "content": [  # media stays where it was said
                {"text": PROMPT + "<history>\nAlice: Hi all, look at this."},
                {"image": png},
                {"text": "Bob: Nice picture, Alice.\n</history>"},
            ],
        },
        {"role": "assistant", "content": [], "tool_calls": [CALL]},
        TOOL_MSG,
        {
            "role": "user",
            "content": [
                {"text": "<history>\nBob: It is sunny in Paris.\nCarol: Thanks!"},
                {"audio": f"data:audio/wav;base64,{WAV_B64}"},
                {"text": "</history>"},
            ],
        },
    ]


async def test_dashscope_all_text_history_is_one_string() -> None:
    msgs = [Msg("Alice", "Hi", "user"), Msg("Bob", "Hello", "assistant")]
    res = await DashScopeMultiAgentFormatter(conversation_history_prompt="").format(msgs)
    assert res == [{"role": "user", "content": "<history>\nAlice: Hi\nBob: Hello\n</history>"}]


async def test_media_first_gets_its_own_history_heading() -> None:
    url = "https://example.com/cat.png"
    msgs = [Msg("Alice", [ImageBlock(type="image", source=URLSource(type="url", url=url))], "user")]
    assert await DashScopeMultiAgentFormatter().format(msgs) == [
        {
            "role": "user",
            "content": [{"text": PROMPT + "<history>\n"}, {"image": url}, {"text": "</history>"}],
        }
    ]
    # AgentScope's OpenAI variant heads only text: an image alone is sent without the tags.
    assert await OpenAIMultiAgentFormatter().format(msgs) == [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
    ]


async def test_only_the_first_history_block_has_the_prompt_and_system_only_leading() -> None:
    msgs = [
        Msg("Alice", "Start", "user"),
        Msg("system", "A later system message is part of the history.", "system"),
    ]
    (entry,) = await OpenAIMultiAgentFormatter(conversation_history_prompt="# H\n").format(msgs)
    assert entry["content"][0]["text"] == (
        "# H\n<history>\nAlice: Start\nsystem: A later system message is part of the history."
        "\n</history>"
    )
    assert await OpenAIMultiAgentFormatter().format([]) == []


async def test_tool_sequences_keep_promoted_images() -> None:
    url = "https://example.com/chart.png"
    result = ToolResultBlock(
        type="tool_result",
        id="c1",
        name="plot",
        output=[ImageBlock(type="image", source=URLSource(type="url", url=url))],
    )
    msgs = [
        Msg("Bob", [ToolUseBlock(type="tool_use", id="c1", name="plot", input={})], "assistant"),
        Msg("system", [result], "system"),
    ]
    res = await OpenAIMultiAgentFormatter(promote_tool_result_images=True).format(msgs)
    assert res[1]["content"] == f"The returned image can be found at: {url}"
    assert res[2]["role"] == "user"
    assert {"type": "image_url", "image_url": {"url": url}} in res[2]["content"]
    res = await DashScopeMultiAgentFormatter(promote_tool_result_images=True).format(msgs)
    assert {"image": url} in res[2]["content"]


def test_truncation_is_refused() -> None:
    # differs on purpose: no max_tokens truncation (nb_hitl compresses instead; see README).
    with pytest.raises(ConfigError, match="compression_config"):
        OpenAIMultiAgentFormatter(max_tokens=100)
    with pytest.raises(ConfigError, match="compression_config"):
        DashScopeMultiAgentFormatter(max_tokens=100)


async def test_bad_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="list of Msg"):
        await OpenAIMultiAgentFormatter().format("hello")  # type: ignore[arg-type]


async def test_agents_in_a_msghub_see_each_other_in_the_history() -> None:
    alice_model = ScriptedModel(["I think it will rain."])
    bob_model = ScriptedModel(["Then take an umbrella."])
    alice = ReActAgent("Alice", "You're Alice.", alice_model, formatter=OpenAIMultiAgentFormatter())
    bob = ReActAgent("Bob", "You're Bob.", bob_model, formatter=OpenAIMultiAgentFormatter())
    async with MsgHub(participants=[alice, bob], announcement=Msg("Host", "Weather?", "user")):
        await alice()
        await bob()
    prompt = bob_model.prompts[0]
    assert_prompt_valid(prompt)
    assert prompt == [
        {"role": "system", "content": [{"type": "text", "text": "You're Bob."}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": PROMPT + "<history>\nHost: Weather?\nAlice: I think it will rain."
                    "\n</history>",
                }
            ],
        },
    ]
