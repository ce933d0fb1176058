"""LiveRows: a transcript's streaming rows, redrawn from the shared redraw budget.

Each streaming message is a ``LiveRow``: an item ``{id, cls, live}`` of a transcript's front
end (the chat's ``TranscriptView``, the hub's feed: any ``RowSink``) that the kernel keeps up
to date with deltas (``RowDeltas``: the text appended since the last redraw, drawn as a text
node, and each finished paragraph once as escaped HTML), sent as the keyed ``live`` op
(``_row_deltas.live_op``). ``commit`` ends a row when memory holds its message: the
transcript then draws the message as a finished row in its place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl._render import RemoteImages, header_html, markdown, msg_classes
from nb_hitl.message import MetaKey

from ._live import live_extras
from ._pacer import comm_pacer
from ._redraw import redraw_budget
from ._row_deltas import RowDeltas
from ._seam import is_continuation, resumed_header, seam_html
from ._transcript import Entry, Transcript
from ._transcript_view import row_html

if TYPE_CHECKING:
    from nb_hitl.message import Msg

    from ._loop import LoopBridge


class RowSink(Protocol):
    """Where a streaming row's ``live`` ops go: a transcript that holds the row by key."""

    def live(
        self, row_id: str, msg: Mapping[str, Any] | None = None, cls: str | None = None
    ) -> None:
        """Send the streaming row ``row_id`` its row message ``msg`` and / or classes ``cls``."""


class LiveRow:
    """The row of a message that is still streaming (see module doc).

    Args:
        view: the transcript holding the row (where the row's ``live`` ops go).
        msg: the message as it first streams.
        images: the chat's ``RemoteImages`` policy for images in the text.
        instruction: the instruction a continued answer was resumed with (quoted at its seam).
        classes: classes the row keeps besides its message's (a hub speaker's colour).
    """

    def __init__(
        self,
        view: RowSink,
        msg: Msg,
        images: RemoteImages = "link",
        instruction: str = "",
        classes: list[str] | tuple[str, ...] = (),
    ) -> None:
        self.view = view
        self.key = msg.id
        self.msg_id = msg.id
        self.images: RemoteImages = images
        self.instruction = instruction
        self.seams: list[int] = []
        mark = ""
        if is_continuation(msg):
            self.seams = [int(msg.metadata[MetaKey.PARTIAL_CHARS])]
            mark = seam_html(msg, instruction)
        head = resumed_header(msg, True) if self.seams else header_html(msg, live=True)
        self.deltas = RowDeltas(head, self._render, self.seams, mark)
        self.extra_classes = tuple(classes)
        self.cls = " ".join((*msg_classes(msg, live=True), *self.extra_classes))
        self.finished = False
        """True once memory holds the message (the transcript draws it as a finished row)."""
        self.sent = 0
        """Row messages sent (for benchmarks and tests)."""
        self.actions: Callable[[Msg, str], str] | None = None
        """Adds the finished row's buttons (Edit, Regenerate); set by the transcript."""

    def _render(self, text: str) -> str:
        return markdown(text, self.images)

    @property
    def _dom_classes(self) -> tuple[str, ...]:
        return tuple(self.cls.split())

    @property
    def frozen_len(self) -> int:
        """Characters of text already sent as finished blocks."""
        return self.deltas.frozen_len

    def item(self) -> dict[str, Any]:
        """What the page draws: one item of the transcript model's ``rows``."""
        return {"id": self.key, "cls": self.cls, "live": self.deltas.snapshot()}

    def update(self, msg: Msg) -> None:
        """Send what is new in the streaming message (nothing when nothing changed)."""
        out = self.deltas.update(msg.get_text_content() or "", live_extras(msg))
        if out is not None:
            self.sent += 1
            self.view.live(self.key, out)

    def mark_interrupted(self) -> None:
        """Draw the row in the interrupted style now, before the kernel has the final message.

        Stop calls this first, so the style is the first thing sent after the click; the
        finished row then has the classes the final message really has.
        """
        if "nb-hitl-interrupted" not in self.cls.split():
            self.cls = f"{self.cls} nb-hitl-interrupted"
            self.view.live(self.key, cls=self.cls)

    def finish(self, msg: Msg) -> None:
        """Memory holds the message: the row ends (the transcript draws it finished)."""
        self.finished = True

    def drawn_html(self) -> str:
        """What the front end shows, as HTML (tests, exports): the tail escaped as text."""
        return row_html(self.item())

    def close(self) -> None:
        """Nothing to close: a streaming row has no comm of its own."""

    def __repr__(self) -> str:
        return f"LiveRow({self.key!r}, {self.cls!r})"


