"""DashScopeChatModel: Qwen models on Alibaba Cloud, through DashScope's OpenAI-compatible mode."""

from __future__ import annotations

from typing import Any

from ._openai import DASHSCOPE_BASE_URL, OpenAIChatModel

__all__ = ["DashScopeChatModel"]


class DashScopeChatModel(OpenAIChatModel):
    """Alibaba Cloud's DashScope (Qwen models) through its OpenAI-compatible mode.

    Same arguments as ``OpenAIChatModel`` (AgentScope's ``DashScopeChatModel(model_name,
    api_key, stream=True, enable_thinking=None, generate_kwargs=None, base_http_api_url=None)``
    works unchanged). The key defaults to ``$DASHSCOPE_API_KEY``; the base URL to
    ``$DASHSCOPE_BASE_URL`` or the mainland endpoint (use
    ``https://dashscope-intl.aliyuncs.com/compatible-mode/v1`` outside mainland China).
    ``enable_thinking=True`` streams Qwen's reasoning as thinking blocks.
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
        generate_kwargs: dict[str, Any] | None = None,
        base_http_api_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        generate_kwargs = dict(generate_kwargs or {})
        if enable_thinking is not None:
            generate_kwargs.setdefault("enable_thinking", enable_thinking)
        if base_http_api_url is not None:
            kwargs.setdefault("base_url", base_http_api_url)
        kwargs.setdefault("provider", "DashScope")
        super().__init__(model_name, api_key, stream, generate_kwargs=generate_kwargs, **kwargs)
