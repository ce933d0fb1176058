"""Messages as escaped HTML: the header with its badges, the blocks, the whole row.

Rendering reads a message only through the ``RenderableMsg`` protocol, so this package sits
below ``nb_hitl.message`` (``Msg._repr_html_``) and imports no other nb_hitl module. Text goes
through ``_text.py`` (``esc``, ``markdown``, the image policy). For the same reason the metadata
keys it reads are spelled here as their wire names; ``nb_hitl.message.MetaKey`` names each one
(``tests/message/test_metadata_keys.py`` checks these literals are keys it names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ._text import RemoteImages, esc, markdown, media_html, plain, preview

TOOL_GLYPH = '<i class="fa fa-wrench" aria-hidden="true"></i>'
"""The tool mark: the icon font the widget buttons already use (no emoji font needed)."""


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


COPY_INLINE_CHARS = 2_000
"""A message text up to this long travels in its Copy button; a longer one is fetched from the
kernel on the click (a streamed answer is not sent a second time)."""


def copy_text(msg: RenderableMsg) -> str:
    """What Copy puts on the clipboard: the message's text as written (``""``: nothing)."""
    texts = [b.text for b in msg.get_content_blocks() if b.type == "text" and b.text]
    if not texts or msg.metadata.get("_nb_hitl_error"):  # the panel's own error rows: none
        return ""
    return shown_text(msg, "\n".join(texts))


def copy_button(msg: RenderableMsg) -> str:
    """A Copy button for the message (``""`` for a message without text).

    A short text travels escaped in ``data-copy``; a longer one is named by ``data-copy-id``
    and the kernel sends it on the click. The panel's keyboard widget copies it
    (``navigator.clipboard`` in a secure context such as JupyterLab on localhost or https, a
    hidden text box otherwise).
    """
    text = copy_text(msg)
    if not text:
        return ""
    carried = (
        f'data-copy="{esc(text)}"'
        if len(text) <= COPY_INLINE_CHARS
        else f'data-copy-id="{esc(getattr(msg, "id", ""))}"'
    )
    return (
        f'<button class="nb-hitl-copy" type="button" title="Copy this message" '
        f'aria-label="Copy this message" {carried}>'
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
    "COPY_INLINE_CHARS",
    "DEFAULT_INTERRUPT_TEXT",
    "INTERRUPT_CAUSES",
    "TOOL_GLYPH",
    "RenderableMsg",
    "block_html",
    "body_html",
    "copy_button",
    "copy_text",
    "edited_call_html",
    "error_text",
    "header_html",
    "interrupt_cause",
    "msg_classes",
    "msg_flags",
    "msg_html",
    "shown_text",
    "with_copy_button",
]
