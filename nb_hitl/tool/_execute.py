"""Running one tool call: any kind of function in, an async stream of ``ToolResponse`` out.

Sync functions and sync generators run in a small private thread pool (one ``next()`` at a
time for generators), so the event loop, and with it the Stop button, stays responsive.

Differs on purpose from AgentScope 1.x: when the *caller* is cancelled (an interrupt), the
``CancelledError`` propagates instead of being turned into an "interrupted" response, because
AgentScope's swallowing of the cancel is one of the interruption defects nb_hitl fixes (the
agent's ``handle_interrupt()`` records the partial output instead). A tool that raises
``CancelledError`` by itself, with nobody cancelling (Python 3.11+ can tell), gets AgentScope's
interrupted response.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import Any

from nb_hitl.message import TextBlock, ToolUseBlock

from ._registered import RegisteredTool
from ._response import ToolResponse

INTERRUPTED_TEXT = "<system-info>The tool call has been interrupted by the user.</system-info>"


@functools.cache
def _tool_threads() -> concurrent.futures.ThreadPoolExecutor:
    """A small private pool: a stuck sync tool must not starve the loop's default executor.
    Made on first use (``concurrent.futures.thread`` is not imported until a sync tool runs)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=8, thread_name_prefix="nb_hitl-tool")


_DONE = object()


def to_response(value: Any) -> ToolResponse:
    """Wrap what a tool returned (``ToolResponse``, text, ``None`` or JSON-able data)."""
    if isinstance(value, ToolResponse):
        return value
    if isinstance(value, str):
        return ToolResponse.text(value)
    if value is None:
        return ToolResponse.text("")
    try:
        return ToolResponse.text(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return ToolResponse.text(str(value))


def error_response(text: str) -> ToolResponse:
    """A response the model sees as a failed call."""
    return ToolResponse(content=[TextBlock(type="text", text=text)], is_error=True)


class ToolCallStream(AsyncIterator[ToolResponse]):
    """The responses of one call: iterate it directly, or ``await`` it first as AgentScope does.

    ``await toolkit.call_tool_function(call)`` returns this same stream, so both
    ``async for r in toolkit.call_tool_function(call)`` (nb_hitl) and
    ``async for r in await toolkit.call_tool_function(call)`` (AgentScope 1.x) work.
    """

    def __init__(self, source: AsyncGenerator[ToolResponse, None]) -> None:
        self._source = source

    def __aiter__(self) -> ToolCallStream:
        return self

    async def __anext__(self) -> ToolResponse:
        return await self._source.__anext__()

    async def aclose(self) -> None:
        """Stop the tool (runs its ``finally`` blocks)."""
        await self._source.aclose()

    def __await__(self) -> Generator[Any, None, ToolCallStream]:
        return self
        yield  # pragma: no cover - makes this a generator, so ``await`` returns at once


def _is_async(func: Callable[..., Any], check: Callable[[Any], bool]) -> bool:
    return check(func) or check(getattr(func, "__call__", None))  # noqa: B004


async def _postprocess(
    tool: RegisteredTool, call: ToolUseBlock, resp: ToolResponse
) -> ToolResponse:
    if tool.postprocess_func is None:
        return resp
    out = tool.postprocess_func(call, resp)
    if inspect.isawaitable(out):
        out = await out
    return out if isinstance(out, ToolResponse) else resp


async def _sync_chunks(gen: Iterator[Any]) -> AsyncGenerator[Any, None]:
    """Pull a sync generator's items in a worker thread, one ``next()`` at a time."""
    loop = asyncio.get_running_loop()
    pending: concurrent.futures.Future[Any] | None = None
    try:
        while True:
            pending = _tool_threads().submit(next, gen, _DONE)
            item = await asyncio.wrap_future(pending, loop=loop)
            pending = None
            if item is _DONE:
                return
            yield item
    finally:
        close = getattr(gen, "close", None)
        if close is not None:
            if pending is not None and not pending.done():
                pending.add_done_callback(lambda _f: close())  # close once next() returns
            else:
                close()


async def _chunks(source: Any) -> AsyncGenerator[ToolResponse, None]:
    """Stream a generator's items: ``ToolResponse`` chunks as written, others wrapped.

    Wrapped items (text, data) are marked ``stream=True, is_last=False``, and a closing copy
    of the last one with ``is_last=True`` follows.
    """
    items = source if inspect.isasyncgen(source) else _sync_chunks(source)
    last_wrapped: ToolResponse | None = None
    try:
        async for item in items:
            if isinstance(item, ToolResponse):
                last_wrapped = None
                yield item
            else:
                last_wrapped = to_response(item).model_copy(
                    update={"stream": True, "is_last": False}
                )
                yield last_wrapped
    finally:
        await items.aclose()
    if last_wrapped is not None:
        yield last_wrapped.model_copy(update={"is_last": True})


def _cancelled_by_caller() -> bool:
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is None or cancelling() > 0  # 3.10 cannot tell: assume the caller


async def run_tool(
    tool: RegisteredTool, call: ToolUseBlock, kwargs: dict[str, Any]
) -> AsyncGenerator[ToolResponse, None]:
    """Call ``tool`` with validated ``kwargs``; yield its (postprocessed) responses.

    An exception in the tool is yielded as an ``is_error`` response the model can read.
    """
    func = tool.func
    last: ToolResponse | None = None
    args: tuple[Any, ...] = ()
    if tool.var_positional and tool.var_positional in kwargs:
        args = tuple(kwargs.pop(tool.var_positional))
    try:
        if _is_async(func, inspect.isasyncgenfunction):
            result: Any = func(*args, **kwargs)
        elif _is_async(func, inspect.iscoroutinefunction):
            result = await func(*args, **kwargs)
        elif _is_async(func, inspect.isgeneratorfunction):
            result = func(*args, **kwargs)
        else:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(
                _tool_threads(), functools.partial(func, *args, **kwargs)
            )
        if inspect.isasyncgen(result) or inspect.isgenerator(result):
            async for chunk in _chunks(result):
                last = await _postprocess(tool, call, chunk)
                yield last
            return
        response = to_response(result)
    except asyncio.CancelledError:
        if _cancelled_by_caller():
            raise
        note = TextBlock(type="text", text=INTERRUPTED_TEXT)
        response = ToolResponse(
            content=[*(last.content if last is not None else []), note],
            metadata=last.metadata if last is not None else {},
            stream=True,
            is_last=True,
            is_interrupted=True,
        )
    except Exception as exc:  # a tool's failure is the model's to read, as AgentScope does
        response = error_response(f"Error: tool {call.name!r} raised {type(exc).__name__}: {exc}")
    yield await _postprocess(tool, call, response)
