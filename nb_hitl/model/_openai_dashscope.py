"""DashScopeChatModel: Qwen models on Alibaba Cloud, through DashScope's OpenAI-compatible mode."""

from __future__ import annotations

import mimetypes
from typing import Any
from urllib.parse import urlsplit

from ._openai import DASHSCOPE_BASE_URL, OpenAIChatModel

__all__ = ["DashScopeChatModel", "compatible_content"]


def _audio_format(url: str) -> str:
    """``mp3``, ``wav``... from a data URL's media type or a URL's file extension."""
    if url.startswith("data:"):
        media_type = url[5:].split(";", 1)[0].split(",", 1)[0]
    else:
        media_type = mimetypes.guess_type(urlsplit(url).path)[0] or ""
    subtype = media_type.split("/")[-1].lower()
    subtype = {"mpeg": "mp3", "x-wav": "wav", "wave": "wav"}.get(subtype, subtype)
    if not subtype:
        raise ValueError(
            f"Cannot tell the format of the audio at {url[:60]!r}: give a URL ending in .mp3 "
            "or .wav, or a Base64Source with its media_type."
        )
    return subtype


def _compatible_part(part: Any) -> Any:
    if not isinstance(part, dict) or "type" in part or len(part) != 1:
        return part  # OpenAI-style already (OpenAIChatFormatter's), or not a native part
    ((kind, value),) = part.items()
    if kind == "text":
        return {"type": "text", "text": value}
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": value}}
    if kind == "video":
        if isinstance(value, list):  # a video given as its frames
            return {"type": "video", "video": value}
        return {"type": "video_url", "video_url": {"url": value}}
    if kind == "audio":
        return {
            "type": "input_audio",
            "input_audio": {"data": value, "format": _audio_format(value)},
        }
    return part


def compatible_content(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """DashScope-native content parts (``{"text"}``, ``{"image"}``, ``{"audio"}``,
    ``{"video"}``, what ``DashScopeChatFormatter`` writes) as the OpenAI-compatible endpoint
    takes them (``text``, ``image_url``, ``input_audio``, ``video_url`` parts). Messages with
    string content, and OpenAI-style parts, are sent unchanged."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(p, dict) and "type" not in p for p in content
        ):
            message = {**message, "content": [_compatible_part(p) for p in content]}
        out.append(message)
    return out


class DashScopeChatModel(OpenAIChatModel):
    """Alibaba Cloud's DashScope (Qwen models) through its OpenAI-compatible mode.

    AgentScope 1.x's ``DashScopeChatModel(model_name, api_key, stream=True,
    enable_thinking=None, multimodality=None, generate_kwargs=None, base_http_api_url=None,
    stream_tool_parsing=True)`` works unchanged; ``OpenAIChatModel``'s keyword arguments
    (``timeout``, ``max_retries``...) work too. The key defaults to ``$DASHSCOPE_API_KEY``; the
    base URL to ``$DASHSCOPE_BASE_URL`` or the mainland endpoint (use
    ``https://dashscope-intl.aliyuncs.com/compatible-mode/v1`` outside mainland China).

    ``DashScopeChatFormatter``'s native content parts (``{"image": url}``...) are sent as the
    compatible mode's (``image_url``, ``input_audio``, ``video_url``; ``compatible_content``),
    so images, audio and video work with either formatter.

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
        generate_kwargs = dict(generate_kwargs or {})  # kept as passed (AgentScope's)
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

    def _request(
        self,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any,
        kwargs: dict[str, Any],
    ) -> dict[str, Any]:
        if self.enable_thinking is not None and "enable_thinking" not in self.generate_kwargs:
            kwargs = {"enable_thinking": self.enable_thinking, **kwargs}  # sent, not stored
        return super()._request(client, compatible_content(messages), tools, tool_choice, kwargs)
