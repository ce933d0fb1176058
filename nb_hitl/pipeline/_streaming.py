"""stream_printing_messages: what agents print while a coroutine runs, as an async generator.

AgentScope 1.x's ``agentscope.pipeline.stream_printing_messages``:

    async for msg, last in stream_printing_messages(
        agents=[agent], coroutine_task=agent(Msg("user", "Hi", "user"))
    ):
        ...   # every chunk the agent prints (last=False), then the whole message (last=True)

The agents' ``msg_queue`` is turned on with one shared queue, the coroutine runs as a task,
and each ``(msg, last)`` the agents ``print`` is yielded (``(msg, last, speech)`` with
``yield_speech=True``) until the task ends; an exception of the task is raised after the
messages printed before it. Chunks of one streamed message share its ``id``.

Differences kept on purpose (AgentScope 1.0.21 behaves otherwise):

- The agents' message-queue settings are put back when the generator ends. AgentScope leaves
  the queue on, so the agents keep filling a queue nobody reads (it grows without bound).
- The end is noticed from the task itself, not only from ``end_signal`` put into the queue
  by a done callback, which fails with ``QueueFull`` when a bounded ``queue`` is full.
- If the consumer stops early, the task keeps running (as in AgentScope) but its exception is
  retrieved, so asyncio does not report it as never retrieved.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Sequence
from typing import Any

_DONE = object()


async def _next_item(queue: asyncio.Queue[Any], task: asyncio.Future[Any]) -> Any:
    """The next queued item, or ``_DONE`` once the task has ended and the queue is empty."""
    while True:
        if not queue.empty():
            return queue.get_nowait()
        if task.done():
            return _DONE
        getter = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()
        if getter.done() and not getter.cancelled():
            return getter.result()


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def stream_printing_messages(
    agents: Sequence[Any],
    coroutine_task: Awaitable[Any],
    queue: asyncio.Queue[Any] | None = None,
    end_signal: str = "[END]",
    yield_speech: bool = False,
) -> AsyncGenerator[tuple[Any, ...], None]:
    """Run ``coroutine_task`` and yield what ``agents`` print meanwhile.

    Args:
        agents: the agents whose printed messages are gathered.
        coroutine_task: the coroutine (or awaitable) that makes them speak.
        queue: the queue to gather into (default a new unbounded ``asyncio.Queue``).
        end_signal: a string that, found in the queue, ends the stream early.
        yield_speech: yield ``(msg, last, speech)`` instead of ``(msg, last)``.

    Yields:
        ``(msg, last)``: a copy of each printed message; ``last`` is ``False`` for a streamed
        chunk and ``True`` for a complete message.

    Raises:
        Exception: whatever ``coroutine_task`` raised, after the messages before it.
    """
    queue = queue if queue is not None else asyncio.Queue()
    saved = [(agent, agent.msg_queue, agent.console.queue_enabled) for agent in agents]
    for agent in agents:
        agent.set_msg_queue_enabled(True, queue)
    task = asyncio.ensure_future(coroutine_task)
    try:
        while True:
            item = await _next_item(queue, task)
            if item is _DONE or (isinstance(item, str) and item == end_signal):
                break
            yield tuple(item) if yield_speech else (item[0], item[1])
    finally:
        for agent, old_queue, enabled in saved:
            agent.set_msg_queue_enabled(enabled, old_queue)
        if not task.done():
            task.add_done_callback(_retrieve)
    if task.done() and not task.cancelled():
        exc = task.exception()
        if exc is not None:
            raise exc
