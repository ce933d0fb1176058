"""CollapsedMessage: a very long message drawn as a preview, its size and a "Show all" button.

A 1 MB paste would otherwise go to the front end (and into the saved notebook's widget
state) as one huge row. Collapsed, only a short preview is sent; the full text is sent when
the person asks for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._render import RemoteImages, esc, header_html, msg_classes, msg_html, plain

from ._row import Row

if TYPE_CHECKING:
    from nb_hitl.message import Msg

LONG_MESSAGE_CHARS = 20_000
"""Messages with more characters than this (text, tool arguments and results) are collapsed."""
COLLAPSED_PREVIEW_CHARS = 1_500
"""How many characters a collapsed message shows."""


def message_text(msg: Msg) -> str:
    """All the text a message shows: text, thinking, tool arguments and tool results."""
    parts = []
    for block in msg.get_content_blocks():
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "thinking":
            parts.append(block.thinking)
        elif block.type == "tool_use":
            parts.append(block.raw_input if block.raw_input is not None else str(block.input))
        elif block.type == "tool_result":
            parts.append(block.output_text())
    return "\n".join(parts)


def is_long(msg: Msg) -> bool:
    """Whether ``msg`` is drawn collapsed."""
    return len(message_text(msg)) > LONG_MESSAGE_CHARS


def human_size(n_bytes: int) -> str:
    """``1.0 MB``, ``25.3 kB``, ``512 bytes``."""
    if n_bytes >= 1_000_000:
        return f"{n_bytes / 1_000_000:.1f} MB"
    if n_bytes >= 1_000:
        return f"{n_bytes / 1_000:.1f} kB"
    return f"{n_bytes} bytes"


class CollapsedMessage(Row):
    """A long message: header, a preview, its size, and a button that draws it whole.

    A row of the transcript's front end (no widget of its own): ``expand_button`` is drawn
    after the preview and sends the row's action.

    Args:
        key: the row's key (the message id).
        msg: the message.
        images: the chat's ``RemoteImages`` policy, used once the message is expanded.
        cls: the row's classes besides ``nb-hitl-collapsed``.
    """

    def __init__(
        self, key: str, msg: Msg, images: RemoteImages = "link", cls: str = "nb-hitl-row"
    ) -> None:
        self.images: RemoteImages = images
        self.expanded = False
        """True once the whole message was drawn."""
        text = message_text(msg)
        size = human_size(len(text.encode("utf-8", "replace")))
        shown = text[:COLLAPSED_PREVIEW_CHARS]
        note = (
            f'<div class="nb-hitl-note">Long message, collapsed: showing {len(shown):,} of '
            f"{len(text):,} characters ({esc(size)}).</div>"
        )
        html = (
            f'<div class="{" ".join(msg_classes(msg))}" data-role="{esc(msg.role)}">'
            f"{header_html(msg)}{plain(shown + '…')}{note}</div>"
        )
        super().__init__(key, html, f"nb-hitl-collapsed {cls}".strip(), msg)
        self.expand_button = self.button(
            "expand", f"Show all ({size})", icon="expand", tooltip="Draw the whole message"
        )
        self.expand_button.on_click(lambda _b: self.expand())

    @property
    def view(self) -> Row:
        """The row itself (its ``value`` is the HTML drawn; the former preview widget)."""
        return self

    def expand(self) -> None:
        """Draw the whole message (very long text stays plain and folds, see ``markdown``)."""
        if self.expanded:
            return
        self.expanded = True
        self.expand_button.layout.display = "none"
        self.value = msg_html(self.msg, self.images)  # one redraw: the text and the button


__all__ = [
    "COLLAPSED_PREVIEW_CHARS",
    "LONG_MESSAGE_CHARS",
    "CollapsedMessage",
    "human_size",
    "is_long",
    "message_text",
]
