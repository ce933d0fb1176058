"""Re-export of ``nb_hitl._render`` (the one module that renders messages, escapes and styles).

Rendering lives below both the message layer and the widgets; the widgets import it from here.
"""

from __future__ import annotations

from nb_hitl._render import (
    CSS,
    PLAIN_LIMIT,
    PREVIEW_CHARS,
    REMOTE_IMAGES,
    TOOL_GLYPH,
    RemoteImages,
    RenderableMsg,
    block_html,
    body_html,
    check_remote_images,
    esc,
    header_html,
    image_html,
    markdown,
    media_html,
    msg_classes,
    msg_flags,
    msg_html,
    plain,
    preview,
)

__all__ = [
    "CSS",
    "PLAIN_LIMIT",
    "PREVIEW_CHARS",
    "REMOTE_IMAGES",
    "TOOL_GLYPH",
    "RemoteImages",
    "RenderableMsg",
    "block_html",
    "body_html",
    "check_remote_images",
    "esc",
    "header_html",
    "image_html",
    "markdown",
    "media_html",
    "msg_classes",
    "msg_flags",
    "msg_html",
    "plain",
    "preview",
]
