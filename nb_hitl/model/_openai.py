"""OpenAIChatModel and DashScopeChatModel: every OpenAI-compatible chat server, one adapter.

OpenAI itself, DashScope's compatible mode, Ollama, vLLM, LM Studio and llama.cpp all speak the
chat-completions protocol, so one adapter on the official ``openai`` SDK reaches them all::

    OpenAIChatModel(model_name="gpt-4o-mini")                    # OPENAI_API_KEY, OPENAI_BASE_URL
    OpenAIChatModel(model_name="llama3.2", base_url="http://localhost:11434/v1")  # Ollama, no key
    DashScopeChatModel(model_name="qwen-max", api_key=os.getenv("DASHSCOPE_API_KEY"))

Behaviour worth knowing:

- **Interrupt closes the HTTP stream at once.** Closing the generator (the agent's ``aclose()``)
  closes the response, so the server sees the disconnect and stops generating.
- **Retries before the first token only**: HTTP 408/409/429/5xx, timeouts and connection errors
  are retried ``max_retries`` times with exponential backoff (honouring ``Retry-After``); once
  output has streamed, a failure is reported instead, because a retry would repeat it.
- **The key is a secret**: kept in a ``SecretStr``, never in ``repr()``, an error message (server
  messages are redacted, fragments included) or anything the agent saves. Credentials in
  ``base_url`` (``https://user:key@host/v1``, ``...?key=...``) are secrets too: they are taken
  out of the URL, sent as a header or query parameter, and redacted everywhere (httpx's log
  of request URLs included).
- The ``openai`` package is optional: ``pip install "nb-hitl[openai]"``.
"""

from __future__ import annotations

import asyncio
import os
import warnings
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from nb_hitl.exceptions import ConfigError, ModelAuthError

from ._base import ChatModelBase, ChatResponse, ModelCall, ToolChoice
from ._continuation import CONTINUE_KWARG
from ._openai_errors import ErrorContext
from ._openai_exchange import Exchange
from ._openai_prefix import (
    COMPLETIONS,
    ChatTemplate,
    check_prefix_style,
    check_template,
    prefix_request,
)
from ._secrets import install_log_redaction, split_url_credentials
from ._structured import STRUCTURED_TOOL, structured_tool, with_structured_output

__all__ = ["OpenAIChatModel"]

INSTALL_HINT = 'The OpenAI-compatible models need the openai package: pip install "nb-hitl[openai]"'
OPENAI_BASE_URL = "https://api.openai.com/v1"
DASHSCOPE_BASE_URL = "https://dashscope.aliyuncs.com/compatible-mode/v1"
"""DashScope's compatible mode (mainland); ``DashScopeChatModel`` lives in ``_dashscope_model``."""
NO_KEY_PLACEHOLDER = "no-key-needed"
"""Sent to key-less local servers, because the SDK refuses to run without some key."""


def import_openai() -> Any:
    """Import ``openai`` or raise an ``ImportError`` with the install command."""
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - exercised in an environment without openai
        raise ImportError(INSTALL_HINT) from exc
    return openai


