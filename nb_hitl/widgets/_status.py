"""StatusLine: idle / running / stopping / waiting for you / error, with reply timing.

While a reply runs it shows its phase (thinking, streaming text, running tool X...), the
elapsed time, the tokens streamed and tokens per second. A phase or state change redraws at
once; the figures alone redraw at most ``REFRESH_HZ`` times a second, so a fast stream does
not turn the status into a second stream of comm messages.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc
from nb_hitl.events import (
    CompressionFinished,
    CompressionStarted,
    Event,
    MessageUpdated,
    ToolCallStarted,
    ToolResultReady,
)

from ._loop import LoopBridge

if TYPE_CHECKING:
    from ._controls import ControlHtml

STATES = ("idle", "running", "stopping", "waiting", "error")
LABELS = {
    "idle": "idle",
    "running": "running",
    "stopping": "stopping",
    "waiting": "waiting for you",
    "error": "error",
}
REFRESH_HZ = 1.0


class StatusLine:
    """The chat's status line: its state and figures, drawn as the ``status`` part of the
    chat's controls (``ChatControls``; the page's ``.nb-hitl-status-line``).

    Args:
        bridge: the chat's loop (the ticker that redraws the figures runs on it).
        part: where the line is drawn (``value``: its HTML).
    """

    def __init__(self, bridge: LoopBridge, part: ControlHtml) -> None:
        self._part = part
        self._bridge = bridge
        self.state = "idle"
        self.detail = ""
        self.hint = ""
        """What sending does now, shown while a reply runs (the chat's send mode)."""
        self.started: float | None = None
        self.ended: float | None = None
        self._tokens: dict[str, int] = {}
        self._last_draw = 0.0
        self._drawn = ""
        self._ticker: asyncio.TimerHandle | None = None
        self._tools: dict[str, str] = {}
        self._waited = 0.0
        self._waiting_since: float | None = None
        self.permission_mode = ""
        """The agent's permission mode (``ask``, ``allow_reads``...), shown at the end."""
        self.context: tuple[int, int | None, bool] | None = None
        """``(prompt tokens, compression threshold, auto compression on)`` of the gauge."""
        self._draw()

    @property
    def value(self) -> str:
        """The line's HTML (escaped), as the page draws it."""
        return self._part.value

    @value.setter
    def value(self, html: str) -> None:
        self._part.value = html

    def observe(self, handler: Any, names: Any = "value") -> None:
        """Call ``handler(change)`` when the line is redrawn (as on the ``HTML`` widget it was)."""
        self._part.observe(handler, names)

    # -- figures -----------------------------------------------------------------------------
    @property
    def streamed_tokens(self) -> int:
        """Tokens streamed in the current (or last) reply, over all its model calls."""
        return sum(self._tokens.values())

    @property
    def waited(self) -> float:
        """Seconds the current (or last) reply spent waiting for you (approvals)."""
        if self._waiting_since is None:
            return self._waited
        return self._waited + (self.ended or time.monotonic()) - self._waiting_since

    @property
    def elapsed(self) -> float:
        """Seconds the current (or last) reply has been working: time waiting for you (an
        approval) is not counted, so tokens per second is the model's speed."""
        if self.started is None:
            return 0.0
        return max(0.0, (self.ended or time.monotonic()) - self.started - self.waited)

    def tokens(self, msg_id: str, count: int) -> None:
        """Record that the live message ``msg_id`` has streamed ``count`` pieces."""
        self._tokens[msg_id] = max(count, self._tokens.get(msg_id, 0))

    # -- transitions -------------------------------------------------------------------------
    def set_state(self, state: str, detail: str = "") -> None:
        """Switch state (one of ``STATES``) and redraw now."""
        if state not in STATES:
            raise ValueError(f"Unknown status {state!r}; use one of {', '.join(STATES)}.")
        if state != "running":
            self._tools = {}
        now = time.monotonic()
        replying = self.started is not None and self.ended is None
        if state == "waiting" and replying and self._waiting_since is None:
            self._waiting_since = now
        elif state != "waiting" and self._waiting_since is not None:
            self._waited += now - self._waiting_since
            self._waiting_since = None
        self.state = state
        self.detail = detail
        if state in ("running", "stopping"):
            self._start_ticker()
        self._draw()

    def set_detail(self, detail: str) -> None:
        """Change the detail text; a changed detail redraws at once."""
        if detail != self.detail:
            self.detail = detail
            self._draw()

    def set_hint(self, hint: str) -> None:
        """Change what sending does now (shown while running); a changed hint redraws at once."""
        if hint != self.hint:
            self.hint = hint
            self._draw()

    def follow(self, ev: Event) -> None:
        """Follow the running reply's phase: thinking, streaming text, running tool X...

        Called with every event of the agent (after ``tokens`` for a ``MessageUpdated``, so
        the first redraw of a phase already shows its figures).
        """
        if self.state != "running":
            return
        if isinstance(ev, MessageUpdated) and ev.msg is not None and not self._tools:
            self.set_detail(_streaming_phase(ev.msg.get_content_blocks()))
        elif isinstance(ev, ToolCallStarted) and ev.tool_use is not None:
            self._tools[ev.tool_use.id] = ev.tool_use.name
            self.set_detail(self._tools_phase())
        elif isinstance(ev, ToolResultReady) and ev.result is not None:
            self._tools.pop(ev.result.id, None)
            self.set_detail(self._tools_phase() if self._tools else "thinking")
        elif isinstance(ev, CompressionStarted):
            self.set_detail("compressing memory")
        elif isinstance(ev, CompressionFinished):
            self.set_detail("thinking")

    def _tools_phase(self) -> str:
        names = list(dict.fromkeys(self._tools.values()))
        return ("running tool " if len(names) == 1 else "running tools ") + ", ".join(names)

    def start_reply(self) -> None:
        """A reply began: reset the figures."""
        self.started, self.ended = time.monotonic(), None
        self._waited, self._waiting_since = 0.0, None
        self._tokens = {}
        self._tools = {}
        if self.state != "stopping":
            self.set_state("running", "thinking")

    def finish_reply(self, detail: str = "") -> None:
        """The reply ended: freeze the figures and go idle."""
        if self.started is not None and self.ended is None:
            self.ended = time.monotonic()
        if self._waiting_since is not None:
            self._waited += self.ended - self._waiting_since if self.ended else 0.0
            self._waiting_since = None
        self.stop_ticker()
        self.set_state("idle", detail)

    def refresh(self) -> None:
        """Redraw if the last redraw is older than ``1 / REFRESH_HZ``."""
        if time.monotonic() - self._last_draw >= 1.0 / REFRESH_HZ:
            self._draw()

    def set_permission_mode(self, mode: str) -> None:
        """Show which permission mode is on (``""``: none)."""
        if mode != self.permission_mode:
            self.permission_mode = mode
            self._draw()

    def set_context(self, context: tuple[int, int | None, bool] | None) -> None:
        """Show the next prompt's tokens against the compression threshold (None: no gauge)."""
        if context != self.context:
            self.context = context
            self._draw()

    # -- drawing ---------------------------------------------------------------------------
    def gauge_text(self) -> str:
        """The context gauge as plain text (``""`` without one)."""
        if self.context is None:
            return ""
        tokens, threshold, enabled = self.context
        if not threshold:
            return f"context {tokens:,} tokens (no compression threshold)"
        off = "" if enabled else ", automatic compression off"
        return f"context {tokens:,} / {threshold:,} tokens ({tokens / threshold:.0%}{off})"

    def _gauge_html(self) -> str:
        if self.context is None:
            return ""
        tokens, threshold, _ = self.context
        share = tokens / threshold if threshold else 0.0
        level = "over" if share > 1 else "near" if share >= 0.8 else "ok"
        bar = (
            f'<span class="nb-hitl-gauge-bar"><span style="width:{min(share, 1):.0%}">'
            "</span></span>"
            if threshold
            else ""
        )
        return (
            f' <span class="nb-hitl-gauge nb-hitl-gauge-{level}" data-tokens="{tokens}" '
            f'data-threshold="{threshold or 0}" title="Prompt tokens of the next model call '
            f'against the compression threshold">{bar}{esc(self.gauge_text())}</span>'
        )

    def text(self) -> str:
        """The status as plain text (what the line shows)."""
        return " · ".join([*self._words(), *filter(None, [self._figures()])])

    def _words(self) -> list[str]:
        """The state, its detail and hint: what the live region announces."""
        parts = [LABELS[self.state]]
        if self.detail and self.detail != LABELS[self.state]:
            parts.append(self.detail)
        if self.hint and self.state == "running":
            parts.append(self.hint)
        return parts

    def _figures(self) -> str:
        """Elapsed time, tokens and tokens per second of the reply ("" when none): shown,
        not announced (they change every second)."""
        current = self.ended is None or self.state in ("idle", "error")
        if self.started is None or self.state == "waiting" or not current:
            return ""
        secs = self.elapsed
        toks = self.streamed_tokens
        rate = toks / secs if secs > 0 else 0.0
        waited = self.waited
        wait = f" (+{waited:.1f} s waiting for you)" if waited >= 0.05 else ""
        return f"{secs:.1f} s{wait} · {toks} tokens · {rate:.1f} tok/s"

    def _draw(self) -> None:
        self._last_draw = time.monotonic()
        figures = self._figures()
        shown = f'<span aria-hidden="true"> · {esc(figures)}</span>' if figures else ""
        value = (  # a live region: the state and phase are announced, the figures only shown
            f'<span class="nb-hitl-status nb-hitl-status-{self.state}" role="status" '
            f'aria-live="polite" data-state="{self.state}">'
            f"&#9679; {esc(' · '.join(self._words()))}{shown}</span>{self._gauge_html()}"
        )
        if self.permission_mode:
            mode = esc(self.permission_mode)
            value += (
                f' <span class="nb-hitl-permission-mode" data-mode="{mode}" '
                f'title="permission mode"><i class="fa fa-lock" aria-hidden="true"></i> '
                f"{mode.replace('_', ' ')}</span>"
            )
        if value != self._drawn:
            self._drawn = value
            self.value = value

    def _start_ticker(self) -> None:
        if self._ticker is None:
            self._ticker = self._bridge.later(1.0 / REFRESH_HZ, self._tick)

    def _tick(self) -> None:
        self._ticker = None
        if self.state in ("running", "stopping"):
            self._draw()
            self._start_ticker()

    def stop_ticker(self) -> None:
        """Cancel the periodic redraw."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None


def _streaming_phase(blocks: list[Any]) -> str:
    """The phase a streaming model turn is in, from its newest block."""
    if not blocks:
        return "thinking"
    last = blocks[-1]
    if last.type == "text":
        return "streaming text"
    if last.type == "tool_use":
        return f"preparing tool call {last.name}"
    return "thinking"


__all__ = ["STATES", "StatusLine"]
