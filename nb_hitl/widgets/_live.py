"""LiveMessageView: a streaming message drawn in frozen segments plus a small live tail.

Resending a whole growing message on every update costs bytes quadratic in its length. So the
text is cut into segments: only the tail segment's value is resent on each (coalesced)
update. When the tail holds finished paragraphs of some length, its widget gets its final
value (those paragraphs, as markdown) and stops changing, and a new tail widget takes the rest;
no text is ever sent twice except inside the growing tail. Segments sit in groups of ``GROUP``
so that no ``children`` list grows long either. Thinking and tool-call blocks show as a compact
line while streaming and in full once the message is final.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as w
from ipywidgets.widgets.widget_string import HTMLStyle

from nb_hitl._render import (
    TOOL_GLYPH,
    RemoteImages,
    block_html,
    copy_button,
    error_text,
    esc,
    header_html,
    markdown,
    msg_classes,
    plain,
)
from nb_hitl.message import MetaKey

from ._look import shared
from ._row_deltas import cut
from ._seam import is_continuation, render_with_seams, resumed_header, seam_html

if TYPE_CHECKING:
    from nb_hitl.message import Msg

SEGMENT_MIN = 2_000
"""A tail with at least this many characters freezes at its last paragraph break."""
GROUP = 16
"""Segments per group box."""


def html(value: str = "", classes: tuple[str, ...] = ()) -> w.HTML:
    """An ``HTML`` widget sharing one layout and one style with its peers.

    A fresh ``HTML`` opens three comms (itself, a layout, a style); sharing makes it one.
    ``classes`` go in the widget's opening message (``add_class`` afterwards sends another).
    """
    return w.HTML(
        value, layout=shared(w.Layout), style=shared(HTMLStyle), _dom_classes=tuple(classes)
    )


def shared_layout() -> w.Layout:
    """The empty ``Layout`` rows share (a widget of its own would open one more comm)."""
    layout: w.Layout = shared(w.Layout)
    return layout


def box(children: tuple[w.Widget, ...] = ()) -> w.VBox:
    """A ``VBox`` sharing one layout with its peers."""
    return w.VBox(children=children, layout=shared(w.Layout))


def _cut(tail: str, fence_open: bool) -> int:
    """Where to freeze ``tail`` (0: not yet): the delta rows' rule, in segments of some length."""
    return cut(tail, fence_open, min_len=SEGMENT_MIN)


def live_extras(msg: Msg) -> str:
    """Thinking and tool-call blocks of a streaming message, as one compact line each."""
    parts = []
    for b in msg.get_content_blocks():
        if b.type == "thinking":
            parts.append(f'<div class="nb-hitl-tool">thinking… ({len(b.thinking):,} chars)</div>')
        elif b.type == "tool_use":
            state = "arguments streaming…" if b.raw_input is not None else "ready"
            tool = f"{TOOL_GLYPH} <code>{esc(b.name)}</code> ({state})"
            parts.append(f'<div class="nb-hitl-tool">{tool}</div>')
    return "".join(parts)


