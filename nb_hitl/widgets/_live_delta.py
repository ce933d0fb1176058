"""LiveMessage: a streaming message drawn by the front end from deltas (an anywidget).

The kernel sends what is new since the last redraw (appended plain text, each finished
paragraph once as escaped HTML: ``RowDeltas``) as custom messages; the front end appends the
text to a text node (never parsed as HTML) and puts the blocks in place. No redraw resends
what was sent before, so a redraw costs bytes in proportion to the new text, and a fast stream
keeps its full redraw rate. The ``snapshot`` trait is the state a view starts from (a second
view, a reloaded page, a saved notebook): the final row once the message is done; while it
streams a new view asks the kernel for the current state (``{t: "sync"}``).

The row's classes (interrupted, error, live, a hub speaker's colour) are its ``_dom_classes``
as for any widget, so Stop's interrupted style is one small update, sent first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from nb_hitl._render import (
    RemoteImages,
    body_html,
    copy_button,
    error_text,
    esc,
    header_html,
    markdown,
    msg_classes,
    plain,
)
from nb_hitl.message import MetaKey

from ._live import live_extras, shared_layout
from ._model import static_file
from ._row_deltas import RowDeltas
from ._seam import continued_body, is_continuation, resumed_header, seam_html

if TYPE_CHECKING:
    from nb_hitl.message import Msg


def _body_parts(msg: Msg, images: RemoteImages) -> tuple[str, str]:
    """(the leading text rendered as the streamed markdown, HTML of everything after it).

    A message that starts with a text block streamed that text: the front end's finished
    paragraphs are reused for it. Anything else is drawn by ``body_html`` in full.
    """
    blocks = msg.get_content_blocks()
    if not blocks or blocks[0].type != "text" or msg.is_interrupted:
        return "", body_html(msg, images)
    first = blocks[0]
    rest = msg.model_copy(update={"content": list(blocks[1:])}) if len(blocks) > 1 else None
    if rest is None:
        err = error_text(msg)
        tail = f'<div class="nb-hitl-error-text">{plain(err)}</div>' if err else ""
        return first.text, tail
    return first.text, body_html(rest, images)


class LiveMessage(anywidget.AnyWidget):
    """The row of a message that is still streaming (final with ``finish``).

    Args:
        msg: the message as it first streams.
        images: the chat's ``RemoteImages`` policy for images in the text.
        instruction: the instruction a continued answer was resumed with (quoted at its seam).
        callback: wraps the front end's requests (the chat's loop bridge: they may arrive on
            another thread).
        classes: classes the row keeps besides its message's (a hub speaker's colour).
    """

    _esm = static_file("live_row.js")
    _css = static_file("live_row.css")
    snapshot = traitlets.Dict().tag(sync=True)
    """The state a new view starts from (the protocol: ``js/src/chat/rows.js``)."""

    def __init__(
        self,
        msg: Msg,
        images: RemoteImages = "link",
        instruction: str = "",
        callback: Callable[[Callable[[Any], None]], Callable[[Any], None]] = lambda f: f,
        classes: list[str] | tuple[str, ...] = (),
    ) -> None:
        self.images: RemoteImages = images
        self.instruction = instruction
        self.seams: list[int] = []
        mark = ""
        if is_continuation(msg):
            self.seams = [int(msg.metadata[MetaKey.PARTIAL_CHARS])]
            mark = seam_html(msg, instruction)
        self.deltas = RowDeltas(self._head(msg, live=True), self._render, self.seams, mark)
        self.extra_classes = tuple(classes)
        super().__init__(
            snapshot=self.deltas.snapshot(),
            layout=shared_layout(),
            _dom_classes=(*msg_classes(msg, live=True), *self.extra_classes),
        )
        self.msg_id = msg.id
        self.finished = False
        self.sent = 0
        """Delta and snapshot messages sent (for benchmarks and tests)."""
        self.actions: Callable[[Msg, str], str] | None = None
        """Adds the finished row's buttons (Edit, Regenerate); set by the transcript."""
        on_sync = callback(self._on_front_end_msg)
        self.on_msg(lambda _w, content, _b: on_sync(content))

    def _head(self, msg: Msg, live: bool = False) -> str:
        return resumed_header(msg, live) if self.seams else header_html(msg, live=live)

    def _render(self, text: str) -> str:
        return markdown(text, self.images)

    @property
    def frozen_len(self) -> int:
        """Characters of text already sent as finished blocks."""
        return self.deltas.frozen_len

    def update(self, msg: Msg) -> None:
        """Send what is new in the streaming message (nothing when nothing changed)."""
        out = self.deltas.update(msg.get_text_content() or "", live_extras(msg))
        if out is not None:
            self._send_delta(out)

    def _send_delta(self, content: dict[str, Any]) -> None:
        self.sent += 1
        if self.comm is not None:
            self.send(content)

    def mark_interrupted(self) -> None:
        """Draw the row in the interrupted style now, before the kernel has the final message.

        Stop calls this first, so the style is the first thing sent after the click; ``finish``
        then sets the classes the final message really has.
        """
        if "nb-hitl-interrupted" not in self._dom_classes:
            self.add_class("nb-hitl-interrupted")

    def finish(self, msg: Msg) -> None:
        """Final: the whole row (markdown, blocks in full, interrupted or error style).

        What the front end holds already (finished paragraphs) is reused; the rest goes in one
        delta, then the classes. The ``snapshot`` trait takes the final state for views made
        later without being sent again (the front end stores the same state in its model).
        """
        before = copy_button(msg) + self._head(msg) + "<div>"
        if self.seams:  # a continued answer: drawn whole, with its seam mark
            text, body = "", continued_body(msg, self.images, instruction=self.instruction)
        else:
            text, body = _body_parts(msg, self.images)
        after = body + "</div>"
        if self.actions is not None:  # the row's buttons go last, under the text
            after = self.actions(msg, "<div>" + after)[len("<div>") :]
        self._send_delta(self.deltas.finish(before, text, after))
        snapshot = self.deltas.snapshot()
        with self._lock_property(snapshot=snapshot):  # ipywidgets: set, but do not send
            self.snapshot = snapshot
        self._dom_classes = (*msg_classes(msg), *self.extra_classes)
        self.finished = True

    def drawn_html(self) -> str:
        """What the front end shows, as HTML (tests, exports): the tail escaped as text."""
        s = self.deltas
        if s.done:
            return s.html
        return s.head + "".join(s.blocks) + f"<div>{esc(s.tail)}</div>" + s.extras

    def _on_front_end_msg(self, content: Any) -> None:
        if isinstance(content, dict) and content.get("t") == "sync":
            self._send_delta({"t": "snapshot", "row": self.deltas.snapshot()})


__all__ = ["LiveMessage"]
