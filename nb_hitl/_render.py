"""Escaped HTML for messages and widgets: markdown with raw HTML disabled, message parts, the CSS.

This module sits below both ``nb_hitl.message`` (``Msg._repr_html_``) and ``nb_hitl.widgets``
and imports neither: it reads messages through the ``RenderableMsg`` protocol.
``markdown-it`` is imported on first use so that ``import nb_hitl`` stays light.

Every string that comes from a model, a tool, a person or an agent name goes through
``esc()`` or ``markdown()`` (markdown-it with ``html=False``, which escapes raw HTML and
refuses ``javascript:`` links) before it reaches an ``ipywidgets.HTML`` value, because
``ipywidgets.HTML`` inserts its value unsanitised.

Images never make the browser fetch anything on their own: an image from a URL (a markdown
``![x](https://host/a.png?d=...)`` from a model, a tool, a person or a session file would
otherwise be fetched with no click, an exfiltration channel for a prompt injection) is drawn
by ``image_html()`` under a ``RemoteImages`` policy, by default as a link the person may open.
Inline ``data:image/...`` images are drawn as they are: showing them fetches nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

TOOL_GLYPH = '<i class="fa fa-wrench" aria-hidden="true"></i>'
"""The tool mark: the icon font the widget buttons already use (no emoji font needed)."""
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
    return value  # type: ignore[return-value]


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


class RenderableMsg(Protocol):
    """What rendering reads from a message (``nb_hitl.message.Msg`` satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def is_interrupted(self) -> bool: ...
    def get_content_blocks(self) -> Sequence[Any]: ...


CSS = """
<style>
.nb-hitl-chat, .nb-hitl-inspector { font-family: var(--jp-ui-font-family, sans-serif); }
.nb-hitl-chat .widget-html-content, .nb-hitl-inspector .widget-html-content {
  line-height: 1.4; }
.nb-hitl-inspector details summary { cursor: pointer; font-size: 12px; }
.nb-hitl-transcript { max-height: 520px; overflow-y: auto;
  flex-direction: column-reverse !important; }
.nb-hitl-transcript > *, .nb-hitl-transcript .widget-box > * { flex-shrink: 0 !important; }
.nb-hitl-msg { border-left: 4px solid #9aa5b1; padding: 2px 8px; margin: 4px 0;
  border-radius: 3px; background: rgba(127,127,127,0.04); }
.nb-hitl-msg p { margin: 2px 0; }
.nb-hitl-msg { position: relative; }
.nb-hitl-copy { position: absolute; top: 2px; right: 4px; border: none; background: none;
  cursor: pointer; color: inherit; opacity: 0.45; padding: 0 4px; font-size: 12px; }
.nb-hitl-msg:hover .nb-hitl-copy, .nb-hitl-copy:focus { opacity: 1; }
.nb-hitl-copy.nb-hitl-copied { opacity: 1; color: #27ae60; }
.nb-hitl-head { font-size: 12px; color: #52606d; }
.nb-hitl-role-user { border-left-color: #2f80ed; background: rgba(47,128,237,0.06); }
.nb-hitl-role-assistant { border-left-color: #27ae60; }
.nb-hitl-role-system, .nb-hitl-role-tool { border-left-color: #9aa5b1; font-size: 12px; }
.nb-hitl-live { border-left-style: dashed; }
.nb-hitl-interrupted, .nb-hitl-stopping { border-left-color: #e67e22 !important;
  background: rgba(230,126,34,0.10) !important; }
.nb-hitl-error { border-left-color: #d0021b !important;
  background: rgba(208,2,27,0.08) !important; }
.nb-hitl-badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px;
  background: #e67e22; color: white; margin-left: 6px; }
.nb-hitl-badge-error { background: #d0021b; }
.nb-hitl-badge-pinned { background: #6f42c1; }
.nb-hitl-badge-compressed { background: #7b8794; }
.nb-hitl-badge-recent { background: #27ae60; }
.nb-hitl-badge-question { background: #2f80ed; }
.nb-hitl-badge-partner { background: #16a085; }
.nb-hitl-badge-compress { background: #e67e22; }
.nb-hitl-badge-other { background: #52606d; }
.nb-hitl-badge-steered { background: #8e44ad; }
.nb-hitl-steered { border-left-style: double; border-left-width: 5px; }
.nb-hitl-badge-resumed { background: #1d6f42; }
.nb-hitl-row-actions { display: flex; justify-content: flex-end; gap: 4px; margin-top: 2px; }
.nb-hitl-action { font-size: 11px; line-height: 1.4; padding: 0 6px; border-radius: 3px;
  cursor: pointer; color: var(--jp-ui-font-color1, #1f2933);
  background: var(--jp-layout-color1, #fff);
  border: 1px solid var(--jp-border-color1, #9aa5b1); opacity: 0.7; white-space: nowrap; }
.nb-hitl-msg:hover .nb-hitl-action, .nb-hitl-action:focus { opacity: 1; }
.nb-hitl-action:disabled { opacity: 0.35; cursor: default; }
.nb-hitl-branch-switch { display: flex; align-items: center; gap: 6px; margin: 2px 0 0 12px;
  font-size: 12px; color: var(--jp-ui-font-color1, #1f2933); }
.nb-hitl-branch-switch .nb-hitl-action { opacity: 1; font-size: 13px; padding: 0 8px; }
.nb-hitl-branch-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.nb-hitl-seam { display: inline-block; font-size: 11px; line-height: 1.3; margin: 0 4px;
  padding: 0 6px; border-radius: 8px; white-space: nowrap; max-width: 100%;
  overflow: hidden; text-overflow: ellipsis; vertical-align: bottom;
  border: 1px dashed var(--jp-warn-color1, #b45309);
  color: var(--jp-ui-font-color1, #1f2933);
  background: var(--jp-warn-color3, rgba(230,126,34,0.12)); }
.nb-hitl-row-recent td:first-child { border-left: 3px solid #27ae60; }
.nb-hitl-tool { font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.nb-hitl-tool summary { cursor: pointer; }
.nb-hitl-status { font-size: 12px; color: #52606d; }
.nb-hitl-status-running { color: #27ae60; }
.nb-hitl-status-stopping { color: #e67e22; }
.nb-hitl-status-waiting { color: #2f80ed; }
.nb-hitl-status-error { color: #d0021b; }
.nb-hitl-gauge { font-size: 12px; color: #52606d; margin-left: 8px; white-space: nowrap; }
.nb-hitl-gauge-bar { display: inline-block; width: 60px; height: 7px; border-radius: 4px;
  background: rgba(127,127,127,0.25); margin-right: 4px; vertical-align: middle;
  overflow: hidden; }
.nb-hitl-gauge-bar > span { display: block; height: 100%; background: #27ae60; }
.nb-hitl-gauge-near .nb-hitl-gauge-bar > span { background: #e67e22; }
.nb-hitl-gauge-over .nb-hitl-gauge-bar > span { background: #d0021b; }
.nb-hitl-undone { text-decoration: line-through; opacity: 0.7; }
.nb-hitl-compression-row, .nb-hitl-cleared { align-items: flex-start; flex-wrap: wrap; }
.nb-hitl-compression-row > .widget-html, .nb-hitl-cleared > .widget-html {
  flex: 1 1 240px; min-width: 0; }
.nb-hitl-compression-row > .widget-button, .nb-hitl-cleared > .widget-button,
.nb-hitl-chat-tools .widget-button, .nb-hitl-hub-runs .widget-button {
  flex: 0 0 auto; width: auto; }
.nb-hitl-chat-tools, .nb-hitl-hub-runs { flex-wrap: wrap; }
.nb-hitl-table { border-collapse: collapse; font-size: 12px; width: 100%; }
.nb-hitl-table td, .nb-hitl-table th { border-bottom: 1px solid rgba(127,127,127,0.2);
  padding: 1px 4px; text-align: left; vertical-align: top; }
.nb-hitl-row-compress { background: rgba(230,126,34,0.12); }
.nb-hitl-row-compressed { color: #7b8794; }
.nb-hitl-row-summary { background: rgba(111,66,193,0.08); }
.nb-hitl-note { font-size: 12px; color: #8a6d3b; }
.nb-hitl-image { max-width: 100%; }
.nb-hitl-media { max-width: 100%; }
.nb-hitl-image-link { font-size: 12px; }
.nb-hitl-msg, .nb-hitl-approval, .nb-hitl-plan, .nb-hitl-note, .nb-hitl-table td {
  overflow-wrap: anywhere; }
.nb-hitl-msg pre { white-space: pre-wrap; }
.nb-hitl-transcript { overflow-x: hidden; }
.nb-hitl-chat .widget-button, .nb-hitl-inspector .widget-button,
.nb-hitl-session-bar .widget-button, .nb-hitl-approval .widget-button,
.nb-hitl-inspector .widget-toggle-button {
  width: auto; min-width: 0; max-width: 100%; flex-shrink: 0; }
.nb-hitl-chat-buttons .widget-button { width: auto; align-self: stretch; }
.nb-hitl-inspector .widget-hbox, .nb-hitl-approval .widget-hbox { flex-wrap: wrap; }
.nb-hitl-inspector .widget-hslider { width: auto; min-width: 0; flex: 1 1 160px; }
.nb-hitl-approval .widget-textarea, .nb-hitl-session-bar .widget-text {
  max-width: calc(100% - 2 * var(--jp-widgets-margin, 2px)); min-width: 0; }
</style>
"""


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


def msg_flags(msg: RenderableMsg) -> tuple[bool, bool]:
    """(interrupted, error): interrupted covers the partial reply and the interrupted message.

    A partial message the core kept because the model failed is an error, not an interrupt.
    """
    error = bool(msg.metadata.get("_error") or msg.metadata.get("_nb_hitl_error"))
    if not error:
        blocks = msg.get_content_blocks()
        error = bool(blocks) and all(
            b.type == "tool_result" and b.is_error and not b.is_interrupted for b in blocks
        )
    interrupted = bool(msg.is_interrupted or (msg.metadata.get("_partial") and not error))
    return interrupted, error


def msg_classes(msg: RenderableMsg, live: bool = False) -> list[str]:
    """CSS classes of a message row."""
    classes = ["nb-hitl-msg", f"nb-hitl-role-{msg.role}"]
    interrupted, error = msg_flags(msg)
    if interrupted:
        classes.append("nb-hitl-interrupted")
    if error:
        classes.append("nb-hitl-error")
    if live:
        classes.append("nb-hitl-live")
    if msg.metadata.get("_steered"):
        classes.append("nb-hitl-steered")
    return classes


DEFAULT_INTERRUPT_TEXT = "[Interrupted] The agent was interrupted by the user."
"""The interrupted message's text unless the agent's ``interrupt_text`` says otherwise (the
same words as ``nb_hitl.agent``'s, which this module may not import)."""
INTERRUPT_CAUSES = {
    "interrupt": "",
    "kernel": "Kernel ▸ Interrupt",
    "cancelled": "its task was cancelled",
}
"""What stopped a reply (``metadata["interrupted_by"]``) in words; ``""``: Stop, Escape or
``agent.interrupt()``, which the message's own text already says."""
_CAUSE_TEXT = {
    "kernel": "[Interrupted] Stopped by Kernel ▸ Interrupt (the ■ button), not by the panel.",
    "cancelled": "[Interrupted] Stopped because the task awaiting the reply was cancelled.",
}


def interrupt_cause(msg: RenderableMsg) -> str:
    """What stopped an interrupted message, in words (``""`` for a person's Stop)."""
    cause = msg.metadata.get("interrupted_by")
    if not isinstance(cause, str) or not cause:
        return ""
    return INTERRUPT_CAUSES.get(cause, cause)


def shown_text(msg: RenderableMsg, text: str) -> str:
    """The text drawn for ``text`` of ``msg``: the default interrupted text says what really
    stopped the reply (a kernel interrupt is not "the user" pressing Stop)."""
    if text == DEFAULT_INTERRUPT_TEXT and msg.is_interrupted:
        return _CAUSE_TEXT.get(str(msg.metadata.get("interrupted_by")), text)
    return text


def header_html(msg: RenderableMsg, live: bool = False) -> str:
    """The name, role and badges line of a message."""
    error = msg_flags(msg)[1]
    badges = ""
    cause = interrupt_cause(msg)
    by = f" · {esc(cause)}" if cause else ""
    if msg.is_interrupted:
        badges += f'<span class="nb-hitl-badge">interrupted{by}</span>'
    elif msg.metadata.get("_partial") and not error:
        badges += f'<span class="nb-hitl-badge">partial · interrupted{by}</span>'
    elif msg.metadata.get("_partial"):
        badges += '<span class="nb-hitl-badge nb-hitl-badge-other">partial</span>'
    if error:
        badges += '<span class="nb-hitl-badge nb-hitl-badge-error">error</span>'
    if msg.metadata.get("_steered"):  # agent.steer(): taken in mid-reply, where it is drawn
        where = esc(f"Steering: taken in at the {msg.metadata.get('steered_at') or 'next step'}")
        badges += (
            f'<span class="nb-hitl-badge nb-hitl-badge-steered" title="{where}">steered</span>'
        )
    if live:
        badges += " <span>…</span>"
    return (
        f'<div class="nb-hitl-head"><b>{esc(msg.name)}</b> <small>({esc(msg.role)})</small>'
        f"{badges}</div>"
    )


def copy_button(msg: RenderableMsg) -> str:
    """A Copy button carrying the message's text (``""`` for a message without text).

    The text travels escaped in ``data-copy``; the panel's keyboard widget copies it on a
    click (``navigator.clipboard`` in a secure context such as JupyterLab on localhost or
    https, a hidden text box otherwise).
    """
    texts = [b.text for b in msg.get_content_blocks() if b.type == "text" and b.text]
    if not texts or msg.metadata.get("_nb_hitl_error"):  # the panel's own error rows: none
        return ""
    text = shown_text(msg, "\n".join(texts))
    return (
        f'<button class="nb-hitl-copy" type="button" title="Copy this message" '
        f'aria-label="Copy this message" data-copy="{esc(text)}">'
        '<i class="fa fa-copy" aria-hidden="true"></i></button>'
    )


def with_copy_button(msg: RenderableMsg, row_html: str) -> str:
    """``row_html`` (a ``msg_html``) with the Copy button first inside its outer element."""
    button = copy_button(msg)
    if not button:
        return row_html
    end = row_html.find(">") + 1
    return row_html[:end] + button + row_html[end:]


def block_html(block: Any, images: RemoteImages = "link") -> str:
    """One content block: text as markdown; tools and thinking collapsed and compact."""
    kind = block.type
    if kind == "text":
        return markdown(block.text, images)
    if kind == "thinking":
        words = len(block.thinking.split())
        return (
            f'<details class="nb-hitl-tool"><summary>thinking ({words} words)</summary>'
            f"{plain(block.thinking)}</details>"
        )
    if kind == "tool_use":
        args = block.raw_input if block.raw_input is not None else _json(block.input)
        state = " (arguments streaming…)" if block.raw_input is not None else ""
        return (
            f'<details class="nb-hitl-tool"><summary>{TOOL_GLYPH} <code>{esc(block.name)}</code>'
            f"({esc(preview(args, 60))}){state}</summary>{plain(args)}</details>"
        )
    if kind == "tool_result":
        out = block.output_text()
        tag = ""
        if block.is_interrupted:
            tag = ' <span class="nb-hitl-badge">interrupted</span>'
        elif block.is_error:
            tag = ' <span class="nb-hitl-badge nb-hitl-badge-error">error</span>'
        body = plain(out)
        if not isinstance(block.output, str):
            body = "".join(
                plain(b.text) if b.type == "text" else media_html(b, images) for b in block.output
            )
        return (
            f'<details class="nb-hitl-tool"><summary>&#8627; <code>{esc(block.name)}</code>: '
            f"{esc(preview(out, 70))}{tag}</summary>{body}</details>"
        )
    if kind in ("image", "audio", "video"):
        return f'<div class="nb-hitl-media-block">{media_html(block, images)}</div>'
    return plain(str(block))


def edited_call_html(block: Any, edit: Any) -> str:
    """A tool call a person approved with edited arguments: what ran, and what the model asked."""
    args = _json(block.input)
    original = edit.get("original_input") if isinstance(edit, dict) else None
    asked = f"<div><small>the model asked for:</small>{plain(_json(original))}</div>"
    return (
        f'<details class="nb-hitl-tool nb-hitl-tool-edited"><summary>{TOOL_GLYPH} '
        f"<code>{esc(block.name)}</code>({esc(preview(args, 60))})"
        ' <span class="nb-hitl-badge nb-hitl-badge-other">edited by you</span></summary>'
        f"{plain(args)}{asked if original is not None else ''}</details>"
    )


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def body_html(msg: RenderableMsg, images: RemoteImages = "link") -> str:
    """All blocks of a message."""
    edits = msg.metadata.get("edited_tool_calls")
    edits = edits if isinstance(edits, dict) else {}
    parts = []
    for b in msg.get_content_blocks():
        if b.type == "text":
            parts.append(markdown(shown_text(msg, b.text), images))
        elif b.type == "tool_use" and b.id in edits:
            parts.append(edited_call_html(b, edits[b.id]))
        else:
            parts.append(block_html(b, images))
    err = error_text(msg)
    if err:
        parts.append(f'<div class="nb-hitl-error-text">{plain(err)}</div>')
    return "".join(parts)


def error_text(msg: RenderableMsg) -> str:
    """The error a message carries (``metadata["_error"]``), or ``""``.

    ``_nb_hitl_error`` only flags a row the widgets made for an error (its text is the
    message's own content): a flag is never drawn as text.
    """
    err = msg.metadata.get("_error")
    return err if isinstance(err, str) else ""


def msg_html(msg: RenderableMsg, images: RemoteImages = "link") -> str:
    """A whole frozen message: header and body, wrapped in a div carrying its classes."""
    blocks = msg.get_content_blocks()
    if blocks and all(b.type == "tool_result" for b in blocks):  # compact: one line per result
        classes = ["nb-hitl-msg", "nb-hitl-role-tool"]
        if msg_flags(msg)[1]:
            classes.append("nb-hitl-error")
        return f'<div class="{" ".join(classes)}">{body_html(msg, images)}</div>'
    return (
        f'<div class="{" ".join(msg_classes(msg))}" data-role="{esc(msg.role)}">'
        f"{header_html(msg)}{body_html(msg, images)}</div>"
    )


__all__ = [
    "CSS",
    "DEFAULT_INTERRUPT_TEXT",
    "INTERRUPT_CAUSES",
    "REMOTE_IMAGES",
    "TOOL_GLYPH",
    "RemoteImages",
    "RenderableMsg",
    "block_html",
    "body_html",
    "check_remote_images",
    "copy_button",
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
    "plain",
    "preview",
    "shown_text",
    "with_copy_button",
]
