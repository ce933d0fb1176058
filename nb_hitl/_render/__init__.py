"""Escaped HTML for messages and widgets: markdown with raw HTML disabled, message parts, the CSS.

``_text.py``: ``esc``, ``markdown`` and the remote-image policy (no image at a URL is fetched
without a click); ``_msg.py``: a message's header, blocks and row; ``_css.py``: the stylesheet
(``CSS``, its rules in the CSS file ``widgets.css``, and the card and question rules);
``_theme.py``: the palette (``LIGHT``/``DARK``, speaker and button colours) and
``var``/``paint`` for theme variables.
Every string from a model, a tool, a person or an agent name goes through ``esc()`` or
``markdown()`` before it reaches an ``ipywidgets.HTML`` value, which inserts it unsanitised.
This package sits below ``nb_hitl.message`` (``Msg._repr_html_``) and ``nb_hitl.widgets`` and
imports no other nb_hitl module: it reads messages through the ``RenderableMsg`` protocol.
"""

from __future__ import annotations

from ._css import CARD_CSS, CSS, QUESTION_RULES
from ._msg import (
    COPY_INLINE_CHARS,
    DEFAULT_INTERRUPT_TEXT,
    INTERRUPT_CAUSES,
    TOOL_GLYPH,
    RenderableMsg,
    block_html,
    body_html,
    copy_button,
    copy_text,
    edited_call_html,
    error_text,
    header_html,
    interrupt_cause,
    msg_classes,
    msg_flags,
    msg_html,
    shown_text,
    with_copy_button,
)
from ._text import (
    REMOTE_IMAGES,
    RemoteImages,
    check_remote_images,
    esc,
    image_html,
    markdown,
    media_html,
    plain,
    preview,
)
from ._theme import BUTTONS, DARK, DARK_SPEAKERS, INK, LIGHT, NEUTRAL, SPEAKERS, paint, var

__all__ = [
    "BUTTONS",
    "CARD_CSS",
    "COPY_INLINE_CHARS",
    "CSS",
    "DARK",
    "DARK_SPEAKERS",
    "DEFAULT_INTERRUPT_TEXT",
    "INK",
    "INTERRUPT_CAUSES",
    "LIGHT",
    "NEUTRAL",
    "QUESTION_RULES",
    "REMOTE_IMAGES",
    "SPEAKERS",
    "TOOL_GLYPH",
    "RemoteImages",
    "RenderableMsg",
    "block_html",
    "body_html",
    "check_remote_images",
    "copy_button",
    "copy_text",
    "edited_call_html",
    "error_text",
    "esc",
    "header_html",
    "image_html",
    "interrupt_cause",
    "markdown",
    "media_html",
    "msg_classes",
    "msg_flags",
    "msg_html",
    "paint",
    "plain",
    "preview",
    "shown_text",
    "var",
    "with_copy_button",
]
