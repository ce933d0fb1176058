"""Qwen models count with Qwen's own vocabulary (the dashscope SDK's file), exactly and offline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.token import TokenCounter, VocabularyUnavailable
from nb_hitl.token._qwen import QwenTokenCounter, load_qwen_encoding

dashscope = pytest.importorskip(
    "dashscope", reason='the test extra installs it: pip install -e ".[test]"'
)

TEXTS = [
    "How does interrupting an agent work?",
    "你好，世界！我们来测试一下中文分词，看看每个字算几个 token。",
    "Mixed: 注册量在第 12 周下降了 18.5%，主要原因是 iOS 上的 captcha_v3。",
    'def weekly(df):\n    """每周注册"""\n    return df.groupby("week")["signups"].sum()  # 求和\n',
    "SELECT week, COUNT(*) AS n FROM signups WHERE device = 'ios' GROUP BY 1 ORDER BY 1;",
    '{"query": "captcha", "limit": 3, "tags": ["注册", "移动端"]}',
    "Café, naïve, e\u0301tude, ＡＢＣ全角, emoji 🎉🚀, tabs\tand\r\nnewlines\n\n\n",
    "special-token text in content: <|im_start|>user <|endoftext|>",
    "长" * 3000 + "\n" + "word " * 25_000,  # > 100,000 characters: the SDK's chunking
]
MODELS = ["qwen-max", "qwen-plus", "qwen-turbo", "qwen2.5-72b-instruct", "Qwen3-32B"]


@pytest.mark.parametrize("model", MODELS)
def test_text_counts_equal_dashscope_tokenizer(model: str, no_network: list[str]) -> None:
    counter = TokenCounter(model=model)
    assert isinstance(counter, QwenTokenCounter)
    assert counter.exact is True and counter.encoding_name == "qwen"
    reference = dashscope.get_tokenizer(model.lower())  # the SDK only knows lower-case names
    for text in TEXTS:
        assert counter.count_text(text) == len(reference.encode(text)), text[:40]
    assert no_network == []


def test_o200k_would_count_chinese_differently() -> None:
    # Why the model's own vocabulary matters: the OpenAI encoding is off on Chinese text.
    qwen, openai = TokenCounter(model="qwen-max"), TokenCounter()
    assert qwen.count_text(TEXTS[1]) != openai.count_text(TEXTS[1])


def chatml(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """Qwen's chat template (Qwen2.5 chat_template), written out by hand for the test."""
    out = ""
    for i, m in enumerate(messages):
        content = m.get("content") or ""
        if m["role"] == "system" and i == 0:
            block = content
            if tools:
                block += (
                    "\n\n# Tools\n\nYou may call one or more functions to assist with the user "
                    "query.\n\nYou are provided with function signatures within <tools></tools> "
                    "XML tags:\n<tools>"
                )
                block += "".join("\n" + json.dumps(t, ensure_ascii=False) for t in tools)
                block += (
                    "\n</tools>\n\nFor each function call, return a json object with function "
                    "name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
                )
            out += f"<|im_start|>system\n{block}<|im_end|>\n"
        elif m["role"] == "assistant" and m.get("tool_calls"):
            out += "<|im_start|>assistant" + (f"\n{content}" if content else "")
            for call in m["tool_calls"]:
                f = call["function"]
                out += (
                    f'\n<tool_call>\n{{"name": "{f["name"]}", "arguments": {f["arguments"]}}}'
                    "\n</tool_call>"
                )
            out += "<|im_end|>\n"
        elif m["role"] == "tool":
            out += f"<|im_start|>user\n<tool_response>\n{content}\n</tool_response><|im_end|>\n"
        else:
            out += f"<|im_start|>{m['role']}\n{content}<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


def test_a_chat_prompt_counts_as_qwens_chat_template_renders_it() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "run_sql",
                "description": "运行 SQL 查询 (read-only).",
                "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}},
            },
        }
    ]
    messages = [
        {"role": "system", "content": "You are a careful data analyst. 用中文回答"},
        {"role": "user", "content": TEXTS[2], "name": "Maya"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "run_sql", "arguments": '{"sql": "SELECT 1"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "week | n\n2026-W12 | 1830"},
        {"role": "assistant", "content": TEXTS[3], "name": "Analyst"},
    ]
    counter = TokenCounter(model="qwen-max")
    reference = dashscope.get_tokenizer("qwen-max")
    assert counter.count_sync(messages) == len(reference.encode(chatml(messages, None)))
    assert counter.count_sync(messages, tools) == len(reference.encode(chatml(messages, tools)))
    # A system prompt ending in punctuation merges with the tool block's line breaks in the
    # real rendering; the tool block is counted on its own, at most one token over.
    messages[0]["content"] += "。"
    full = len(reference.encode(chatml(messages, tools)))
    assert 0 <= counter.count_sync(messages, tools) - full <= 1
    messages[1]["content"] = "\n  leading white space and a trailing line break\n"
    messages[0]["content"] = messages[0]["content"][:-1]
    assert counter.count_sync(messages, tools) == len(reference.encode(chatml(messages, tools)))


def test_without_dashscope_the_counter_says_it_is_not_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "dashscope", None)  # as if it were not installed
    counter = TokenCounter(model="qwen-max")
    assert counter.count_text("hello world") > 0
    assert counter.exact is False
    assert 'pip install "nb-hitl[dashscope]"' in str(counter.fallback_reason)
    assert counter.encoding_name == "o200k_base"


def test_a_changed_vocabulary_file_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "qwen.tiktoken"
    fake.write_bytes(b"YQ== 0\n")
    with pytest.raises(VocabularyUnavailable, match="not the Qwen vocabulary nb_hitl knows"):
        load_qwen_encoding(str(fake))
