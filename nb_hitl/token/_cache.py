"""Per-message counts of a ``Msg`` list, cached by message id and content (``TokenCounter``'s).

A message is encoded again only when its role, name or content changed, so recounting a long
memory after one new message encodes one message; a formatter's settings are part of the key,
so two formatters never share counts. A ``TokenCounter`` owns one ``MsgCountCache``, and gives
it the encoding and the chat-prompt rule (``count_message``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock


@dataclass(slots=True)
class MsgCount:
    """Cached count of one ``Msg`` as its formatter renders it."""

    fingerprint: tuple[Any, ...]
    """What the count depends on (role, name, content); compared by value."""
    tokens: int
    """Tokens of the chat messages the formatter makes of it (framing included)."""
    tool_use_ids: tuple[str, ...]
    """Ids of the tool calls it makes."""
    tool_result_ids: tuple[str, ...]
    """Ids of the tool calls it answers."""


class CacheInfo(NamedTuple):
    """Per-message cache statistics (``hits`` + ``misses`` = messages asked about)."""

    hits: int
    misses: int
    size: int
    encoded_texts: int
    """Texts sent to the encoder so far (short memoised strings excluded)."""


def _block_fingerprint(block: Any) -> tuple[Any, ...]:
    kind = block.type
    if kind == "text":
        return ("t", block.text)
    if kind == "tool_use":  # arguments as JSON text: an in-place edit of the dict shows
        return ("u", block.id, block.name, block.raw_input, json.dumps(block.input, default=str))
    if kind == "tool_result":
        return ("r", block.id, block.name, block.output)
    source = getattr(block, "source", None)
    if source is not None:  # image, audio, video: what they point at, or their data
        return (kind, source.type, source.get("url"), source.get("media_type"), source.get("data"))
    return (kind, getattr(block, "thinking", None))


def _fingerprint(msg: Msg) -> tuple[Any, ...]:
    content = msg.content
    if isinstance(content, str):
        return (msg.role, msg.name, content)
    return (msg.role, msg.name, *[_block_fingerprint(b) for b in content])


def _formatter_key(formatter: Any) -> tuple[Any, ...]:
    settings = sorted(vars(formatter).items()) if hasattr(formatter, "__dict__") else ()
    return (type(formatter).__module__, type(formatter).__qualname__, repr(settings))


class Counter(Protocol):
    """What the cache uses of its counter: the chat-prompt rule for one formatted message."""

    def count_message(self, message: dict[str, Any]) -> int: ...


class MsgCountCache:
    """``msg_counts``, ``count_system`` and their statistics, for a ``TokenCounter``.

    Args:
        counter: counts one formatted chat message (``TokenCounter.count_message``).
        cache_size: how many per-message counts to keep per formatter.
        lock: the counter's lock (held while the cache changes).
    """

    def __init__(self, counter: Counter, cache_size: int, lock: threading.RLock) -> None:
        self._counter = counter
        self.cache_size = cache_size
        self._lock = lock
        self._system: dict[tuple[Any, str], int] = {}
        self._caches: dict[tuple[Any, ...], dict[str, MsgCount]] = {}
        self._recent: dict[tuple[Any, ...], list[tuple[list[Msg], list[MsgCount]]]] = {}
        self._hits = 0
        self._misses = 0
        self._default_formatter: Any = None

    def msg_counts(self, msgs: Sequence[Msg], formatter: Any = None) -> list[MsgCount]:
        """``TokenCounter.msg_counts``: what it caches and when it re-encodes is said there."""
        if formatter is None:
            formatter = self._formatter()
        format_msg = getattr(formatter, "format_msg", None) or (lambda m: _format_one(formatter, m))
        count_message = self._counter.count_message
        items = msgs if isinstance(msgs, list) else list(msgs)
        with self._lock:
            key = _formatter_key(formatter)
            cache = self._caches.setdefault(key, {})
            recent = self._recent.setdefault(key, [])
            out: list[MsgCount] = []
            for prev_msgs, prev_entries in recent:
                k = len(prev_msgs)
                if (
                    k
                    and len(items) >= k
                    and items[k - 1] is prev_msgs[-1]
                    and items[:k] == prev_msgs
                ):
                    out = list(prev_entries)
                    break
            hits = len(out)
            for msg in items[len(out) :]:
                fingerprint = _fingerprint(msg)
                entry = cache.get(msg.id)
                if entry is not None and entry.fingerprint == fingerprint:
                    hits += 1
                    out.append(entry)
                    continue
                tokens = 0
                for message in format_msg(msg):
                    tokens += count_message(message)
                uses: tuple[str, ...] = ()
                results: tuple[str, ...] = ()
                if not isinstance(msg.content, str):
                    uses = tuple(b.id for b in msg.content if isinstance(b, ToolUseBlock))
                    results = tuple(b.id for b in msg.content if isinstance(b, ToolResultBlock))
                entry = MsgCount(fingerprint, tokens, uses, results)
                cache[msg.id] = entry
                out.append(entry)
            self._hits += hits
            self._misses += len(items) - hits
            recent.insert(0, (list(items), list(out)))
            del recent[4:]
            if len(cache) > self.cache_size:
                for msg_id in list(cache)[: len(cache) - self.cache_size // 2]:
                    del cache[msg_id]
        return out

    def count_system(self, text: str, formatter: Any = None) -> int:
        """Tokens of a system message holding ``text`` (0 for empty text), memoised."""
        if formatter is None:
            formatter = self._formatter()
        key = (_formatter_key(formatter), text)
        n = self._system.get(key)
        if n is None:
            formatted = _format_one(formatter, Msg("system", text, "system"))
            n = sum(self._counter.count_message(m) for m in formatted)
            if len(self._system) >= 64:
                del self._system[next(iter(self._system))]
            self._system[key] = n
        return n

    def _formatter(self) -> Any:
        if self._default_formatter is None:
            from nb_hitl.formatter import OpenAIChatFormatter

            self._default_formatter = OpenAIChatFormatter(plain_content=True)
        return self._default_formatter

    def info(self, encoded_texts: int) -> CacheInfo:
        """Hits, misses and size of the per-message cache (and ``encoded_texts``)."""
        size = sum(len(c) for c in self._caches.values())
        return CacheInfo(self._hits, self._misses, size, encoded_texts)

    def clear(self) -> None:
        """Forget every cached count."""
        with self._lock:
            self._caches.clear()
            self._recent.clear()
            self._system.clear()


def _format_one(formatter: Any, msg: Msg) -> list[dict[str, Any]]:
    format_msg = getattr(formatter, "format_msg", None)
    if format_msg is not None:
        result: list[dict[str, Any]] = format_msg(msg)
        return result
    format_sync = getattr(formatter, "format_sync", None)
    if format_sync is None:
        raise TypeError(
            f"Cannot count with formatter {formatter!r}: it needs a sync `format_msg(msg)` or "
            "`format_sync(msgs)` method (OpenAIChatFormatter has both)."
        )
    result = format_sync([msg])
    return result


__all__ = ["CacheInfo", "Counter", "MsgCount", "MsgCountCache"]
