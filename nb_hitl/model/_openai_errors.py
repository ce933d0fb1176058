"""Turn ``openai`` SDK exceptions into nb_hitl errors a person can act on.

Every message names what to change (the environment variable, ``model_name``, ``base_url``,
``timeout``, ``max_retries``) and passes through ``redact()``, so an API key echoed by a server
never reaches an exception message, a log line or a saved notebook. The server's own words are
redacted *before* they are shortened, and fragments (8+ leading characters of a secret) are
redacted too, so a key cut in two leaves nothing behind. The SDK's exception is not chained
(``raise ... from None`` at the call site) because its request carries the key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from nb_hitl.exceptions import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelStreamError,
    ModelTimeoutError,
)

from ._openai_stream import MalformedChunk
from ._secrets import redact as redact_all
from ._secrets import redact_urls

__all__ = [
    "ErrorContext",
    "TransportError",
    "TransportTimeout",
    "is_retryable",
    "redact",
    "retry_after_seconds",
    "translate_error",
]


class TransportError(Exception):
    """A connection failure of a transport other than the ``openai`` SDK's (the ``dashscope``
    SDK's aiohttp): treated as ``openai.APIConnectionError`` is."""


class TransportTimeout(TransportError):
    """No answer (or no next chunk) within the model's ``timeout``: as ``APITimeoutError``."""


_RETRY_STATUSES = frozenset({408, 409, 429})
_DETAIL_LIMIT = 300


def redact(text: str, secret: str | tuple[str, ...] | None) -> str:
    """Replace every secret, every fragment of one (8+ leading characters) and every URL
    credential in ``text`` with ``***``."""
    return redact_urls(redact_all(text, secret))


@dataclass(frozen=True)
class ErrorContext:
    """What an error message needs to say where the problem is and what to change."""

    provider: str
    """Who answered, e.g. "OpenAI", "DashScope" or "the server at http://localhost:8080/v1"."""
    model_name: str
    base_url: str
    key_env: str
    """The environment variable that holds the key, e.g. ``OPENAI_API_KEY``."""
    secrets: tuple[str, ...]
    """The API key and any credentials ``base_url`` carried (with their Basic encoding)."""
    timeout: float | None
    attempts: int
    """Requests made so far, including the failed one."""
    chunks: int
    """Chunks received from the failing stream before the error."""


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _detail(exc: BaseException, secrets: tuple[str, ...] = ()) -> str:
    """The server's own words, redacted, then shortened (in that order: a cut through a key
    must not leave its prefix)."""
    body = getattr(exc, "body", None)
    message: Any = None
    if isinstance(body, dict):
        message = body.get("message") or body.get("detail") or body.get("error")
        if isinstance(message, dict):
            message = message.get("message")
    if message is None and body is not None:
        message = body if isinstance(body, str) else json.dumps(body, default=str)
    if message is None:
        message = getattr(exc, "message", None) or str(exc)
    text = redact(" ".join(str(message).split()), secrets)
    return text if len(text) <= _DETAIL_LIMIT else text[: _DETAIL_LIMIT - 3] + "..."


def _error_code(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    body = getattr(exc, "body", None)
    if code is None and isinstance(body, dict):
        code = body.get("code") or body.get("type")
    return str(code or "")


_VALIDATION = re.compile(
    r"validation error|Input should be|Field required|Extra inputs are not permitted|"
    r"type_error|value_error|literal_error|string_type|Unprocessable Entity",
    re.IGNORECASE,
)


def is_shape_error(exc: BaseException) -> bool:
    """Whether the server refused the request's shape: HTTP 400/422, or a 500 whose body is
    a request-validation error (llama.cpp's server answers a pydantic error with 500).
    Sending the same request again cannot help."""
    status = _status(exc)
    if status in (400, 422):
        return True
    if status is not None and status >= 500:
        body = getattr(exc, "body", None)
        text = json.dumps(body, default=str) if body is not None else str(exc)
        return bool(_VALIDATION.search(text))
    return False


def is_retryable(exc: BaseException) -> bool:
    """Whether a failure before the first token is worth another attempt."""
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, TransportError)):
        return True
    status = _status(exc)
    if status is None:
        return False
    if is_shape_error(exc):
        return False
    if status == 429 and _error_code(exc) == "insufficient_quota":
        return False  # waiting does not refill a quota
    return status in _RETRY_STATUSES or status >= 500


