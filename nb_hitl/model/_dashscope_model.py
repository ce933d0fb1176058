"""DashScopeChatModel: Qwen models on Alibaba Cloud, through the ``dashscope`` SDK or the
OpenAI-compatible mode.

AgentScope's module name (``nb_hitl.model._dashscope_model``, with its ``logger``), so its
``patch()`` targets port. ``api="auto"`` (the default) uses DashScope's own API through the
``dashscope`` SDK when it is installed (what AgentScope does: ``_dashscope_native``), and the
OpenAI-compatible mode through the ``openai`` SDK otherwise, or when an OpenAI-style URL was
chosen (``base_url=``, ``$DASHSCOPE_BASE_URL``, a ``.../compatible-mode/v1``
``base_http_api_url``) or ``model.client`` was replaced. Both paths share the exchange:
retries before the first token, an interrupt closes the HTTP stream, errors that name what to
change with every secret redacted.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Literal

from pydantic import SecretStr

from nb_hitl.exceptions import ConfigError

from ._dashscope_native import (
    call_dashscope,
    env_headers,
    is_multimodal,
    native_content,
    native_tool_choice,
    sdk_available,
)
from ._openai import DASHSCOPE_BASE_URL, NO_KEY_PLACEHOLDER, OpenAIChatModel, display_url
from ._openai_dashscope import compatible_content
from ._openai_errors import ErrorContext
from ._secrets import install_secret_redaction

__all__ = ["DashScopeChatModel", "logger"]

logger = logging.getLogger("nb_hitl.model")
"""This module's logger (AgentScope's tests patch ``_dashscope_model.logger``)."""

NATIVE = "_nb_hitl_dashscope_native"
"""Marks a request built for the SDK (taken out before the call)."""
NATIVE_DEFAULT_URL = "https://dashscope.aliyuncs.com/api/v1"
"""The SDK's default endpoint (mainland); shown in messages when no other is set."""
Api = Literal["auto", "dashscope", "openai"]


