"""OpenAIChatFormatter(plain_content=True), ReActAgent's default: names, tool calls, results."""

from __future__ import annotations

from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.message import Msg, ThinkingBlock, ToolResultBlock, ToolUseBlock
from nb_hitl.testing import assert_prompt_valid


async def test_full_history_formats_to_valid_openai_messages() -> None:
    msgs = [
        Msg("system", "Be brief.", "system"),
        Msg("Ann Lee", "What's 2+2?", "user"),
        Msg(
            "Friday",
            [
                ThinkingBlock(thinking="easy"),
                ToolUseBlock(id="c1", name="calc", input={"e": "2+2"}),
            ],
            "assistant",
        ),
        Msg("system", [ToolResultBlock(id="c1", name="calc", output="4")], "system"),
        Msg("Friday", "It is 4.", "assistant"),
    ]
    out = await OpenAIChatFormatter(plain_content=True).format(msgs)
    assert out == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What's 2+2?", "name": "Ann_Lee"},
        {
            "role": "assistant",
            "content": "",
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
        {"role": "assistant", "content": "It is 4.", "name": "Friday"},
    ]
    assert_prompt_valid(out)


def test_names_can_be_left_out_and_invalid_arguments_are_sent_verbatim() -> None:
    msg = Msg("Friday", [ToolUseBlock(id="c1", name="f", raw_input='{"a": ')], "assistant")
    out = OpenAIChatFormatter(include_names=False, plain_content=True).format_sync([msg])
    assert "name" not in out[0]
    assert out[0]["tool_calls"][0]["function"]["arguments"] == '{"a": '
