"""Answers in DashScope's own API shape for ``FakeOpenAIServer`` (``.../generation`` routes).

What the ``dashscope`` SDK reads: ``{"output": {"choices": [{"message": {...},
"finish_reason": ...}]}, "usage": {"input_tokens", "output_tokens"}, "request_id"}``, one per
SSE event when streaming with ``incremental_output`` (each message holds the new piece only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["native_answer", "native_chunks", "native_url"]


def native_url(server: Any) -> str:
    """The ``base_http_api_url`` that points the SDK at ``server``."""
    return f"http://127.0.0.1:{server.port}/api/v1"


def native_answer(
    content: str = "",
    *,
    reasoning: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str = "null",
    usage: tuple[int, int] = (7, 3),
) -> dict[str, Any]:
    """One answer (a whole non-streamed one, or one event of a stream)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning:
        message["reasoning_content"] = reasoning
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "output": {"choices": [{"message": message, "finish_reason": finish}]},
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        "request_id": "req-fake-native",
    }


def native_chunks(
    pieces: Sequence[str], *, reasoning: Sequence[str] = (), finish: str = "stop"
) -> list[dict[str, Any] | str]:
    """A stream: reasoning pieces, text pieces, the last one with ``finish``."""
    events: list[dict[str, Any] | str] = [native_answer(reasoning=r) for r in reasoning]
    events += [native_answer(p) for p in pieces]
    last = events[-1]
    assert isinstance(last, dict)
    last["output"]["choices"][0]["finish_reason"] = finish
    return events
