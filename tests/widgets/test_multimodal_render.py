"""Images, audio and video blocks in the chat and in ``Msg._repr_html_``.

Inline (base64) media is drawn; media at a URL is never fetched by the browser on its own (a
link at most); anything that is not a plain http(s) URL is text, never a link.
"""

from __future__ import annotations

import base64
import re

import pytest
from widget_helpers import all_html, until

from nb_hitl.agent import ReActAgent
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import (
    AudioBlock,
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ToolResultBlock,
    URLSource,
    VideoBlock,
)
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import ChatWidget

PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kg"
    "AAAABJRU5ErkJggg=="
)
WAV_B64 = base64.b64encode(b"RIFF....WAVEfmt ").decode()


def fetching_tags(html: str) -> list[str]:
    """Tags that make a browser fetch a URL without a click (src= on img/audio/video/source)."""
    return [
        m.group(0)
        for m in re.finditer(r"<(img|audio|video|source)\b[^>]*\bsrc=\"([^\"]*)\"", html)
        if not m.group(2).startswith("data:")
    ]


def test_inline_image_is_drawn_in_the_message_repr() -> None:
    msg = Msg(
        "user",
        [
            TextBlock(text="Look at this"),
            ImageBlock(source=Base64Source(media_type="image/png", data=PNG_B64)),
        ],
        "user",
    )
    html = msg._repr_html_()
    assert f'src="data:image/png;base64,{PNG_B64}"' in html
    assert "Look at this" in html
    assert fetching_tags(html) == []


def test_remote_media_is_a_link_never_loaded() -> None:
    msg = Msg(
        "user",
        [
            ImageBlock(source=URLSource(url="https://evil.example/leak.png?d=secret")),
            AudioBlock(source=URLSource(url="https://evil.example/a.mp3")),
            VideoBlock(source=URLSource(url="http://evil.example/v.mp4")),
        ],
        "user",
    )
    html = msg._repr_html_()
    assert fetching_tags(html) == []
    assert "<img" not in html and "<audio" not in html and "<video" not in html
    assert html.count('href="http') == 3
    assert "evil.example" in html and "not loaded" in html


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        'https://x.example/a.png" onerror="alert(1)',
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
    ],
)
def test_hostile_media_urls_are_inert(url: str) -> None:
    for block in (
        ImageBlock(source=URLSource(url=url)),
        AudioBlock(source=URLSource(url=url)),
        VideoBlock(source=URLSource(url=url)),
    ):
        html = Msg("user", [block], "user")._repr_html_()
        assert 'href="javascript' not in html and 'href="vbscript' not in html
        assert 'href="data:' not in html and 'src="data:text' not in html
        assert 'onerror="' not in html
        assert fetching_tags(html) == []


def test_inline_audio_and_video_play_without_fetching() -> None:
    msg = Msg(
        "user",
        [
            AudioBlock(source=Base64Source(media_type="audio/wav", data=WAV_B64)),
            VideoBlock(source=Base64Source(media_type="video/mp4", data="AAAA")),
            # a media type that does not match the block, or data that is not base64: not drawn
            AudioBlock(source=Base64Source(media_type="text/html", data="PHNjcmlwdD4=")),
            VideoBlock(source=Base64Source(media_type="video/mp4", data='"><script>x</script>')),
        ],
        "user",
    )
    html = msg._repr_html_()
    assert f'<audio controls src="data:audio/wav;base64,{WAV_B64}"' in html
    assert '<video controls src="data:video/mp4;base64,AAAA"' in html
    assert html.count("<audio") == 1 and html.count("<video") == 1
    assert "<script>" not in html


def test_tool_result_media_is_shown_with_its_text() -> None:
    result = ToolResultBlock(
        id="1",
        name="snapshot",
        output=[
            TextBlock(text="Here is the chart."),
            ImageBlock(source=Base64Source(media_type="image/png", data=PNG_B64)),
            ImageBlock(source=URLSource(url="https://charts.example/c.png")),
        ],
    )
    html = Msg("system", [result], "system")._repr_html_()
    assert "Here is the chart." in html
    assert f"data:image/png;base64,{PNG_B64}" in html
    assert 'href="https://charts.example/c.png"' in html
    assert fetching_tags(html) == []


async def test_chat_widget_draws_media_from_memory_and_from_a_new_message() -> None:
    memory = InMemoryMemory()
    memory.add_sync(
        [
            Msg(
                "User",
                [
                    TextBlock(text="What is this?"),
                    ImageBlock(source=Base64Source(media_type="image/png", data=PNG_B64)),
                ],
                "user",
            )
        ]
    )
    agent = ReActAgent(
        "Friday", "sys", ScriptedModel(["A dot."], tokens_per_second=1e6), memory=memory
    )
    chat = ChatWidget(agent)
    assert f"data:image/png;base64,{PNG_B64}" in all_html(chat.rows[0])
    await agent(
        Msg("User", [ImageBlock(source=URLSource(url="https://img.example/x.png"))], "user")
    )
    await until(lambda: "A dot." in all_html(chat))
    html = all_html(chat)
    assert 'href="https://img.example/x.png"' in html
    assert fetching_tags(html) == []
