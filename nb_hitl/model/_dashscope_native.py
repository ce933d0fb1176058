"""DashScope's own API through the ``dashscope`` SDK: the request, the answers, the errors.

What ``DashScopeChatModel`` does when the SDK is installed (``api="dashscope"``): the request
AgentScope 1.x sends (``dashscope.aigc.generation.AioGeneration.call``, or
``dashscope.AioMultiModalConversation.call`` for vision models, ``result_format="message"``,
``incremental_output`` when streaming), looked up on the SDK at each call so that a test's
``patch()`` of either reaches it. The SDK's answers (``GenerationResponse``: ``status_code``,
``output.choices[0].message``, ``usage.input_tokens``...) are read into the OpenAI chunk
shape, so the one ``StreamAccumulator`` builds the cumulative responses and the exchange's
retries, interrupt handling and error messages apply unchanged. A non-200 answer raises
``DashScopeAPIError`` (status, code and message, as the SDK reports them); the SDK's
connection failures and timeouts raise ``TransportError``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from ._openai_errors import TransportError, TransportTimeout

__all__ = [
    "HEADERS_ENV",
    "DashScopeAPIError",
    "NativeStream",
    "as_chunk",
    "call_dashscope",
    "env_headers",
    "is_multimodal",
    "native_content",
    "native_tool_choice",
    "sdk_available",
]

HEADERS_ENV = "DASHSCOPE_API_HEADERS"
"""A JSON object of extra HTTP headers for every request (AgentScope's variable)."""


def sdk_available() -> bool:
    """Whether the ``dashscope`` SDK with its async calls is installed."""
    try:
        from dashscope.aigc.generation import AioGeneration  # noqa: F401
    except ImportError:
        return False
    return True


def env_headers() -> dict[str, str]:
    """``$DASHSCOPE_API_HEADERS`` as a dict (read at each call; never stored on the model).

    Raises:
        ValueError: the variable is set but is not a JSON object.
    """
    raw = os.environ.get(HEADERS_ENV)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise ValueError(
            f"{HEADERS_ENV} must be a JSON object of header names and values, e.g. "
            '\'{"X-DashScope-WorkSpace": "ws-1"}\'; fix or unset it.'
        )
    return {str(k): str(v) for k, v in value.items()}


def is_multimodal(model_name: str, multimodality: bool | None) -> bool:
    """AgentScope's choice of API: ``multimodality`` when given, else by name (``qvq*``,
    ``*-vl*``)."""
    if multimodality is not None:
        return bool(multimodality)
    return model_name.startswith("qvq") or "-vl" in model_name


def native_tool_choice(choice: Any) -> Any:
    """``tool_choice`` as DashScope takes it: ``"auto"``/``"none"``; ``"required"`` (and
    AgentScope's ``"any"``) as ``"auto"``, which DashScope offers instead; a tool name as a
    forced function."""
    if choice in ("auto", "none"):
        return choice
    if choice in ("required", "any"):
        return "auto"
    if isinstance(choice, dict):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _native_part(part: Any) -> Any:
    """One OpenAI-style content part (``OpenAIChatFormatter``'s) as DashScope's own."""
    if not isinstance(part, dict) or "type" not in part:
        return part  # DashScope-native already ({"text": ...}, {"image": ...})
    kind = part["type"]
    if kind == "text":
        return {"text": part.get("text", "")}
    if kind == "image_url":
        return {"image": (part.get("image_url") or {}).get("url", "")}
    if kind == "video_url":
        return {"video": (part.get("video_url") or {}).get("url", "")}
    if kind == "input_audio":
        audio = part.get("input_audio") or {}
        data = audio.get("data", "")
        if data and not str(data).startswith(("data:", "http://", "https://", "file://")):
            data = f"data:audio/{audio.get('format', 'wav')};base64,{data}"
        return {"audio": data}
    return part


def native_content(messages: list[dict[str, Any]], multimodal: bool) -> list[dict[str, Any]]:
    """``messages`` as DashScope's own API takes them, meaning unchanged.

    ``DashScopeChatFormatter``'s output goes as it is. ``OpenAIChatFormatter``'s parts become
    DashScope's (``{"text"}``, ``{"image"}``, ``{"audio"}``, ``{"video"}``); the text API
    (not multimodal) gets content made only of text as one string; ``None`` next to tool
    calls becomes ``""``.
    """
    out = []
    for message in messages:
        content = message.get("content")
        if content is None and message.get("tool_calls"):
            message = {**message, "content": ""}
        elif isinstance(content, list):
            parts = [_native_part(p) for p in content]
            texts = [p.get("text") for p in parts if isinstance(p, dict) and set(p) == {"text"}]
            if not multimodal and parts and len(texts) == len(parts):
                message = {**message, "content": "\n".join(str(t) for t in texts)}
            elif parts != content:
                message = {**message, "content": parts}
        out.append(message)
    return out


class DashScopeAPIError(Exception):
    """DashScope answered with a status other than 200 (the SDK returns such answers)."""

    def __init__(self, status_code: int, code: str, message: str, request_id: str = "") -> None:
        super().__init__(f"HTTP {status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.request_id = request_id
        self.body = {"code": code, "message": message}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _check(response: Any) -> None:
    status = getattr(response, "status_code", None)
    if isinstance(status, int) and status == 200:
        return
    raise DashScopeAPIError(
        status if isinstance(status, int) else 500,
        _text(getattr(response, "code", None)) or "Unknown",
        _text(getattr(response, "message", None)) or "no message",
        _text(getattr(response, "request_id", None)),
    )


def _get(obj: Any, key: str) -> Any:
    """A field of the SDK's answer: its messages are dicts (``DictMixin``), the rest objects."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def as_chunk(response: Any) -> dict[str, Any]:
    """One SDK answer (``GenerationResponse``/``MultiModalConversationResponse``) as an
    OpenAI chunk dict for ``StreamAccumulator``.

    Raises:
        DashScopeAPIError: the answer's status is not 200.
    """
    _check(response)
    chunk: dict[str, Any] = {}
    request_id = getattr(response, "request_id", None)
    if isinstance(request_id, str) and request_id:
        chunk["id"] = request_id
    usage = getattr(response, "usage", None)
    if usage is not None:
        tokens = {
            "prompt_tokens": getattr(usage, "input_tokens", None),
            "completion_tokens": getattr(usage, "output_tokens", None),
        }
        if any(isinstance(v, int) and not isinstance(v, bool) for v in tokens.values()):
            chunk["usage"] = {k: v if isinstance(v, int) else 0 for k, v in tokens.items()}
    output = getattr(response, "output", None)
    choices = getattr(output, "choices", None) if output is not None else None
    if not isinstance(choices, list) or not choices:
        chunk["choices"] = []
        return chunk
    choice = choices[0]
    message = _get(choice, "message")
    if message is None:
        chunk["choices"] = []
        return chunk
    delta = {
        "content": _get(message, "content"),
        "reasoning_content": _get(message, "reasoning_content"),
        "tool_calls": _get(message, "tool_calls") or None,
    }
    finish = _get(choice, "finish_reason")
    # DashScope streams "null" (a string) until the last chunk
    finish = finish if isinstance(finish, str) and finish not in ("", "null") else None
    chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return chunk


def _wrap(exc: BaseException) -> BaseException:
    """The SDK's transport failures as ``TransportError``s (retried before the first token)."""
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return TransportTimeout("the request timed out")
    try:
        import aiohttp
    except ImportError:  # pragma: no cover - the SDK depends on aiohttp
        return exc
    if isinstance(exc, aiohttp.ClientError):
        error = TransportError(f"{type(exc).__name__}: {exc}")
        error.__cause__ = exc
        return error
    return exc


class NativeStream:
    """The SDK's stream of answers as OpenAI chunk dicts; ``close()`` ends the HTTP response.

    ``timeout`` bounds the wait for each answer (an asyncio timeout: the SDK's own
    ``sock_read`` timeout is the SDK's business).
    """

    def __init__(self, answers: Any, timeout: float) -> None:
        self._answers = answers
        self._timeout = timeout
        self._closed = False

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[dict[str, Any]]:
        answers = self._answers
        if hasattr(answers, "__aiter__"):
            iterator = answers.__aiter__()
            while True:
                try:
                    answer = await asyncio.wait_for(iterator.__anext__(), self._timeout)
                except StopAsyncIteration:
                    return
                except Exception as exc:
                    raise _wrap(exc) from None
                yield as_chunk(answer)
        else:  # an SDK that streams through a blocking generator: read it in a thread
            iterator = iter(answers)
            done = object()
            while True:
                try:
                    answer = await asyncio.wait_for(
                        asyncio.to_thread(next, iterator, done), self._timeout
                    )
                except Exception as exc:
                    raise _wrap(exc) from None
                if answer is done:
                    return
                yield as_chunk(answer)

    async def close(self) -> None:
        """Close the SDK's generator (and with it the HTTP response) now."""
        if self._closed:
            return
        self._closed = True
        aclose = getattr(self._answers, "aclose", None)
        if aclose is not None:
            await aclose()
        else:
            close = getattr(self._answers, "close", None)
            if close is not None:
                close()


async def call_dashscope(
    request: dict[str, Any], multimodal: bool, stream: bool, timeout: float
) -> Any:
    """Make the SDK call: a ``NativeStream`` when streaming, else one OpenAI chunk dict."""
    import dashscope
    from dashscope.aigc.generation import AioGeneration

    multimodal_api: Any = getattr(dashscope, "AioMultiModalConversation", None)
    if multimodal and multimodal_api is None:
        raise ImportError(
            "This dashscope SDK has no AioMultiModalConversation (vision models): "
            "pip install -U dashscope, or pass multimodality=False for a text model."
        )
    call = multimodal_api.call if multimodal else AioGeneration.call
    try:
        answer = await asyncio.wait_for(call(**request), timeout)
    except DashScopeAPIError:
        raise
    except Exception as exc:
        raise _wrap(exc) from None
    if stream and (hasattr(answer, "__aiter__") or hasattr(answer, "__next__")):
        return NativeStream(answer, timeout)
    if stream:  # a refusal comes as one answer even to a streaming request
        _check(answer)
        return NativeStream(_one(answer), timeout)
    return as_chunk(answer)


async def _one(answer: Any) -> AsyncIterator[Any]:
    yield answer
