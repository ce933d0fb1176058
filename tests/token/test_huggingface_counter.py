"""HuggingFaceTokenCounter with a tokenizer built here by ``tokenizers`` (no hub, no network)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from nb_hitl.exceptions import ConfigError
from nb_hitl.token import HuggingFaceTokenCounter, as_token_counter

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if tools %}<|im_start|>tools\n{{ tools | tojson }}<|im_end|>\n{% endif %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WORDS = "hello hi how can i help you you're a helpful assistant named friday the weather"


def build_tokenizer(folder: Path, template: str | None = CHATML) -> Path:
    """A word-level tokenizer over a tiny vocabulary, saved as a hub folder would hold it."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "<|im_start|>": 1, "<|im_end|>": 2}
    for word in [*WORDS.split(), "user", "assistant", "system", "tools", "!", "?", ",", "."]:
        vocab.setdefault(word, len(vocab))
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens(["<|im_start|>", "<|im_end|>"])
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config: dict[str, object] = {"eos_token": "<|im_end|>"}
    if template is not None:
        config["chat_template"] = template
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder


MESSAGES = [
    {"role": "user", "content": "Hello!"},
    {"role": "assistant", "content": "Hi, how can I help you?"},
]


@pytest.fixture(autouse=True)
def no_transformers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # the tokenizers path, always
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))


async def test_counts_the_chat_template_rendered_by_the_local_tokenizer(tmp_path: Path) -> None:
    counter = HuggingFaceTokenCounter(str(build_tokenizer(tmp_path / "tok")), use_mirror=False)
    # <|im_start|> user \n Hello ! <|im_end|> \n ... : the special tokens, role and words
    assert await counter.count(MESSAGES) == 5 + 11
    tools = [{"type": "function", "function": {"name": "weather"}}]
    assert await counter.count(MESSAGES, tools=tools) > await counter.count(MESSAGES)
    # nb_hitl's compression counts with it too (it never waits)
    adapter = as_token_counter(counter)
    assert adapter.count_sync(MESSAGES) == 16


async def test_a_hub_name_is_read_from_the_cache_and_never_downloaded(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="never downloads") as caught:
        HuggingFaceTokenCounter("Qwen/Qwen2.5-VL-3B-Instruct")
    assert "hf download Qwen/Qwen2.5-VL-3B-Instruct" in str(caught.value)
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen2.5-VL-3B-Instruct" / "snapshots" / "abc"
    build_tokenizer(snapshot)
    counter = HuggingFaceTokenCounter("Qwen/Qwen2.5-VL-3B-Instruct")
    assert await counter.count(MESSAGES) == 16


def test_a_tokenizer_without_chat_template_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not have chat template"):
        HuggingFaceTokenCounter(str(build_tokenizer(tmp_path / "tok", template=None)))


def test_without_tokenizers_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = build_tokenizer(tmp_path / "tok")
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ImportError, match=r'pip install "nb-hitl\[huggingface\]"'):
        HuggingFaceTokenCounter(str(folder))