class LiveMessageView(w.VBox):
    """The row of a message that is still streaming (becomes frozen with ``finish``).

    ``images`` is the chat's ``RemoteImages`` policy for images in the text.
    """

    def __init__(self, msg: Msg, images: RemoteImages = "link", instruction: str = "") -> None:
        self.images: RemoteImages = images
        self.seams: list[int] = []
        """Where a continued answer (``agent.resume()``) was resumed: drawn as one answer."""
        self._seam_mark = ""
        if is_continuation(msg):
            self.seams = [int(msg.metadata[MetaKey.PARTIAL_CHARS])]
            self._seam_mark = seam_html(msg, instruction)
        self._header = html(self._head(msg, live=True))
        self._tail = html()
        self._group = box((self._tail,))
        self._groups = box((self._group,))
        self._extras = html()
        super().__init__(children=[self._header, self._groups, self._extras])
        for c in msg_classes(msg, live=True):
            self.add_class(c)
        self.msg_id = msg.id
        self.frozen_len = 0
        """Characters of text already frozen into segments."""
        self.segments = 1
        """Segment widgets made so far (the live tail included)."""
        self._fence_open = False
        self._frozen: list[str] = []
        self._tail_value = ""
        self._extras_html = ""
        self.finished = False
        self.actions: Callable[[Msg, str], str] | None = None
        """Adds the finished row's buttons (Edit, Regenerate); set by the transcript."""

    def _head(self, msg: Msg, live: bool = False) -> str:
        return resumed_header(msg, live) if self.seams else header_html(msg, live=live)

    def _md(self, text: str, start: int, last: bool = True) -> str:
        """Markdown of the piece of text at ``start`` (with the seam, if it falls there)."""
        if not self.seams:
            return markdown(text, self.images) if text else ""
        return render_with_seams(text, start, self.seams, self._seam_mark, self.images, last=last)

    def _set_tail(self, value: str) -> None:
        if value != self._tail_value:
            self._tail_value = value
            self._tail.value = value

    def _freeze(self, text: str, rest: str) -> None:
        """Give the tail its final value ``text`` and start a new tail showing ``rest``."""
        self._set_tail(self._md(text, self.frozen_len, last=False))
        self._fence_open = (self._fence_open + text.count("```")) % 2 == 1
        self.frozen_len += len(text)
        self._frozen.append(text)
        self._tail_value = self._md(rest, self.frozen_len) if rest else ""
        self._tail = html(self._tail_value)
        self.segments += 1
        if len(self._group.children) >= GROUP:
            self._group = box((self._tail,))
            self._groups.children = (*self._groups.children, self._group)
        else:
            self._group.children = (*self._group.children, self._tail)

    def update(self, msg: Msg) -> None:
        """Draw the latest state of the streaming message (cheap: only the tail changes)."""
        text = msg.get_text_content() or ""
        tail = text[self.frozen_len :]
        cut = _cut(tail, self._fence_open)
        while cut:
            rest = tail[cut:]
            self._freeze(tail[:cut], rest if not _cut(rest, self._fence_open) else "")
            tail = rest
            cut = _cut(tail, self._fence_open)
        self._set_tail(self._md(tail, self.frozen_len))
        extras = live_extras(msg)
        if extras != self._extras_html:
            self._extras_html = extras
            self._extras.value = extras

    def mark_interrupted(self) -> None:
        """Draw the row in the interrupted style now, before the kernel has the final message.

        Stop calls this first, so the style is the first thing sent after the click; ``finish``
        then sets the classes the final message really has.
        """
        if "nb-hitl-interrupted" not in self._dom_classes:
            self.add_class("nb-hitl-interrupted")

    def finish(self, msg: Msg) -> None:
        """Freeze: final text as markdown, blocks in full, interrupted or error style."""
        # The style first, in one message: after Stop it is what the person waits to see.
        self._dom_classes = tuple(msg_classes(msg))
        self._header.value = copy_button(msg) + self._head(msg)
        text = msg.get_text_content() or ""
        if not text.startswith("".join(self._frozen)):
            # The final text is not a continuation of what streamed: redraw from scratch.
            self._tail = html()
            self._tail_value = ""
            self._group = box((self._tail,))
            self._groups.children = (self._group,)
            self.frozen_len = 0
            self._frozen = []
            self._fence_open = False
        rest = text[self.frozen_len :]
        self._set_tail(self._md(rest, self.frozen_len))
        others = [b for b in msg.get_content_blocks() if b.type != "text"]
        extras = "".join(block_html(b, self.images) for b in others)
        err = error_text(msg)
        if err:
            extras += plain(err)
        if self.actions is not None:  # the row's buttons go last, under the text
            extras = self.actions(msg, f"<div>{extras}</div>")
        self._extras.value = extras
        self.finished = True


__all__ = ["LiveMessageView", "box", "html", "live_extras", "shared_layout"]