def retry_after_seconds(exc: BaseException) -> float | None:
    """The delay a ``Retry-After`` / ``retry-after-ms`` header asks for, if any."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue  # an HTTP date; the computed backoff is used instead
        if seconds >= 0:
            return seconds
    return None


def translate_error(exc: BaseException, ctx: ErrorContext) -> ModelError:
    """Return the nb_hitl error that explains ``exc``."""
    import openai

    error = _translate(exc, ctx, openai)
    safe = redact(str(error), ctx.secrets)
    if safe != str(error):
        error = type(error)(safe, status_code=error.status_code)
    return error


def _tries(ctx: ErrorContext) -> str:
    return "once" if ctx.attempts == 1 else f"{ctx.attempts} times"


def _translate(exc: BaseException, ctx: ErrorContext, openai: Any) -> ModelError:
    status = _status(exc)
    detail = _detail(exc, ctx.secrets)
    where = f"{ctx.provider} ({ctx.base_url})" if ctx.base_url not in ctx.provider else ctx.provider
    if isinstance(exc, (MalformedChunk, json.JSONDecodeError)):
        return ModelStreamError(
            f"{where} sent a malformed stream chunk after {ctx.chunks} chunk(s) ({exc}). "
            f"Check that base_url points at an OpenAI-compatible /v1 endpoint and that "
            f"model_name={ctx.model_name!r} streams chat completions; the partial reply is kept."
        )
    if status in (401, 403):
        what = "rejected the API key" if status == 401 else "refused access with this API key"
        return ModelAuthError(
            f"{where} {what} (HTTP {status}: {detail}). Set the environment variable "
            f"{ctx.key_env} to a valid key (or pass api_key=...), then create the model again."
            + (
                f" Also check that the key may use model {ctx.model_name!r}."
                if status == 403
                else ""
            ),
            status_code=status,
        )
    if status == 404:
        return ModelNotFoundError(
            f"{where} does not know model {ctx.model_name!r} (HTTP 404: {detail}). Check "
            f"model_name (GET {ctx.base_url.rstrip('/')}/models lists the served models), and "
            f"that base_url ends with the API prefix, usually /v1.",
            status_code=404,
        )
    if status == 429:
        if _error_code(exc) == "insufficient_quota":
            return ModelRateLimitError(
                f"{where} says the account's quota is exhausted (HTTP 429: {detail}). "
                f"Add credit or use another key in {ctx.key_env}; retrying will not help.",
                status_code=429,
            )
        return ModelRateLimitError(
            f"{where} rate-limited the request (HTTP 429), {_tries(ctx)} in a row, with backoff "
            f"between attempts ({detail}). Wait a minute and send again, lower the request "
            f"rate, or raise max_retries=.",
            status_code=429,
        )
    if status is not None and is_shape_error(exc):
        return ModelError(
            f"{where} refused the request's shape for model {ctx.model_name!r} (HTTP "
            f"{status}, sent {_tries(ctx)}: {detail}); sending it again would not help. "
            f"Change what is sent: "
            f"a formatter the server takes (OpenAIChatFormatter(plain_content=True) for "
            f"llama.cpp-style servers), fewer or simpler tools, tool_choice, or generate_kwargs "
            f"the server does not know.",
            status_code=status,
        )
    if status is not None and status >= 500:
        return ModelError(
            f"{where} failed with a server error (HTTP {status}), {_tries(ctx)} in a row "
            f"({detail}). The problem is on the server side: try again later, or raise "
            f"max_retries=.",
            status_code=status,
        )
    if status is not None:
        return ModelError(
            f"{where} refused the request for model {ctx.model_name!r} (HTTP {status}: {detail}).",
            status_code=status,
        )
    if isinstance(exc, (openai.APITimeoutError, TransportTimeout)):
        if ctx.chunks:
            return ModelTimeoutError(
                f"The stream from {where} stalled for more than {ctx.timeout} s after "
                f"{ctx.chunks} chunk(s); the partial reply is kept. Raise timeout= if the model "
                f"is slow, or send again."
            )
        return ModelTimeoutError(
            f"{where} did not answer within {ctx.timeout} s ({_tries(ctx)}). Raise timeout= "
            f"for a slow or loading model, or check that the server is healthy."
        )
    if isinstance(exc, (openai.APIConnectionError, TransportError)):
        cause = exc.__cause__ or exc.__context__
        reason = f"{type(cause).__name__}: {cause}" if cause else str(exc)
        if ctx.chunks:
            return ModelStreamError(
                f"The connection to {where} broke after {ctx.chunks} chunk(s) of the reply "
                f"({reason}); the partial reply is kept. Retry (agent() with no message) to "
                f"continue."
            )
        attempts = "1 attempt" if ctx.attempts == 1 else f"{ctx.attempts} attempts"
        return ModelConnectionError(
            f"Could not connect to {where} ({reason}; {attempts}). Is the server running? "
            f"Check base_url (or the OPENAI_BASE_URL environment variable)."
        )
    if isinstance(exc, openai.APIError):  # an error event inside the stream
        return ModelStreamError(
            f"{where} reported an error in the middle of the stream after {ctx.chunks} "
            f"chunk(s): {detail}"
        )
    return ModelError(f"The request to {where} failed: {type(exc).__name__}: {exc}")
