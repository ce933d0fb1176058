"""Text, markdown and media as escaped HTML, under the remote-image policy.

Every string that comes from a model, a tool, a person or an agent name goes through
``esc()`` or ``markdown()`` (markdown-it with ``html=False``, which escapes raw HTML and
refuses ``javascript:`` links) before it reaches an ``ipywidgets.HTML`` value, because
``ipywidgets.HTML`` inserts its value unsanitised. ``markdown-it`` is imported on first use.

Images never make the browser fetch anything on their own: an image from a URL (a markdown
``![x](https://host/a.png?d=...)`` from a model, a tool, a person or a session file would
otherwise be fetched with no click, an exfiltration channel for a prompt injection) is drawn
by ``image_html()`` under a ``RemoteImages`` policy, by default as a link the person may open.
Inline ``data:image/...`` images are drawn as they are: showing them fetches nothing.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

PLAIN_LIMIT = 50_000
"""Text longer than this is shown escaped, without markdown (fast for 1 MB pastes)."""
PREVIEW_CHARS = 4_000
"""How much of a very long text shows before the rest folds into a <details>."""


RemoteImages = Literal["link", "show", "text"]
"""How an image from a URL (anything but an inline ``data:image``) is drawn.

``link`` (the default): a link with the image's description and host, opened only on a click;
``show``: an ``<img>`` the browser loads at once (only for sources you trust); ``text``: the
description alone.
"""
REMOTE_IMAGES: tuple[str, ...] = ("link", "show", "text")

_INLINE_IMAGE = re.compile(r"data:image/(png|jpeg|jpg|gif|webp|bmp);base64,[A-Za-z0-9+/=\s]*", re.I)


def check_remote_images(value: str) -> RemoteImages:
    """``value`` if it is a ``RemoteImages`` policy, else a ``ValueError`` listing them."""
    if value not in REMOTE_IMAGES:
        raise ValueError(
            f"remote_images must be one of {', '.join(map(repr, REMOTE_IMAGES))}, got {value!r}."
        )
    return cast("RemoteImages", value)


def image_html(url: str, alt: str = "", images: RemoteImages = "link") -> str:
    """One image under the remote-image policy (the one place images are drawn).

    Args:
        url: the image's source: an inline ``data:image/...;base64,`` URL is always shown;
            any other URL follows ``images``.
        alt: the description shown instead of (or with) the image.
        images: the ``RemoteImages`` policy for non-inline images.
    """
    label = esc(alt.strip() or "image")
    url = url.strip()
    if _INLINE_IMAGE.fullmatch(url):
        return f'<img src="{esc(url)}" alt="{label}" class="nb-hitl-image">'
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    safe = scheme in ("http", "https") or (not scheme and not url.lower().startswith("data:"))
    if images == "show" and safe:
        return f'<img src="{esc(url)}" alt="{label}" class="nb-hitl-image">'
    host = parts.hostname or "this server"
    text = f"&#128444; {label} <small>(image from {esc(host)}, not loaded)</small>"
    if images == "link" and safe:
        return (
            f'<a href="{esc(url)}" class="nb-hitl-image-link" target="_blank" '
            f'rel="noopener noreferrer nofollow" title="Open the image (sends a request to '
            f'{esc(host)})">{text}</a>'
        )
    return f'<span class="nb-hitl-image-link">{text}</span>'


_INLINE_MEDIA_TYPE = re.compile(r"(audio|video)/[A-Za-z0-9.+-]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_MEDIA_ICONS = {"audio": "&#128266;", "video": "&#127909;"}


def media_html(block: Any, images: RemoteImages = "link") -> str:
    """An image, audio or video block: inline data drawn, nothing at a URL fetched on its own.

    Images go through ``image_html`` (the remote-image policy). Inline audio and video whose
    media type matches the block and whose data is base64 get a player; audio and video at an
    http(s) URL are a link (a player would fetch them); anything else is a text label.
    """
    kind, source = block.type, block.source
    if source.type == "base64":
        media_type, data = str(source.media_type), str(source.data)
        if kind == "image":
            return image_html(f"data:{media_type};base64,{data}", "image", images)
        if (
            _INLINE_MEDIA_TYPE.fullmatch(media_type)
            and media_type.startswith(kind + "/")
            and _BASE64.fullmatch(data)
        ):
            return (
                f'<{kind} controls src="data:{esc(media_type)};base64,{esc(data)}" '
                f'class="nb-hitl-media"></{kind}>'
            )
        icon = _MEDIA_ICONS.get(kind, "")
        label = f"{icon} {esc(kind)} <small>({esc(media_type)}, not shown)</small>"
        return f'<span class="nb-hitl-image-link">{label}</span>'
    url = str(source.url).strip()
    if kind == "image":
        return image_html(url, "image", images)
    parts = urlsplit(url)
    host = parts.hostname or ""
    label = f"{_MEDIA_ICONS.get(kind, '')} {esc(kind)}"
    if parts.scheme.lower() in ("http", "https") and host:
        return (
            f'<a href="{esc(url)}" class="nb-hitl-image-link" target="_blank" '
            f'rel="noopener noreferrer nofollow">{label} <small>(from {esc(host)}, '
            "not loaded)</small></a>"
        )
    text = f"{label} <small>({esc(preview(url, 60))})</small>"
    return f'<span class="nb-hitl-image-link">{text}</span>'


@lru_cache(maxsize=len(REMOTE_IMAGES))
def _md(images: RemoteImages = "link") -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

    def render_image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env)
        return image_html(str(token.attrGet("src") or ""), alt, images)

    md.add_render_rule("image", render_image)
    return md


def esc(text: Any) -> str:
    """Escape any value for HTML text and attribute context."""
    return html.escape(str(text), quote=True)


def plain(text: str) -> str:
    """Escaped, whitespace-preserving text (no markdown)."""
    return f'<div style="white-space:pre-wrap">{esc(text)}</div>'


def markdown(text: str, images: RemoteImages = "link") -> str:
    """Render markdown with raw HTML disabled and images under the ``images`` policy; very
    long text stays plain and folds."""
    if len(text) > PLAIN_LIMIT:
        rest = len(text) - PREVIEW_CHARS
        return (
            f"{plain(text[:PREVIEW_CHARS])}<details><summary>{rest:,} more characters"
            f"</summary>{plain(text[PREVIEW_CHARS:])}</details>"
        )
    return _md(images).render(text)


def preview(text: str, limit: int = 80) -> str:
    """A one-line preview (not escaped: pass it through ``esc``)."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


__all__ = [
    "PLAIN_LIMIT",
    "PREVIEW_CHARS",
    "REMOTE_IMAGES",
    "RemoteImages",
    "check_remote_images",
    "esc",
    "image_html",
    "markdown",
    "media_html",
    "plain",
    "preview",
]
