"""One call to an OpenAI-compatible server: the request, the reader task, retries, closing.

The request puts the fields the SDK does not know into ``extra_body``. The HTTP exchange runs
in a task of its own (see ``_generate``). Before the first token a retryable failure
(connection, timeout, 429, 5xx) is tried again with exponential backoff and jitter, honouring
a server's ``Retry-After`` up to ``max_retry_delay``, and a refused forced ``tool_choice`` is
asked once more with ``"auto"``; after the first token an error ends the call. Every failure
reaches the caller as an error of the ``nb_hitl.exceptions`` tree (``_openai_errors.py``).
An ``OpenAIChatModel`` owns one ``Exchange`` (``model._http``) and reads its settings live;
the model keeps ``_request`` and ``_create`` (a subclass such as ``DashScopeChatModel``
overrides them) and ``_generate`` as one-line delegations.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from nb_hitl.exceptions import ConfigError, ModelStreamError

from ._base import ChatResponse, ToolChoice
from ._openai_errors import ErrorContext, is_retryable, retry_after_seconds, translate_error
from ._openai_prefix import (
    COMPLETIONS,
    CompletionStream,
    completion_as_chat,
    completion_request,
)
from ._openai_stream import StreamAccumulator


class ExchangeHost(Protocol):
    """What the exchange reads of its model: the settings (live: a user may change them
    between calls), the client, the error context, and the two steps a subclass overrides."""

    generate_kwargs: Any
    max_retries: Any
    max_retry_delay: Any
    model_name: str
    provider: Any
    reasoning_effort: str | None
    retry_base_delay: Any
    stream: bool
    stream_tool_parsing: bool
    stream_usage: bool
    tool_choice: ToolChoice | None

    def _context(self, attempts: int, chunks: int) -> ErrorContext: ...

    def _get_client(self) -> Any: ...

    def _request(
        self,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]: ...

    async def _create(self, client: Any, request: dict[str, Any]) -> Any: ...


class Exchange:
    """One call's request and chunks, from a reader task with retries (``model._http``).

    Args:
        host: the model (``ExchangeHost``).
    """

    def __init__(self, host: ExchangeHost) -> None:
        self._host = host
        self._create_params: tuple[Any, frozenset[str] | None] = (None, None)
        """The client's ``create`` and the parameters it takes (the rest go in extra_body)."""

    def request(
        self,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        """The SDK request of one call (``OpenAIChatModel._request``)."""
        host = self._host
        fields: dict[str, Any] = {**host.generate_kwargs, **kwargs}
        template = fields.pop(COMPLETIONS, None)
        fields.update(
            model=host.model_name, messages=_no_null_content(messages), stream=host.stream
        )
        if host.stream and host.stream_usage:
            fields.setdefault("stream_options", {"include_usage": True})
        if host.reasoning_effort is not None:
            fields.setdefault("reasoning_effort", host.reasoning_effort)
        if tools:
            fields["tools"] = tools
            choice = tool_choice if tool_choice is not None else host.tool_choice
            if choice is not None:
                fields["tool_choice"] = tool_choice_param(choice)
        create = client.chat.completions.create
        if self._create_params[0] is not create:
            self._create_params = (create, create_parameters(create))
        params = self._create_params[1]
        request: dict[str, Any] = {}
        extra_body: dict[str, Any] = dict(fields.pop("extra_body", None) or {})
        for name, value in fields.items():
            if params is None or name in params:
                request[name] = value
            else:
                extra_body[name] = value  # e.g. DashScope's enable_thinking
        if extra_body:
            request["extra_body"] = extra_body
        if template is not None:  # a continuation as a raw completion (llama-cpp-python)
            return {COMPLETIONS: completion_request({**fields, **request}, template)}
        return request

    async def create(self, client: Any, request: dict[str, Any]) -> Any:
        """Send ``request``: a chat completion, or the raw completion ``request`` made."""
        completion = request.get(COMPLETIONS)
        if completion is None:
            return await client.chat.completions.create(**request)
        result = await client.completions.create(**completion)
        return CompletionStream(result) if self._host.stream else completion_as_chat(result)

    def _backoff(self, attempt: int, exc: BaseException) -> float:
        host = self._host
        asked = retry_after_seconds(exc)
        if asked is not None:
            return min(asked, host.max_retry_delay)
        delay = host.retry_base_delay * (2**attempt)
        return min(delay * random.uniform(0.75, 1.25), host.max_retry_delay)

    async def generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> AsyncGenerator[ChatResponse, None]:
        # The HTTP exchange runs in a task of its own. The SDK's transport (httpx on anyio)
        # cancels its host task to implement cancel scopes and timeouts; kept out of the
        # caller's task, those cancellations can never be mistaken for an interrupt, and an
        # interrupt (closing this generator) cancels the reader and waits until it has closed
        # the response, so the server sees the disconnect before we return.
        host = self._host
        client = host._get_client()
        request = host._request(client, messages, tools, tool_choice, kwargs)
        queue: asyncio.Queue[ChatResponse | BaseException | None] = asyncio.Queue()
        reader = asyncio.get_running_loop().create_task(
            self._exchange(client, request, queue), name=f"http:{host.model_name}"
        )
        reader.add_done_callback(_retrieve)
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if not reader.done():
                reader.cancel()
                await asyncio.wait({reader})

    async def _exchange(
        self,
        client: Any,
        request: dict[str, Any],
        out: asyncio.Queue[ChatResponse | BaseException | None],
    ) -> None:
        """Run ``_attempts``; whatever ends it is passed on, so the consumer never waits forever."""
        try:
            await self._attempts(client, request, out)
        except BaseException as exc:
            out.put_nowait(exc)
            raise

    async def _attempts(
        self,
        client: Any,
        request: dict[str, Any],
        out: asyncio.Queue[ChatResponse | BaseException | None],
    ) -> None:
        """Make the request (with retries before the first token) and queue what streams in."""
        host = self._host
        start = time.perf_counter()
        attempt = 0
        downgraded = False
        while True:
            acc = StreamAccumulator(parse_partial=host.stream_tool_parsing)
            attempt += 1
            stream: Any = None
            try:
                if host.stream:
                    stream = await host._create(client, request)
                    async for chunk in stream:
                        if acc.add(chunk):
                            out.put_nowait(acc.response())
                else:
                    acc.add(await host._create(client, request))
                break
            except Exception as exc:  # never lost: retried, or translated for the caller
                if stream is not None:
                    stream, closing = None, stream
                    await close_stream(closing)
                if not acc.started and not downgraded and refuses_forced_choice(exc, request):
                    # DashScope's thinking mode and some vLLM builds refuse a forced
                    # tool_choice (HTTP 400): once more with "auto", as AgentScope does.
                    request, downgraded = {**request, "tool_choice": "auto"}, True
                    continue
                if acc.started or attempt > host.max_retries or not is_retryable(exc):
                    out.put_nowait(translate_error(exc, host._context(attempt, acc.chunks)))
                    return
                await asyncio.sleep(self._backoff(attempt - 1, exc))
            finally:
                # On success, on error and on cancellation (an interrupt): close the response
                # before anything else happens.
                if stream is not None:
                    await close_stream(stream)
        acc.finish()
        if host.stream and not acc.started and acc.finish_reason is None:
            out.put_nowait(
                ModelStreamError(
                    f"The stream from {host.provider} ended without any content or finish "
                    f"reason after {acc.chunks} chunk(s): the server probably failed "
                    f"mid-request (check its log). Send again, or try without tools or with "
                    f"another tool_choice."
                )
            )
            return
        out.put_nowait(acc.response(last=True, elapsed=time.perf_counter() - start))
        out.put_nowait(None)


def _no_null_content(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as sent: what every OpenAI-compatible server takes, meaning unchanged.

    AgentScope's ``OpenAIChatFormatter()`` output has ``content: None`` next to tool calls
    and text as a list of ``{"type": "text"}`` parts; OpenAI takes both, llama.cpp's server
    refuses both (a system message with parts: HTTP 500 and a validation error). So ``None``
    next to ``tool_calls`` becomes ``""``, and content made only of text parts becomes their
    text (one part) or the texts joined by newlines; images, audio and anything else go as
    they are. The formatter's own output is not changed.
    """
    out = []
    changed = False
    for m in messages:
        content = m.get("content")
        if content is None and m.get("tool_calls"):
            m, changed = {**m, "content": ""}, True
        elif isinstance(content, list) and content and all(_is_text_part(p) for p in content):
            m, changed = {**m, "content": "\n".join(p["text"] for p in content)}, True
        out.append(m)
    return out if changed else messages


def _is_text_part(part: Any) -> bool:
    return (
        isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
        and set(part) <= {"type", "text"}
    )


def refuses_forced_choice(exc: BaseException, request: dict[str, Any]) -> bool:
    """Whether ``exc`` is the server refusing the request's forced ``tool_choice`` (a 400,
    or an error event in the stream, whose message names ``tool_choice``)."""
    import openai

    choice = request.get("tool_choice")
    if not (isinstance(choice, dict) or choice == "required"):
        return False
    from ._dashscope_native import DashScopeAPIError

    refused = isinstance(exc, (openai.APIError, DashScopeAPIError))
    if not refused or "tool_choice" not in str(exc):
        return False
    status = getattr(exc, "status_code", None)
    return status in (None, 400, 422)


def create_parameters(create: Any) -> frozenset[str] | None:
    """The keyword names ``create`` takes, or None when it takes any (``**kwargs``: a
    stand-in client), so that fields it does not name go into ``extra_body``."""
    try:
        parameters = inspect.signature(create).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return frozenset(parameters)


def _retrieve(task: asyncio.Task[Any]) -> None:
    # A reader cancelled on interrupt ends with CancelledError (or a late error): consume it.
    if not task.cancelled():
        task.exception()


async def close_stream(stream: Any) -> None:
    """Close an SDK stream now: the response (so the server sees the disconnect) and its reader.

    The SDK's inner generator would otherwise be closed later by the garbage collector.
    """
    close = getattr(stream, "close", None)
    if close is not None:
        await close()
    elif hasattr(stream, "__aexit__"):  # a stream of your own client's: closed as a context
        await stream.__aexit__(None, None, None)
    inner = getattr(stream, "_iterator", None)
    if inner is not None and hasattr(inner, "aclose"):
        await inner.aclose()


def tool_choice_param(choice: ToolChoice) -> str | dict[str, Any]:
    """``"auto"``/``"none"``/``"required"`` as they are (AgentScope's ``"any"`` is
    ``"required"``); a tool name as a forced function."""
    if choice == "any":
        return "required"
    if choice in ("auto", "none", "required"):
        return choice
    if not isinstance(choice, str) or not choice:
        raise ConfigError(
            f"tool_choice must be 'auto', 'none', 'required' or a tool name, got {choice!r}."
        )
    return {"type": "function", "function": {"name": choice}}


__all__ = [
    "Exchange",
    "ExchangeHost",
    "close_stream",
    "create_parameters",
    "refuses_forced_choice",
    "tool_choice_param",
]
