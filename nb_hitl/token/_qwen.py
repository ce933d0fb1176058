"""Exact, offline token counts for Qwen models with Qwen's own vocabulary.

The ``dashscope`` SDK (``pip install "nb-hitl[dashscope]"``) ships Qwen's BPE vocabulary as
``dashscope/resources/qwen.tiktoken``; ``dashscope.get_tokenizer("qwen-max")`` is tiktoken with
that file. ``QwenTokenCounter`` builds the same ``tiktoken.Encoding`` from the file (found
without importing the SDK, sha256-checked) and encodes as the SDK does (NFC-normalised text,
special-token text allowed, long texts split at line breaks), so text counts equal
``dashscope.get_tokenizer(model).encode(text)`` token for token, with no network.

The chat framing follows Qwen's ChatML template (Qwen2.5's ``chat_template``):

- a message is ``<|im_start|>{role}\\n{content}<|im_end|>\\n`` (names are not sent);
- an assistant tool call adds ``\\n<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``;
- a tool result is ``<|im_start|>user\\n<tool_response>\\n{output}\\n</tool_response><|im_end|>\\n``
  (the template merges consecutive results into one user turn; counted one turn each, a few
  tokens over);
- tool schemas go into the system message as Qwen's ``# Tools`` block, one JSON line per tool
  (counted on their own: when the system prompt ends in punctuation, the real rendering may
  merge it with the block's leading line breaks, one token less);
- the reply is primed with ``<|im_start|>assistant\\n`` (3 tokens).

DashScope does not publish its server-side template, so the framing is Qwen's open template;
the inspector shows the provider's reported prompt tokens next to this count when a reply
carries usage. Text is the bulk of any prompt, and it is exact.
"""

from __future__ import annotations

import importlib.util
import json
import os
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from ._counter import DEFAULT_ENCODING, TokenCounter
from ._vocab import (
    VocabularyUnavailable,
    cached_encoding,
    check_sha256,
    load_offline_encoding,
    parse_ranks,
)

QWEN_ENCODING = "qwen"
"""``encoding_name`` of a counter using Qwen's vocabulary."""
QWEN_VOCAB_SHA256 = "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186"
"""sha256 of ``qwen.tiktoken`` (151,643 merges) as the dashscope SDK ships it."""
_PAT_STR = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_SPECIAL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205)))
_SPECIAL_START = 151643
_CHUNK = 100_000  # the SDK splits longer texts (tiktoken's recursion limit)
_TOOLS_HEAD = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
_TOOLS_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
_ENCODING: dict[str, Any] = {}


def is_qwen_model(model: str) -> bool:
    """True for the model names the dashscope SDK has Qwen's tokenizer for (``qwen*``)."""
    return model.strip().lower().startswith("qwen")


def qwen_vocab_path() -> str:
    """Where the installed dashscope SDK keeps ``qwen.tiktoken`` (the SDK is not imported).

    Raises:
        VocabularyUnavailable: dashscope is not installed, or its file is missing.
    """
    spec = importlib.util.find_spec("dashscope")
    if spec is None or not spec.submodule_search_locations:
        raise VocabularyUnavailable(
            "Qwen's vocabulary comes with the dashscope SDK, which is not installed: "
            '`pip install "nb-hitl[dashscope]"`.'
        )
    folder = next(iter(spec.submodule_search_locations))
    path = os.path.join(folder, "resources", "qwen.tiktoken")
    if not os.path.exists(path):
        raise VocabularyUnavailable(
            f"The dashscope SDK has no {path}; reinstall it (`pip install --force-reinstall "
            "dashscope`)."
        )
    return path


def load_qwen_encoding(path: str | None = None) -> Any:
    """Qwen's ``tiktoken.Encoding``, built offline from the dashscope SDK's file (memoised).

    Raises:
        VocabularyUnavailable: no dashscope, no tiktoken, or the file fails its sha256 check.
    """
    path = path or qwen_vocab_path()

    def build(tiktoken: Any) -> Any:
        with open(path, "rb") as f:
            data = f.read()
        check_sha256(
            data,
            QWEN_VOCAB_SHA256,
            f"{path} is not the Qwen vocabulary nb_hitl knows",
            "Reinstall dashscope, or report the new dashscope version to nb_hitl.",
        )
        return tiktoken.Encoding(
            "Qwen",
            pat_str=_PAT_STR,
            mergeable_ranks=parse_ranks(data, path),
            special_tokens={t: i for i, t in enumerate(_SPECIAL, start=_SPECIAL_START)},
        )

    return cached_encoding(_ENCODING, path, build)


