"""Checks for tests and notebooks: is a history valid for an OpenAI-style chat API?

from nb_hitl.testing import assert_history_valid
assert_history_valid(agent.memory.messages)
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

from nb_hitl.events import Event
from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.message import Msg


class HistoryError(AssertionError):
    """A history breaks an invariant the chat API (or nb_hitl) relies on."""


def assert_prompt_valid(prompt: list[dict[str, Any]]) -> None:
    """Check a formatted prompt: every assistant ``tool_calls`` entry is answered by ``tool``
    messages right after it, exactly once, and no ``tool`` message answers an unknown call."""
    i = 0
    while i < len(prompt):
        entry = prompt[i]
        if entry.get("role") == "tool":
            raise HistoryError(f"tool message at {i} does not follow an assistant tool call")
        calls = entry.get("tool_calls") or []
        i += 1
        if not calls:
            continue
        expected = [c["id"] for c in calls]
        seen: list[str] = []
        while i < len(prompt) and prompt[i].get("role") == "tool":
            seen.append(prompt[i]["tool_call_id"])
            i += 1
        if Counter(seen) != Counter(expected):
            raise HistoryError(
                f"assistant tool calls {expected} answered by tool messages {seen} "
                "(each call needs exactly one result, right after it)"
            )


def assert_history_valid(msgs: list[Msg]) -> None:
    """Check a memory: each tool_use answered exactly once, and the formatted prompt is valid."""
    uses = [b.id for m in msgs for b in m.get_content_blocks("tool_use")]
    results = [b.id for m in msgs for b in m.get_content_blocks("tool_result")]
    if Counter(uses) != Counter(results):
        missing = sorted(set(uses) - set(results))
        extra = [k for k, v in (Counter(results) - Counter(uses)).items()]
        raise HistoryError(f"unanswered tool_use ids {missing}; unexpected results {extra}")
    assert_prompt_valid(OpenAIChatFormatter().format_sync(msgs))


def user_msg(text: str, name: str = "User") -> Msg:
    """A user message, ``Msg(name, text, "user")``."""
    return Msg(name, text, "user")


async def wait_for_event(
    agent: Any, predicate: Callable[[Event], bool], timeout: float = 30.0
) -> Event:
    """Await the first later event of ``agent`` for which ``predicate(event)`` is true.

    ``await wait_for_event(agent, lambda e: e.kind == "tool_call_started")``
    """
    fut: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

    def handler(event: Event) -> None:
        if not fut.done() and predicate(event):
            fut.set_result(event)

    sub = agent.subscribe(handler)
    try:
        return await asyncio.wait_for(fut, timeout)
    finally:
        sub.close()


__all__ = [
    "HistoryError",
    "assert_history_valid",
    "assert_prompt_valid",
    "user_msg",
    "wait_for_event",
]
