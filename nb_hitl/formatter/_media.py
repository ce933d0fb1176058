"""Media sources (image, audio, video blocks) turned into what chat APIs take.

Local files are read and sent inline as base64 (as AgentScope does); web URLs are passed on
as they are. Differs on purpose from AgentScope: nothing is downloaded while formatting (a
web audio URL, which the OpenAI API cannot take by reference, is a clear error instead of a
blocking download inside the event loop).
"""

from __future__ import annotations

import base64
import os
from typing import Any
from urllib.parse import urlparse

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
"""Image files OpenAI's vision API takes (by extension)."""

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def local_path(url: str) -> str | None:
    """The local file a URL names (``file://`` prefix removed), or ``None`` if there is none."""
    raw = url.removeprefix("file://")
    return raw if os.path.isfile(raw) else None


def is_web_url(url: str) -> bool:
    """True when ``url`` has a scheme other than ``file`` (``https://``, ``data:``...)."""
    return urlparse(url.removeprefix("file://")).scheme not in ("", "file")


def sniff_image_type(head: bytes) -> str | None:
    """The image MIME type of a file's first bytes (PNG, JPEG, GIF, WebP), or ``None``."""
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _read_b64(path: str) -> str:
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode("ascii")


def openai_image_url(source: Any) -> str:
    """The ``image_url.url`` for an image source: a data URL for local files and base64."""
    if source["type"] == "base64":
        return f"data:{source['media_type']};base64,{source['data']}"
    url = str(source["url"])
    path = local_path(url)
    if path is not None:
        lower = path.lower()
        if lower.endswith(IMAGE_EXTENSIONS):
            return f"data:image/{lower.rsplit('.', 1)[-1]};base64,{_read_b64(path)}"
        with open(path, "rb") as f:
            mime = sniff_image_type(f.read(16))
        if mime is not None:
            return f"data:{mime};base64,{_read_b64(path)}"
    if is_web_url(url):
        return url
    raise ValueError(
        f'Invalid image URL: "{url}". Give a web URL, an existing local image file '
        "(.png, .jpg, .jpeg, .gif, .webp) or a Base64Source."
    )


def openai_input_audio(source: Any) -> dict[str, str]:
    """The ``input_audio`` part for an audio source (wav or mp3, sent inline)."""
    if source["type"] == "base64":
        media_type = str(source["media_type"])
        if media_type not in ("audio/wav", "audio/mp3"):
            raise TypeError(
                f"Unsupported audio media type: {media_type}; the OpenAI API takes audio/wav "
                "and audio/mp3."
            )
        return {"data": str(source["data"]), "format": media_type.split("/")[-1]}
    url = str(source["url"])
    extension = url.removeprefix("file://").rsplit(".", 1)[-1].lower()
    if extension not in ("wav", "mp3"):
        raise TypeError(
            f"Unsupported audio file extension: {extension}; the OpenAI API takes wav and mp3."
        )
    path = local_path(url)
    if path is not None:
        return {"data": _read_b64(path), "format": extension}
    if is_web_url(url):
        # differs on purpose: AgentScope downloads the file here (a blocking request).
        raise ValueError(
            f"Audio at a web URL ({url}) is not downloaded while formatting: download it and "
            "pass Base64Source(type='base64', media_type='audio/wav', data=...) instead."
        )
    raise ValueError(f"Unsupported audio source: {url}; give a local file or a Base64Source.")


def dashscope_media_url(source: Any) -> str:
    """The URL DashScope takes for an image, audio or video source (data URL when inline)."""
    if source["type"] == "base64":
        return f"data:{source['media_type']};base64,{source['data']}"
    url = str(source["url"]).removeprefix("file://")
    if os.path.isfile(url):
        import mimetypes  # its tables load on import: only for a local file

        media_type = mimetypes.guess_type(os.path.abspath(url))[0]
        if not media_type:
            raise ValueError(
                f"Cannot tell the media type of '{os.path.abspath(url)}'. Use a file with a "
                "recognised extension (.png, .jpg, .mp3, .mp4...)."
            )
        return f"data:{media_type};base64,{_read_b64(url)}"
    return url