def _splits(text: str) -> list[str]:
    """The SDK's split of a long text into chunks at line breaks (same chunks, same counts)."""
    parts: list[str] = []
    for i, line in enumerate(text.split("\n")):
        piece = line if i == 0 else "\n" + line
        if len(piece) <= _CHUNK:
            parts.append(piece)
        else:
            parts.extend(piece[j : j + _CHUNK] for j in range(0, len(piece), _CHUNK))
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for part in parts:
        if size + len(part) <= _CHUNK:
            current.append(part)
            size += len(part)
        else:
            if current:
                chunks.append("".join(current))
            current, size = [part], len(part)
    if current:
        chunks.append("".join(current))
    return chunks


def qwen_len(encoding: Any) -> Callable[[str], int]:
    """A function counting a text's tokens as ``dashscope``'s ``QwenTokenizer.encode`` does."""
    encode = encoding.encode

    def count(text: str) -> int:
        text = unicodedata.normalize("NFC", text)
        if len(text) <= _CHUNK:
            return len(encode(text, allowed_special="all", disallowed_special=()))
        return sum(
            len(encode(c, allowed_special="all", disallowed_special=())) for c in _splits(text)
        )

    return count


class QwenTokenCounter(TokenCounter):
    """A ``TokenCounter`` for Qwen models: Qwen's vocabulary and ChatML framing.

    ``TokenCounter(model="qwen-max")`` (any ``qwen*`` name) returns one. Without the dashscope
    SDK it counts with ``o200k_base`` and says so: ``exact`` is False and ``fallback_reason``
    tells how to install the vocabulary.
    """

    claims_model = staticmethod(is_qwen_model)

    def __init__(
        self,
        model: str | None = "qwen-max",
        encoding: str | None = None,
        *,
        vocab_dir: str | None = None,
        cache_size: int = 200_000,
    ) -> None:
        super().__init__(encoding=DEFAULT_ENCODING, vocab_dir=vocab_dir, cache_size=cache_size)
        self.model = model
        self._encoding_name = QWEN_ENCODING
        self._qwen = True

    def _load_encoder(self) -> Callable[[str], int]:
        try:
            count = qwen_len(load_qwen_encoding())
        except (VocabularyUnavailable, OSError) as exc:
            self._qwen = False
            self.fallback_reason = f"{exc} Counting with {DEFAULT_ENCODING} meanwhile."
            self._encoding_name = DEFAULT_ENCODING
            self._exact = False
            try:
                encode = load_offline_encoding(DEFAULT_ENCODING).encode_ordinary
            except VocabularyUnavailable:
                from ._approx import approximate_count

                return approximate_count
            return lambda text: len(encode(text))
        self._exact = True
        return count

    def count_message(self, message: dict[str, Any]) -> int:
        """Tokens of one OpenAI-format message rendered with Qwen's ChatML template."""
        self._encoder()
        if not self._qwen:
            return super().count_message(message)
        role = str(message.get("role", "user"))
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
            )
        text = content if isinstance(content, str) else ""
        # The role, its line break and the content are one run of text between special
        # tokens (<|im_start|> ... <|im_end|>), so they are encoded together: exact even when
        # the content starts with white space. 3 = <|im_start|>, <|im_end|> and the "\n" after.
        if role == "tool":
            return 3 + self.count_text(f"user\n<tool_response>\n{text}\n</tool_response>")
        body = f"{role}\n{text}" if text else role
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            arguments = function.get("arguments") or "{}"
            body += (
                f'\n<tool_call>\n{{"name": "{function.get("name", "")}", "arguments": '
                f"{arguments}}}\n</tool_call>"
            )
        return 3 + self.count_text(body)

    def count_tools(self, tools: Sequence[dict[str, Any]] | None) -> int:
        """Tokens of Qwen's ``# Tools`` block in the system message (0 for no tools)."""
        self._encoder()
        if not self._qwen:
            return super().count_tools(tools)
        if not tools:
            return 0
        lines = "".join("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools)
        return self.count_text(_TOOLS_HEAD + lines + _TOOLS_TAIL)

    def __repr__(self) -> str:
        state = "exact" if self._exact else ("approximate" if self._len else "not loaded")
        return f"QwenTokenCounter(model={self.model!r}, {state})"
