"""DashScope's content parts as its OpenAI-compatible mode takes them (``DashScopeChatModel``
with ``api="openai"``; the model itself is in ``_dashscope_model``)."""

from __future__ import annotations

import mimetypes
from typing import Any
from urllib.parse import urlsplit

__all__ = ["compatible_content"]


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
