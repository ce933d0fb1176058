"""Tokens of images and audio in a chat prompt, by OpenAI's published rules, offline.

Images (https://platform.openai.com/docs/guides/images-vision, "Calculating costs"):

- ``detail: "low"``: the model's base tokens;
- otherwise (``high``, ``auto``, or unset, counted as high so as not to undercount): fit the
  image in 2048 x 2048, scale its shortest side to 768, then base + tile tokens per 512 px tile;
- ``gpt-4.1-mini``, ``gpt-4.1-nano`` and ``o4-mini`` count 32 px patches instead (at most
  1536), times 1.62, 2.46 and 1.72.

The size is read from the image's own header (PNG, JPEG, GIF, WebP) with no dependency. Differs
on purpose from AgentScope, which downloads a web image to measure it: nothing is fetched
here, and an image whose size cannot be read (a web URL, an unknown format) counts as the
largest a high-detail image can cost (8 tiles), so a budget is never exceeded by surprise.

Audio (an estimate; OpenAI publishes no exact rule): 10 tokens per second, the duration read
from a WAV header, else from the data size at 128 kbit/s.
"""

from __future__ import annotations

import base64
import binascii
import math
import struct

_PATCH_MODELS = (("gpt-4.1-mini", 1.62), ("gpt-4.1-nano", 2.46), ("o4-mini", 1.72))
_MAX_TILES = 8  # 768 x 2048 after scaling: 2 x 4 tiles
AUDIO_TOKENS_PER_SECOND = 10


def base_and_tile_tokens(model: str) -> tuple[int, int]:
    """(base, per-tile) image tokens of an OpenAI model (gpt-4o's 85/170 when unknown).

    Differs on purpose from AgentScope, which gives gpt-4o-mini gpt-4o's 85/170 (its
    ``"4o-mini"`` prefix never matches) and raises for other models: gpt-4o-mini is counted
    with its published 2833/5667 here.
    """
    if model.startswith("gpt-4o-mini"):
        return 2833, 5667
    if model.startswith(("o1", "o3")):
        return 75, 150
    return 85, 170


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, WebP or JPEG header, or ``None``."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        return _webp_size(data)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return int(width), int(height)
        i += 2 + length
    return None


def data_url_bytes(url: str) -> bytes | None:
    """The bytes of a ``data:...;base64,`` URL, or ``None`` for any other URL."""
    if not url.startswith("data:") or ";base64," not in url[:100]:
        return None
    try:
        return base64.b64decode(url.split(";base64,", 1)[1], validate=False)
    except (binascii.Error, ValueError):
        return None


def image_tokens(model: str, url: str, detail: str | None = None) -> int:
    """Tokens of one ``image_url`` part for ``model`` (see the module docstring)."""
    if detail not in (None, "low", "high", "auto"):
        raise ValueError(f"Unsupported image detail {detail!r}; expected 'low', 'auto' or 'high'.")
    raw = data_url_bytes(url)
    size = image_size(raw) if raw is not None else None
    for prefix, factor in _PATCH_MODELS:
        if model.startswith(prefix):
            patches = 1536 if size is None else _patches(*size)
            return math.ceil(patches * factor)
    base, tile = base_and_tile_tokens(model)
    if detail == "low":
        return base
    if size is None:
        return base + tile * _MAX_TILES
    return base + tile * _tiles(*size)


def _patches(width: int, height: int) -> int:
    return min(math.ceil(width / 32) * math.ceil(height / 32), 1536)


def _tiles(width: int, height: int) -> int:
    if width <= 0 or height <= 0:
        return _MAX_TILES
    if width > 2048 or height > 2048:
        ratio = min(2048 / width, 2048 / height)
        width, height = int(width * ratio), int(height * ratio)
    ratio = 768 / min(width, height)
    width, height = int(width * ratio), int(height * ratio)
    return ((width + 511) // 512) * ((height + 511) // 512)


def audio_tokens(data_b64: str, audio_format: str) -> int:
    """Estimated tokens of an ``input_audio`` part (see the module docstring)."""
    try:
        raw = base64.b64decode(data_b64, validate=False)
    except (binascii.Error, ValueError):
        raw = b""
    seconds = None
    if audio_format == "wav" and raw[:4] == b"RIFF" and raw[8:12] == b"WAVE":
        seconds = _wav_seconds(raw)
    if seconds is None:
        seconds = len(raw) / 16_000  # 128 kbit/s
    return math.ceil(seconds * AUDIO_TOKENS_PER_SECOND)


def _wav_seconds(raw: bytes) -> float | None:
    i, byte_rate = 12, 0
    while i + 8 <= len(raw):
        chunk, size = raw[i : i + 4], int.from_bytes(raw[i + 4 : i + 8], "little")
        if chunk == b"fmt " and i + 16 <= len(raw):
            byte_rate = int.from_bytes(raw[i + 16 : i + 20], "little")
        elif chunk == b"data":
            return size / byte_rate if byte_rate else None
        i += 8 + size + (size & 1)
    return None
