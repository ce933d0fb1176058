"""AgentScope 1.x token counting code (``OpenAITokenCounter``) run after renaming the imports.

Written from the behaviour AgentScope 1.0.21 documents (OpenAI's cookbook rule for messages,
names and tools; OpenAI's published image rule, whose worked examples are used here).
Differences kept on purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import base64
import struct

import pytest

from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.message import Base64Source, ImageBlock, Msg, TextBlock, URLSource
from nb_hitl.token import OpenAITokenCounter, TokenCounter, load_offline_encoding
from nb_hitl.token._image import image_size


def png(width: int, height: int) -> bytes:
    """The start of a PNG: signature and IHDR (all a size reader needs)."""
    ihdr = struct.pack(">II", width, height) + b"\x08\x06\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def image_message(url: str, detail: str | None = None) -> dict:
    image_url = {"url": url} if detail is None else {"url": url, "detail": detail}
    return {"role": "user", "content": [{"type": "image_url", "image_url": image_url}]}


async def test_text_messages_follow_the_cookbook_rule() -> None:
    counter = OpenAITokenCounter("gpt-4o")
    assert counter.model_name == "gpt-4o"
    enc = load_offline_encoding("o200k_base")
    messages = [
        {"role": "system", "name": "system", "content": "You're a helpful assistant."},
        {"role": "user", "name": "user", "content": [{"type": "text", "text": "Hi there!"}]},
    ]
    expected = 3  # reply priming
    expected += (
        3 + len(enc.encode("system")) * 2 + 1 + len(enc.encode("You're a helpful assistant."))
    )
    expected += 3 + len(enc.encode("user")) * 2 + 1 + len(enc.encode("Hi there!"))
    assert await counter.count(messages) == expected
    assert await counter.count(messages, tools=None) == expected


async def test_tools_add_their_schema_tokens() -> None:
    counter = OpenAITokenCounter("gpt-4o")
    messages = [{"role": "user", "content": "What's the weather in Paris?"}]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the weather.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "The city."}},
                },
            },
        }
    ]
    with_tools = await counter.count(messages, tools)
    assert with_tools - await counter.count(messages) == counter.count_tools(tools) > 0


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        ((1024, 1024), None, 765),  # OpenAI's example: 768x768, 4 tiles
        ((1024, 1024), "high", 765),
        ((2048, 4096), "auto", 1105),  # OpenAI's example: 768x1536, 6 tiles
        ((4096, 8192), None, 1105),  # first fitted in 2048x2048
        ((512, 512), None, 765),  # small images are scaled up to 768 too
        ((1024, 1024), "low", 85),
    ],
)
async def test_images_count_by_the_tile_rule(
    size: tuple[int, int], detail: str | None, tokens: int
) -> None:
    counter = OpenAITokenCounter("gpt-4o")
    empty = await counter.count([{"role": "user", "content": []}])
    counted = await counter.count([image_message(data_url(png(*size)), detail)])
    assert counted - empty == tokens


async def test_image_rules_of_other_models() -> None:
    url = data_url(png(1024, 1024))
    one = [image_message(url)]
    base = await OpenAITokenCounter("o1").count([{"role": "user", "content": []}])
    assert await OpenAITokenCounter("o1").count(one) - base == 75 + 4 * 150
    # gpt-4.1-mini counts 32 px patches: 32 * 32 patches * 1.62
    mini = OpenAITokenCounter("gpt-4.1-mini")
    assert await mini.count(one) - await mini.count([{"role": "user", "content": []}]) == 1659
    # differs on purpose: AgentScope's "4o-mini" prefix never matches "gpt-4o-mini", which it
    # then counts as gpt-4o (85/170); OpenAI publishes 2833/5667 for gpt-4o-mini.
    small = OpenAITokenCounter("gpt-4o-mini")
    extra = await small.count(one) - await small.count([{"role": "user", "content": []}])
    assert extra == 2833 + 4 * 5667


async def test_web_images_are_not_downloaded_and_count_as_the_largest() -> None:
    # differs on purpose: AgentScope downloads a web image to measure it (network I/O inside
    # count(), three retries); nothing is fetched here and an unmeasurable image counts as the
    # most a high-detail image can cost (8 tiles), so a budget is never exceeded by surprise.
    counter = OpenAITokenCounter("gpt-4o")
    empty = await counter.count([{"role": "user", "content": []}])
    counted = await counter.count([image_message("https://example.invalid/cat.png")])
    assert counted - empty == 85 + 8 * 170
    low = await counter.count([image_message("https://example.invalid/cat.png", "low")])
    assert low - empty == 85


async def test_an_unknown_detail_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="detail"):
        await OpenAITokenCounter("gpt-4o").count([image_message(data_url(png(8, 8)), "ultra")])


def test_image_sizes_read_from_headers() -> None:
    assert image_size(png(640, 480)) == (640, 480)
    assert image_size(b"GIF89a" + struct.pack("<HH", 300, 200) + b"\0" * 8) == (300, 200)
    sof = b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 720, 1280) + b"\0" * 12
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"\0" * 14 + sof
    assert image_size(jpeg) == (1280, 720)
    vp8x = (
        b"RIFF\0\0\0\0WEBPVP8X"
        + b"\0" * 8
        + (799).to_bytes(3, "little")
        + (599).to_bytes(3, "little")
    )
    assert image_size(vp8x) == (800, 600)
    assert image_size(b"not an image") is None


async def test_audio_is_estimated_from_its_duration() -> None:
    # OpenAI publishes no rule for audio input; nb_hitl estimates 10 tokens a second.
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    wav = b"RIFF" + struct.pack("<I", 36 + 32000) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
    wav += b"data" + struct.pack("<I", 32000) + b"\0" * 32000  # two seconds
    part = {
        "type": "input_audio",
        "input_audio": {"data": base64.b64encode(wav).decode(), "format": "wav"},
    }
    counter = OpenAITokenCounter("gpt-4o-audio-preview")
    empty = await counter.count([{"role": "user", "content": []}])
    assert await counter.count([{"role": "user", "content": [part]}]) - empty == 20


async def test_image_blocks_of_messages_are_counted_through_the_formatter() -> None:
    image = ImageBlock(
        type="image",
        source=Base64Source(
            type="base64", media_type="image/png", data=base64.b64encode(png(1024, 1024)).decode()
        ),
    )
    with_image = Msg("user", [TextBlock(type="text", text="Look."), image], "user")
    text_only = Msg("user", [TextBlock(type="text", text="Look.")], "user")
    counter = TokenCounter(model="gpt-4o")
    for formatter in (OpenAIChatFormatter(), OpenAIChatFormatter(plain_content=True)):
        (a,) = counter.count_msgs_sync([with_image], formatter)
        (b,) = counter.count_msgs_sync([text_only], formatter)
        assert a - b == 765
    # a different image is a different count (the cache keys on the image itself)
    web = Msg(
        "user",
        [TextBlock(type="text", text="Look."), ImageBlock(source=URLSource(url="https://x/y.png"))],
        "user",
    )
    web.id = with_image.id
    (c,) = counter.count_msgs_sync([web], OpenAIChatFormatter())
    assert c - b == 85 + 8 * 170
