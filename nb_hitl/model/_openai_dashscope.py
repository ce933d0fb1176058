"""DashScopeChatModel: Qwen models on Alibaba Cloud, through DashScope's OpenAI-compatible mode."""

from __future__ import annotations

from typing import Any

from ._openai import DASHSCOPE_BASE_URL, OpenAIChatModel

__all__ = ["DashScopeChatModel"]


class DashScopeChatModel(OpenAIChatModel):
    """Alibaba Cloud's DashScope (Qwen models) through its OpenAI-compatible mode.

    AgentScope 1.x's ``DashScopeChatModel(model_name, api_key, stream=True,
    enable_thinking=None, multimodality=None, generate_kwargs=None, base_http_api_url=None,
    stream_tool_parsing=True)`` works unchanged; ``OpenAIChatModel``'s keyword arguments
    (``timeout``, ``max_retries``...) work too. The key defaults to ``$DASHSCOPE_API_KEY``; the
    base URL to ``$DASHSCOPE_BASE_URL`` or the mainland endpoint (use
    ``https://dashscope-intl.aliyuncs.com/compatible-mode/v1`` outside mainland China).

    ``enable_thinking=True`` streams Qwen's reasoning as thinking blocks and, as in AgentScope
    (DashScope requires it), forces ``stream=True``. ``multimodality`` is kept for
    compatibility: the compatible mode serves text and vision models on one endpoint, so
    there is no API to choose. Differs on purpose: the key is not readable as ``.api_key``
    (it is a secret; see ``OpenAIChatModel``).
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
        **kwargs: Any,
    ) -> None:
        generate_kwargs = dict(generate_kwargs or {})
        if enable_thinking is not None:
            generate_kwargs.setdefault("enable_thinking", enable_thinking)
        if enable_thinking and not stream:
            stream = True  # DashScope answers thinking requests only as a stream
        if base_http_api_url is not None:
            kwargs.setdefault("base_url", base_http_api_url)
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
