"""AgentScope's token-counter interface, its ``CharTokenCounter``, and counters written to it.

AgentScope's counters have one method, ``async count(messages, **kwargs) -> int``, over a whole
formatted prompt. nb_hitl's compression planner counts per message (cached) and synchronously,
so a counter written to AgentScope's interface is wrapped in ``CounterAdapter``: each message,
text or tool list is counted by calling ``count()`` on it, run to completion on the spot. A
``count()`` that really waits (a remote counting API) cannot run there; it is refused with a
message saying so (nb_hitl's own counters, and every local tokenizer, never wait).
"""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from ._counter import TokenCounter

__all__ = ["CharTokenCounter", "CounterAdapter", "TokenCounterBase", "as_token_counter"]


class TokenCounterBase:
    """AgentScope's base class for token counters: implement ``async count``."""

    @abstractmethod
    async def count(self, messages: list[dict[str, Any]], **kwargs: Any) -> int:
        """Tokens of ``messages`` (formatted chat messages) and whatever ``kwargs`` add."""


class CharTokenCounter(TokenCounterBase):
    """AgentScope's character counter: one token per character of the messages' ``str()``.

    Crude (base64 media counts every character), but needs no vocabulary at all.
    """

    async def count(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> int:
        """Characters of the messages' ``str()``, one per line, and of the tools' ``str()``."""
        texts = [str(message) for message in messages]
        if tools:
            texts.append(str(tools))
        return len("\n".join(texts))


def run_to_end(coroutine: Any, counter: Any) -> int:
    """The value of a ``count()`` call that does not wait (a plain int is taken as it is)."""
    if not inspect.iscoroutine(coroutine):
        return int(coroutine)
    try:
        coroutine.send(None)
    except StopIteration as done:
        return int(done.value)
    coroutine.close()
    from nb_hitl.exceptions import ConfigError

    raise ConfigError(
        f"{type(counter).__name__}.count() waits for I/O (a remote counting API?), but "
        "compression plans count synchronously. Give CompressionConfig a counter that counts "
        "locally: nb_hitl.token.TokenCounter() (exact, offline), OpenAITokenCounter(model) or "
        "CharTokenCounter()."
    )


class CounterAdapter(TokenCounter):
    """A counter written to AgentScope's interface, made usable by compression and widgets.

    Args:
        counter: anything with ``count(messages, **kwargs)`` (async or not).

    Counts are the wrapped counter's, message by message (a prompt's total is the sum of its
    messages plus the tools, so framing that a counter adds per call is counted per message);
    ``exact`` is False, since nb_hitl cannot know which vocabulary it uses.
    """

    def __init__(self, counter: Any) -> None:
        super().__init__()
        self.counter = counter
        self.fallback_reason = f"counted by {type(counter).__name__}"

    @property
    def exact(self) -> bool:
        """Always False: the wrapped counter's vocabulary is unknown here."""
        return False

    @property
    def encoding_name(self) -> str:
        """The wrapped counter's class name."""
        return type(self.counter).__name__

    def _count(self, messages: list[dict[str, Any]], tools: Any = None) -> int:
        kwargs = {"tools": list(tools)} if tools else {}
        return run_to_end(self.counter.count(messages, **kwargs), self.counter)

    def count_text(self, text: str) -> int:
        """The wrapped counter's count of one message holding ``text`` alone."""
        return self._count([{"role": "assistant", "content": text}])

    def count_message(self, message: dict[str, Any]) -> int:
        """The wrapped counter's count of ``[message]``."""
        return self._count([message])

    def count_part(self, part: dict[str, Any]) -> int:
        """The wrapped counter's count of a message holding this one part."""
        return self._count([{"role": "user", "content": [part]}])

    def count_tools(self, tools: Sequence[dict[str, Any]] | None) -> int:
        """What the tools add to an empty prompt."""
        if not tools:
            return 0
        return self._count([], tools) - self._count([])

    def count_sync(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
    ) -> int:
        """The wrapped counter's count of the whole prompt."""
        return self._count(list(messages), tools)

    def __repr__(self) -> str:
        return f"CounterAdapter({self.counter!r})"


def as_token_counter(value: Any) -> TokenCounter:
    """``value`` as a ``TokenCounter``: nb_hitl's as it is, AgentScope-style ones adapted.

    Raises:
        TypeError: ``value`` has no ``count`` method.
    """
    if isinstance(value, TokenCounter):
        return value
    # str, list and tuple have a count() too, and are no counters.
    if not isinstance(value, (str, bytes, list, tuple)) and callable(getattr(value, "count", None)):
        return CounterAdapter(value)
    raise TypeError(
        f"agent_token_counter must be a token counter (nb_hitl.token.TokenCounter(), "
        f"OpenAITokenCounter(model), CharTokenCounter(), or anything with AgentScope's "
        f"`async count(messages, **kwargs)`), got {type(value).__name__}."
    )
