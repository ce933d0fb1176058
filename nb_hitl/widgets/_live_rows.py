"""LiveRows: a transcript's streaming rows, redrawn from the shared redraw budget.

Each streaming message is a ``LiveMessage`` (deltas) row, or with ``front_end="html"`` the
former ``LiveMessageView`` (kept for comparison in ``bench/``). ``commit`` freezes a row when
memory holds its message; the transcript's next render then draws it in a rows segment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._live import LiveMessageView
from ._live_delta import LiveMessage
from ._pacer import comm_pacer
from ._redraw import redraw_budget
from ._transcript import Entry, Transcript

if TYPE_CHECKING:
    from nb_hitl.message import Msg

    from ._loop import LoopBridge

LIVE_FRONT_END = "delta"
"""How streaming rows are drawn: ``"delta"`` (``LiveMessage``: the front end appends what is
new) or ``"html"`` (``LiveMessageView``: ipywidgets HTML segments, the tail resent whole on
each redraw, slowed down for fast streams; kept for comparison in ``bench/``)."""
FAST_CHARS_PER_SECOND = 4_000
"""Above this text rate, ``"html"`` rows redraw less often (at most one per ``MAX_INTERVAL``)."""
MAX_INTERVAL = 0.25
"""The longest wait between redraws of a very fast stream."""


class LiveRows:
    """The streaming rows of a transcript, redrawn at most once per ``interval`` seconds.

    ``push`` records the newest state of a streaming message (deltas are coalesced: only the
    latest state is drawn); ``commit`` freezes a row when memory holds its message; ``stop``
    drops what is not drawn yet; ``end`` removes rows a finished reply never committed.

    Rows are ``LiveMessage`` anywidgets: a redraw sends only the text that is new, so every
    stream keeps its full rate. With ``front_end="html"`` (the former rows, for benchmarks) a
    very fast stream (over ``FAST_CHARS_PER_SECOND``) is redrawn less often, down to one
    redraw per ``MAX_INTERVAL``, because each of those redraws resends the growing tail.

    Redraws come from the loop's shared ``RedrawBudget``: with many streams at once (many
    chats, a hub's participants) each is redrawn less often, in fair turns, so that the kernel
    stays under Jupyter server's iopub rate limit; ``commit`` draws the final text regardless.
    """

    def __init__(
        self,
        transcript: Transcript,
        bridge: LoopBridge,
        interval: float,
        on_flush: Callable[[], None] = lambda: None,
        front_end: str | None = None,
    ) -> None:
        self.front_end = front_end or LIVE_FRONT_END
        if self.front_end not in ("delta", "html"):
            raise ValueError(f'front_end must be "delta" or "html" (got {self.front_end!r}).')
        self.transcript = transcript
        self.bridge = bridge
        self.interval = interval
        self.on_flush = on_flush
        self.views: dict[str, LiveMessage | LiveMessageView] = {}
        self.pending: dict[str, Msg] = {}
        self.flushes = 0
        """How many coalesced redraws happened (for benchmarks and tests)."""
        self.budget = redraw_budget(bridge.loop)
        if transcript.pacer is None:
            transcript.pacer = comm_pacer(bridge.loop)
        """The loop's shared redraw budget, which calls ``flush`` when this row's turn comes."""
        self.last_flush = 0.0
        self._next_interval = interval
        self._drawn_len: dict[str, int] = {}

    def push(self, msg: Msg) -> None:
        """Draw ``msg`` (the whole message so far) at the next redraw."""
        self.pending[msg.id] = msg
        self.budget.request(self, self.last_flush + self._next_interval)

    def stop(self) -> None:
        """Forget what is not drawn yet (deltas of a stopped reply are never drawn)."""
        self.pending.clear()
        self.budget.cancel(self)

    def mark_interrupted(self) -> None:
        """Show every streaming row in the interrupted style at once (Stop was pressed),
        ahead of any updates waiting in the loop's pacer."""
        pacer = comm_pacer(self.bridge.loop)
        for view in self.views.values():
            with pacer.urgent(view):
                view.mark_interrupted()

    def commit(self, msg: Msg) -> bool:
        """Freeze the live row of ``msg`` with its final content; False if it has none."""
        self.pending.pop(msg.id, None)
        if not self.pending:
            self.budget.cancel(self)
        self._drawn_len.pop(msg.id, None)
        view = self.views.pop(msg.id, None)
        if view is None:
            return False
        view.finish(msg)
        entry = self.transcript.get(msg.id)
        if entry is not None:
            entry.msg = msg
        return True

    def flush(self) -> None:
        """Redraw every message with pending updates (creating its row on first sight)."""
        self.budget.cancel(self)
        self.last_flush = time.monotonic()
        if not self.pending:
            return
        self.flushes += 1
        pending, self.pending = self.pending, {}
        grown = 0
        for msg_id, msg in pending.items():
            view = self.views.get(msg_id)
            if view is None:
                if self.transcript.get(msg_id) is not None:
                    continue  # already committed and frozen
                self.transcript.fold_continued(msg)
                instruction = self.transcript.instruction_for(msg)
                view = self._new_view(msg, instruction)
                view.actions = self.transcript.row_actions
                self.views[msg_id] = view
                self.transcript.add(Entry(msg_id, msg, view))
            view.update(msg)
            size = len(msg.get_text_content() or "")
            grown += max(0, size - self._drawn_len.get(msg_id, 0))
            self._drawn_len[msg_id] = size
        if self.front_end == "html":
            fast = grown / FAST_CHARS_PER_SECOND
            self._next_interval = min(MAX_INTERVAL, max(self.interval, fast))
        self.on_flush()

    def _new_view(self, msg: Msg, instruction: str) -> LiveMessage | LiveMessageView:
        images = self.transcript.images
        if self.front_end == "html":
            return LiveMessageView(msg, images, instruction)
        classes = self.transcript.row_classes(msg)
        return LiveMessage(msg, images, instruction, self.transcript.callback, classes)

    def end(self) -> None:
        """Remove streaming rows the reply never committed (an interrupt kept nothing)."""
        self.stop()
        self._drawn_len.clear()
        self._next_interval = self.interval
        if not self.views:
            return
        for msg_id in list(self.views):
            self.views.pop(msg_id).close()
            self.transcript.remove(msg_id, render=False)
        self.transcript.render()


__all__ = ["FAST_CHARS_PER_SECOND", "LIVE_FRONT_END", "MAX_INTERVAL", "LiveRows"]