class LiveRows:
    """The streaming rows of a transcript, redrawn at most once per ``interval`` seconds.

    ``push`` records the newest state of a streaming message (deltas are coalesced: only the
    latest state is drawn); ``commit`` ends a row when memory holds its message; ``stop``
    drops what is not drawn yet; ``end`` removes rows a finished reply never committed.

    A redraw sends only the text that is new, so every stream keeps its full rate. Redraws come
    from the loop's shared ``RedrawBudget``: with many streams at once (many chats, a hub's
    participants) each is redrawn less often, in fair turns, so that the kernel stays under
    Jupyter server's iopub rate limit; ``commit`` draws the final text regardless.
    """

    def __init__(
        self,
        transcript: Transcript,
        bridge: LoopBridge,
        interval: float,
        on_flush: Callable[[], None] = lambda: None,
    ) -> None:
        self.transcript = transcript
        self.bridge = bridge
        self.interval = interval
        self.on_flush = on_flush
        self.views: dict[str, LiveRow] = {}
        self.pending: dict[str, Msg] = {}
        self.flushes = 0
        """How many coalesced redraws happened (for benchmarks and tests)."""
        self.budget = redraw_budget(bridge.loop)
        """The loop's shared redraw budget, which calls ``flush`` when this row's turn comes."""
        self.last_flush = 0.0
        self.newest: LiveRow | None = None
        """The newest streaming row made, kept once finished (benchmarks and tests)."""

    def push(self, msg: Msg) -> None:
        """Draw ``msg`` (the whole message so far) at the next redraw."""
        self.pending[msg.id] = msg
        self.budget.request(self, self.last_flush + self.interval)

    def stop(self) -> None:
        """Forget what is not drawn yet (deltas of a stopped reply are never drawn)."""
        self.pending.clear()
        self.budget.cancel(self)

    def mark_interrupted(self) -> None:
        """Show every streaming row in the interrupted style at once (Stop was pressed),
        ahead of any updates waiting in the loop's pacer."""
        if not self.views:
            return
        pacer = comm_pacer(self.bridge.loop)
        # Urgent on the panel whose comm carries the rows (the chat drawing its transcript).
        with pacer.urgent(self.transcript.view.carrier()):
            for view in self.views.values():
                view.mark_interrupted()

    def commit(self, msg: Msg) -> bool:
        """End the live row of ``msg``: drawn finished, with its final content; False if it
        has none."""
        self.pending.pop(msg.id, None)
        if not self.pending:
            self.budget.cancel(self)
        view = self.views.pop(msg.id, None)
        if view is None:
            return False
        view.finish(msg)
        entry = self.transcript.get(msg.id)
        if entry is not None:
            entry.msg, entry.view, entry.row = msg, None, None
            self.transcript.render()
        return True

    def flush(self) -> None:
        """Redraw every message with pending updates (creating its row on first sight)."""
        self.budget.cancel(self)
        self.last_flush = time.monotonic()
        if not self.pending:
            return
        self.flushes += 1
        pending, self.pending = self.pending, {}
        for msg_id, msg in pending.items():
            view = self.views.get(msg_id)
            if view is None:
                if self.transcript.get(msg_id) is not None:
                    continue  # already committed
                self.transcript.fold_continued(msg)
                instruction = self.transcript.instruction_for(msg)
                classes = self.transcript.row_classes(msg)
                view = LiveRow(
                    self.transcript.view, msg, self.transcript.images, instruction, classes
                )
                view.actions = self.transcript.row_actions
                self.views[msg_id] = self.newest = view
                self.transcript.add(Entry(msg_id, msg, view))
            view.update(msg)
        self.on_flush()

    def end(self) -> None:
        """Remove streaming rows the reply never committed (an interrupt kept nothing)."""
        self.stop()
        if not self.views:
            return
        for msg_id in list(self.views):
            self.views.pop(msg_id)
            self.transcript.remove(msg_id, render=False)
        self.transcript.render()


__all__ = ["LiveRow", "LiveRows", "RowSink"]