def display_url(url: str) -> str:
    """``url`` without any user:password part, for messages and reprs."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit(parts._replace(netloc=netloc))
    return url


class OpenAIChatModel(ChatModelBase):
    """A chat model served over the OpenAI chat-completions protocol.

    Args:
        model_name: the model, e.g. ``"gpt-4o-mini"``, ``"llama3.2"`` or a server's alias.
        api_key: the key; default ``$OPENAI_API_KEY`` (``key_env``). Servers on another
            ``base_url`` may need none.
        stream: stream the reply token by token (``False``: one chunk at the end).
        base_url: the API root including ``/v1``; default ``$OPENAI_BASE_URL`` or OpenAI's.
        timeout: seconds to wait for a connection, for the answer, and between two chunks.
        max_retries: extra attempts after a retryable failure before the first token.
        retry_base_delay: first backoff delay in seconds; doubled per attempt, with jitter.
        max_retry_delay: longest single wait, also the cap on a server's ``Retry-After``.
        tool_choice: default tool choice when tools are given: ``"auto"``, ``"none"``,
            ``"required"`` or a tool name (forces that tool; llama.cpp's
            ``chatml-function-calling`` needs this to call tools at all).
        stream_usage: ask for usage in the stream (``stream_options.include_usage``); set False
            for a server that rejects the option.
        reasoning_effort: passed through for reasoning models (``"low"``/``"medium"``/``"high"``).
        organization: the OpenAI organization id, if the key belongs to several.
        stream_tool_parsing: as AgentScope's: while a tool call's arguments stream, its
            ``input`` holds what can be read of them so far (``False``: ``{}`` until the call
            is complete). ``raw_input`` holds the text until then either way. Differs on
            purpose: complete arguments that are not valid JSON are not repaired; the call
            keeps ``input={}`` and its ``raw_input``, and the toolkit answers with an error.
        client_type: ``"openai"`` (AgentScope's ``"azure"`` is not supported: point
            ``base_url`` at the deployment instead).
        client_kwargs: extra ``openai.AsyncOpenAI`` arguments (``default_headers``...); a
            ``base_url`` here works too.
        generate_kwargs: extra request fields (``temperature``, ``max_tokens``, ``seed``...);
            fields the SDK does not know go in the JSON body as they are.
        client_args: deprecated name of ``client_kwargs`` (a ``DeprecationWarning``).
        key_env: the environment variable named in error messages and read for the key.
        provider: a name for messages (default: derived from ``base_url``).
        assistant_prefix: how the server is asked to continue a partial answer
            (``agent.resume()``): ``"continue_final_message"`` (vLLM, SGLang, llama-server),
            ``"prefix"`` (DeepSeek beta, Mistral), ``"partial"`` (DashScope), ``"plain"``
            (servers that continue a final assistant message by themselves), ``"completions"``
            (llama-cpp-python: a raw ``/v1/completions`` request with ``chat_template``), ``None``
            (the continuation prompt), or ``"auto"`` (by host; see ``_openai_prefix``).
        chat_template: for ``"completions"``: ``"chatml"`` or a function (messages) -> prompt.

    ``await model(messages, tools=..., tool_choice=..., structured_model=...)`` works as in
    AgentScope 1.x (see ``ChatModelBase``). With ``structured_model`` the model is made to call
    one tool, ``generate_structured_output``, whose arguments are the model's fields, and the
    final chunk's ``metadata`` holds them; ``tools`` and ``tool_choice`` are then ignored.
    Differs on purpose: AgentScope first tries the ``response_format`` (JSON schema) API and
    falls back to this tool call; nb_hitl always uses the tool call, which every
    OpenAI-compatible server with tool support understands.
    """

    supports_structured_model = True
    """Memory compression passes ``structured_model=`` (the forced tool call), as AgentScope's
    compression always does; a server that rejects tools (HTTP 400/422) gets the request again
    without."""

    default_base_url: str = OPENAI_BASE_URL
    default_key_env: str = "OPENAI_API_KEY"
    base_url_env: str | None = "OPENAI_BASE_URL"

    def __init__(
        self,
        model_name: str,
        api_key: str | None = None,
        stream: bool = True,
        reasoning_effort: str | None = None,
        organization: str | None = None,
        stream_tool_parsing: bool = True,
        client_type: str = "openai",
        client_kwargs: dict[str, Any] | None = None,
        generate_kwargs: dict[str, Any] | None = None,
        *,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        retry_base_delay: float = 0.5,
        max_retry_delay: float = 20.0,
        tool_choice: ToolChoice | None = None,
        stream_usage: bool = True,
        client_args: dict[str, Any] | None = None,
        key_env: str | None = None,
        provider: str | None = None,
        assistant_prefix: str | None = "auto",
        chat_template: str | ChatTemplate = "chatml",
    ) -> None:
        if not isinstance(model_name, str) or not model_name.strip():
            raise ConfigError(
                "model_name must be a non-empty string, e.g. OpenAIChatModel('gpt-4o-mini')."
            )
        if timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds (got {timeout}).")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0 (got {max_retries}).")
        if retry_base_delay < 0 or max_retry_delay < 0:
            raise ConfigError("retry_base_delay and max_retry_delay must be >= 0.")
        if client_type != "openai":
            raise ConfigError(
                f"client_type={client_type!r} is not supported; nb_hitl speaks the OpenAI "
                "protocol to any server: pass base_url=... (and api_key=...) instead."
            )
        if client_args is not None:
            if client_kwargs is not None:
                raise ConfigError(
                    "Pass client_kwargs only (client_args is its deprecated older name)."
                )
            warnings.warn(
                "client_args is deprecated; use client_kwargs (same meaning).",
                DeprecationWarning,
                stacklevel=2,
            )
            client_kwargs = client_args
        import_openai()  # fail now, with the install hint, rather than on the first call
        client_args = dict(client_kwargs or {})
        if organization is not None:
            client_args.setdefault("organization", organization)
        self.model_name = model_name
        self.stream = stream
        self.key_env = key_env or self.default_key_env
        env_url = os.environ.get(self.base_url_env) if self.base_url_env else None
        url = base_url or client_args.pop("base_url", None) or env_url or self.default_base_url
        # Credentials in the URL never stay in it (see _secrets.split_url_credentials).
        self.base_url, self._url_credentials = split_url_credentials(str(url).rstrip("/"))
        if self._url_credentials:
            install_log_redaction()
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.retry_base_delay = float(retry_base_delay)
        self.max_retry_delay = float(max_retry_delay)
        self.tool_choice = tool_choice
        self.stream_usage = stream_usage
        self.reasoning_effort = reasoning_effort
        self.stream_tool_parsing = stream_tool_parsing
        self.generate_kwargs = dict(generate_kwargs or {})
        self.provider = provider or self._default_provider()
        self.assistant_prefix = check_prefix_style(assistant_prefix, self.base_url)
        """The request shape that continues a partial answer (None: the prompt form)."""
        self.supports_assistant_prefix = self.assistant_prefix is not None
        self._chat_template = check_template(chat_template)
        key = api_key if api_key is not None else os.environ.get(self.key_env)
        client_key = client_args.pop("api_key", None)
        key = key or client_key
        if not key and self._needs_key():
            raise ModelAuthError(
                f"No API key for {self.provider}: set the environment variable {self.key_env} "
                f"(or pass api_key=...). For a local server such as Ollama, vLLM or llama.cpp, "
                f"pass base_url=... instead; those need no key."
            )
        self._api_key = SecretStr(key or NO_KEY_PLACEHOLDER)
        self._client_args = client_args
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._http = Exchange(self)
        """The HTTP exchange of each call: request, reader task, retries (``_openai_exchange``)."""
        self._structured_output_fallback = True
        """AgentScope's latch for "structured output goes through a tool call": always so here."""
        self.client: Any = self._build_client()
        """The SDK client (``openai.AsyncClient``), built here as AgentScope builds it; replace
        it with your own (a proxy, a mock transport) and every request goes through yours."""
        self._own_client: Any = self.client

    # -- configuration -------------------------------------------------------------------------
    def _default_provider(self) -> str:
        if self.base_url == OPENAI_BASE_URL:
            return "OpenAI"
        if self.base_url == DASHSCOPE_BASE_URL or "dashscope" in self.base_url:
            return "DashScope"
        return f"the server at {display_url(self.base_url)}"

    def _needs_key(self) -> bool:
        host = urlsplit(self.base_url).hostname or ""
        return host in ("api.openai.com",) or host.endswith("dashscope.aliyuncs.com")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_name={self.model_name!r}, "
            f"base_url={display_url(self.base_url)!r}, stream={self.stream})"
        )

    def _context(self, attempts: int, chunks: int) -> ErrorContext:
        return ErrorContext(
            provider=self.provider,
            model_name=self.model_name,
            base_url=display_url(self.base_url),
            key_env=self.key_env,
            secrets=self._secret_values(),
            timeout=self.timeout,
            attempts=attempts,
            chunks=chunks,
        )

    def _secret_values(self) -> tuple[str, ...]:
        """Every value that must never be shown: the key and the URL's credentials."""
        key = self._api_key.get_secret_value()
        own = () if key == NO_KEY_PLACEHOLDER else (key,)
        return own + self._url_credentials.secrets()

    # -- the client ----------------------------------------------------------------------------
    def _build_client(self) -> Any:
        """``openai.AsyncClient(api_key=, organization=, **client_kwargs)`` as AgentScope calls
        it, then nb_hitl's base URL, timeout and retry settings (retries are ours)."""
        openai = import_openai()
        args = dict(self._client_args)
        organization = args.pop("organization", None)
        sdk_default = os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        if self._url_credentials:  # taken out of base_url; sent, never shown
            headers = args.get("default_headers") or {}
            query = args.get("default_query") or {}
            args["default_headers"] = {**self._url_credentials.headers(), **headers}
            args["default_query"] = {**self._url_credentials.query(), **query}
        if self.base_url != sdk_default.rstrip("/") or self._url_credentials:
            args["base_url"] = self.base_url
        client = openai.AsyncClient(
            api_key=self._api_key.get_secret_value(), organization=organization, **args
        )
        if "timeout" not in args:
            client.timeout = self.timeout
        if "max_retries" not in args:
            client.max_retries = 0  # retries are ours: only before the first token
        return client

    # -- one call (``self._http``; a subclass overrides ``_request`` / ``_create``) -----------
    def _request(
        self,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        return self._http.request(client, messages, tools, tool_choice, kwargs)

    async def _create(self, client: Any, request: dict[str, Any]) -> Any:
        """Send ``request``: a chat completion, or the raw completion ``_request`` made."""
        return await self._http.create(client, request)

    def _generate(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: ToolChoice | None,
        kwargs: dict[str, Any],
    ) -> AsyncGenerator[ChatResponse, None]:
        return self._http.generate(messages, tools, tool_choice, kwargs)

    def _get_client(self) -> Any:
        """The client to use now: ``self.client`` as it is, unless it is the one built here
        and the event loop changed (an HTTP pool is bound to one loop), then a new one."""
        loop = asyncio.get_running_loop()
        if self.client is self._own_client:
            if self._client_loop is not None and self._client_loop is not loop:
                self.client = self._own_client = self._build_client()
            self._client_loop = loop
        return self.client

    async def aclose(self) -> None:
        """Close the HTTP connection pool of the client built here (the model stays usable:
        a new client is built on the next call). A client you set is left to you."""
        if self.client is self._own_client and self._client_loop is not None:
            closing, self._client_loop = self._own_client, None
            self.client = self._own_client = self._build_client()
            await closing.close()

    async def __aenter__(self) -> OpenAIChatModel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- calling ---------------------------------------------------------------------------------
    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> ModelCall:
        """Call the model: ``await`` it, or iterate its cumulative chunks (``ChatModelBase``).

        Raises:
            ValueError: ``tool_choice`` names no offered tool; ``messages`` is not a list of
                dicts with ``role`` and ``content``.
        """
        if not isinstance(messages, list) or not all(
            isinstance(m, dict) and "role" in m and "content" in m for m in messages
        ):
            raise ValueError(
                "messages must be a list of dicts with 'role' and 'content' (what a formatter "
                "such as OpenAIChatFormatter produces)."
            )
        if structured_model is not None:
            tools = [structured_tool(structured_model)]
            tool_choice = STRUCTURED_TOOL
        elif tool_choice is not None and tools:
            self._validate_tool_choice("required" if tool_choice == "any" else tool_choice, tools)
        if kwargs.pop(CONTINUE_KWARG, False) and self.assistant_prefix is not None:
            messages, extra = prefix_request(self.assistant_prefix, messages)
            kwargs = {**kwargs, **extra}
            if self.assistant_prefix == "completions":  # no tools in a raw completion
                tools, tool_choice = None, None
                kwargs[COMPLETIONS] = self._chat_template
        stream = self._generate(messages, tools, tool_choice, kwargs)
        if structured_model is not None:
            stream = _structured_chunks(stream)
        return ModelCall(lambda: stream, self.stream)


async def _structured_chunks(
    stream: AsyncGenerator[ChatResponse, None],
) -> AsyncGenerator[ChatResponse, None]:
    try:
        async for chunk in stream:
            yield with_structured_output(chunk)
    finally:
        await stream.aclose()