class DashScopeChatModel(OpenAIChatModel):
    """Alibaba Cloud's DashScope (Qwen models).

    AgentScope 1.x's ``DashScopeChatModel(model_name, api_key, stream=True,
    enable_thinking=None, multimodality=None, generate_kwargs=None, base_http_api_url=None,
    stream_tool_parsing=True)`` works unchanged, ``model.api_key`` included;
    ``OpenAIChatModel``'s keyword arguments (``timeout``, ``max_retries``...) work too. The
    key defaults to ``$DASHSCOPE_API_KEY``.

    Args:
        api: ``"dashscope"``: DashScope's own API through the ``dashscope`` SDK, as AgentScope
            (``AioGeneration.call``, or ``AioMultiModalConversation.call`` when
            ``multimodality`` is set or, if it is ``None``, for ``qvq*`` and ``*-vl*``
            models); ``base_http_api_url`` is its endpoint (use
            ``https://dashscope-intl.aliyuncs.com/api/v1`` outside mainland China), sent with
            each call rather than set on the SDK for the whole process, and
            ``$DASHSCOPE_API_HEADERS`` (a JSON object) adds headers. ``"openai"``: the
            OpenAI-compatible mode through the ``openai`` SDK (``base_url`` or
            ``$DASHSCOPE_BASE_URL``, default the mainland ``.../compatible-mode/v1``);
            ``DashScopeChatFormatter``'s native parts are sent as its ``image_url`` /
            ``input_audio`` / ``video_url`` parts. ``"auto"``: ``"dashscope"`` when the SDK is
            installed and no OpenAI-style URL was given, else ``"openai"``.

    ``enable_thinking=True`` streams Qwen's reasoning as thinking blocks and, as in AgentScope
    (DashScope requires it), forces ``stream=True`` (logged at INFO). On DashScope's own API a
    ``tool_choice`` of ``"required"`` is sent as ``"auto"``, as AgentScope does (the API has
    no ``"required"``); a tool name forces that tool. ``model.api_key`` reads and sets the
    key, which is never in ``vars(model)``, a repr, an error message, a log line (the SDK's
    included) or saved state.
    """

    default_base_url = DASHSCOPE_BASE_URL
    default_key_env = "DASHSCOPE_API_KEY"
    base_url_env = "DASHSCOPE_BASE_URL"

    def __init__(
        self,
        model_name: str,
        api_key: str | None = None,
        stream: bool = True,
        enable_thinking: bool | None = None,
        multimodality: bool | None = None,
        generate_kwargs: dict[str, Any] | None = None,
        base_http_api_url: str | None = None,
        stream_tool_parsing: bool = True,
        api: Api = "auto",
        **kwargs: Any,
    ) -> None:
        if api not in ("auto", "dashscope", "openai"):
            raise ConfigError(f"api must be 'auto', 'dashscope' or 'openai', got {api!r}.")
        generate_kwargs = dict(generate_kwargs or {})  # kept as passed (AgentScope's)
        if enable_thinking and not stream:
            logger.info(
                "DashScope answers enable_thinking=True requests only as a stream: "
                "stream=True is used."
            )
            stream = True
        openai_url = base_http_api_url is not None and "compatible-mode" in base_http_api_url
        chose_openai = (
            openai_url
            or kwargs.get("base_url") is not None
            or (kwargs.get("client_kwargs") or {}).get("base_url") is not None
            or bool(os.environ.get(self.base_url_env))
        )
        if api == "auto":
            api = "dashscope" if sdk_available() and not chose_openai else "openai"
        elif api == "dashscope" and not sdk_available():
            raise ImportError(
                'api="dashscope" needs the dashscope SDK: pip install "nb-hitl[dashscope]" '
                '(or use api="openai", the OpenAI-compatible mode).'
            )
        self.api: Api = api
        """Which API the model talks to: ``"dashscope"`` (the SDK) or ``"openai"``."""
        self.base_http_api_url = base_http_api_url
        """DashScope's own endpoint (``api="dashscope"``); ``None``: the SDK's default."""
        if base_http_api_url is not None and api == "openai":
            url = base_http_api_url.rstrip("/")
            if not openai_url and url.endswith("/api/v1"):
                url = url[: -len("/api/v1")] + "/compatible-mode/v1"
            kwargs.setdefault("base_url", url)
        kwargs.setdefault("provider", "DashScope")
        super().__init__(
            model_name,
            api_key,
            stream,
            generate_kwargs=generate_kwargs,
            stream_tool_parsing=stream_tool_parsing,
            **kwargs,
        )
        self.enable_thinking = enable_thinking
        self.multimodality = multimodality
        if self.api == "dashscope":
            install_secret_redaction("dashscope", self._secret_values())

    # -- the key (AgentScope's attribute, kept out of vars() and reprs) ------------------------
    @property
    def api_key(self) -> str | None:
        """The API key (``None`` when there is none)."""
        key = self._api_key.get_secret_value()
        return None if key == NO_KEY_PLACEHOLDER else key

    @api_key.setter
    def api_key(self, value: str | None) -> None:
        self._api_key = SecretStr(value or NO_KEY_PLACEHOLDER)
        if self.client is self._own_client:  # the client built here carries the key
            self.client = self._own_client = self._build_client()
            self._client_loop = None
        if self.api == "dashscope":
            install_secret_redaction("dashscope", self._secret_values())

    def __repr__(self) -> str:
        if self.api != "dashscope":
            return super().__repr__()
        return (
            f"{type(self).__name__}(model_name={self.model_name!r}, api='dashscope', "
            f"base_http_api_url={self.base_http_api_url!r}, stream={self.stream})"
        )

    def _native(self) -> bool:
        """Whether this call goes through the SDK (a replaced ``model.client`` is used)."""
        return self.api == "dashscope" and self.client is self._own_client

    def _context(self, attempts: int, chunks: int) -> ErrorContext:
        context = super()._context(attempts, chunks)
        if not self._native():
            return context
        url = display_url(self.base_http_api_url or NATIVE_DEFAULT_URL)
        return ErrorContext(**{**vars(context), "base_url": url})

    # -- the request -----------------------------------------------------------------------------
    def _request(
        self,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        if not self._native():
            if self.enable_thinking is not None and "enable_thinking" not in self.generate_kwargs:
                kwargs = {"enable_thinking": self.enable_thinking, **kwargs}  # sent, not stored
            return super()._request(
                client, compatible_content(messages), tools, tool_choice, kwargs
            )
        multimodal = is_multimodal(self.model_name, self.multimodality)
        request: dict[str, Any] = {
            "messages": native_content(messages, multimodal),
            "model": self.model_name,
            "stream": self.stream,
            "result_format": "message",
            "incremental_output": self.stream,  # AgentScope's: deltas when streaming
            **self.generate_kwargs,
            **kwargs,
        }
        if tools:
            request["tools"] = tools
            choice = tool_choice if tool_choice is not None else self.tool_choice
            if choice is not None:
                request["tool_choice"] = native_tool_choice(choice)
        if self.enable_thinking is not None and "enable_thinking" not in request:
            request["enable_thinking"] = self.enable_thinking
        headers = {**env_headers(), **(request.get("headers") or {})}
        if headers:
            request["headers"] = headers
        if self.base_http_api_url is not None:
            request["base_address"] = self.base_http_api_url
        request["api_key"] = self.api_key
        request[NATIVE] = multimodal
        return request

    async def _create(self, client: Any, request: dict[str, Any]) -> Any:
        if NATIVE not in request:
            return await super()._create(client, request)
        fields = dict(request)
        multimodal = fields.pop(NATIVE)
        return await call_dashscope(fields, multimodal, self.stream, self.timeout)

    async def aclose(self) -> None:
        """Close the HTTP connections: the ``openai`` client's pool (as ``OpenAIChatModel``)
        and, on DashScope's own API, the SDK's shared session of this event loop."""
        await super().aclose()
        if self.api == "dashscope":
            try:
                from dashscope.api_entities.aio_session import close_shared_aio_session
            except ImportError:  # an older SDK without a shared session
                return
            await close_shared_aio_session()
