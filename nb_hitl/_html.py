"""Escaped static HTML for ``Msg._repr_html_`` (the widgets have their own renderer)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nb_hitl.message import Msg


def render_msg_html(msg: Msg) -> str:
    """Render one message as escaped HTML: every string from the message is escaped."""
    parts: list[str] = []
    for block in msg.get_content_blocks():
        if block.type == "text":
            parts.append(f'<div style="white-space:pre-wrap">{html.escape(block.text)}</div>')
        elif block.type == "thinking":
            parts.append(
                f"<details><summary>thinking</summary><pre>{html.escape(block.thinking)}</pre>"
                "</details>"
            )
        elif block.type == "tool_use":
            args = block.raw_input if block.raw_input is not None else str(block.input)
            parts.append(f"<div><code>{html.escape(block.name)}({html.escape(args)})</code></div>")
        elif block.type == "tool_result":
            parts.append(
                f"<div>&#8627; <code>{html.escape(block.name)}</code>: "
                '<span style="white-space:pre-wrap">'
                f"{html.escape(block.output_text())}</span></div>"
            )
    badge = ""
    css = "nb-hitl-msg"
    if msg.is_interrupted or msg.metadata.get("_partial"):
        css += " nb-hitl-interrupted"
        badge = ' <span class="nb-hitl-badge">interrupted</span>'
    return (
        f'<div class="{css}" data-role="{html.escape(msg.role)}">'
        f"<b>{html.escape(msg.name)}</b> <small>({html.escape(msg.role)})</small>{badge}"
        f"{''.join(parts)}</div>"
    )
