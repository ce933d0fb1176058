"""How a ``ChatWidget`` follows its agent: the send queue it runs, and the events it draws.

Sent messages wait in a queue that one background task works through, each once the agent is
free (``_run_queue``); the agent's events then drive the transcript and the buttons: streaming
deltas, messages added, the reply starting and finishing (interrupted or not), errors (with
Retry), the context gauge. ``FollowAgentMixin`` is mixed into ``ChatWidget`` (``_chat.py``).
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import deque
from typing import TYPE_CHECKING, Any

from nb_hitl._render import (
    esc,
    interrupt_cause,
    msg_flags,
)
from nb_hitl.events import (
    CompressionConfigChanged,
    CompressionFinished,
    CompressionStarted,
    CompressionUndone,
    ErrorOccurred,
    Event,
    MessageAdded,
    MessageUpdated,
    Notice,
    ReplyFinished,
    ReplyStarted,
    ToolCallStarted,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import MetaKey, Msg

from ._chat_branches import BranchControls
from ._chat_tools import GAUGE_DELAY, ChatTools, CompressionRows, context_gauge
from ._controls import ControlButton, ControlInput
from ._invisible import is_blank
from ._live_rows import LiveRows
from ._loop import LoopBridge
from ._resume import EditRequest, RegenerateRequest, Request, ResumeRequest
from ._row import Row
from ._send_mode import (
    STEER_KEPT_NOTE,
    STEER_NOTE,
)
from ._status import StatusLine
from ._step_stop import STOPPED_AFTER_STEP, StepStop
from ._transcript import Entry, Transcript

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

INPUT_GONE_NOTE = (
    "The conversation loop that read this chat has stopped. What you send now goes to the "
    "agent directly and is answered as usual."
)

RETRY_HINT = "Retry asks again"
"""What the status line says after a model error (the Retry button shows beside it)."""

GAUGE_EVENTS = (
    MessageAdded,
    ReplyFinished,
    CompressionFinished,
    CompressionUndone,
    CompressionConfigChanged,
)
"""Events after which the context gauge recounts (coalesced, ``GAUGE_DELAY``)."""


def short_error(error: str, limit: int = 60) -> str:
    """The status line's word for an error the transcript shows whole: its type and the first
    clause of its message, cut at a word boundary (``ModelStreamError: The connection to the
    server at http://…``)."""
    kind, sep, message = error.partition(": ")
    if not sep:
        kind, message = "", error
    clause = re.split(r" \(|; |\. ", message.strip(), maxsplit=1)[0].rstrip(".")
    if len(clause) > limit:
        cut = clause[:limit].rsplit(" ", 1)[0] if " " in clause[:limit] else clause[:limit]
        clause = cut.rstrip(",;:") + "…"
    return f"{kind}: {clause}" if kind else clause


class FollowAgentMixin:
    """The running and event half of ``ChatWidget``."""

    # Provided by the class it is mixed into.
    _bridge: LoopBridge
    _error_seen: bool
    _gauge_handle: asyncio.TimerHandle | None
    _gauge_cost: float
    _note: Any
    _queue: deque[Msg | Request | None]
    _sent_text: dict[str, str]
    agent: AgentBase
    branches: BranchControls
    compressions: CompressionRows
    continue_button: ControlButton
    input: ControlInput
    last_interrupted: bool
    live: LiveRows
    send_button: ControlButton
    status: StatusLine
    step_stop: StepStop
    stop_button: ControlButton
    tools: ChatTools
    transcript: Transcript

    if TYPE_CHECKING:

        def _show_mode(self) -> None: ...

        def say(self, text: str, error: bool = False) -> None: ...

    # -- transcript ---------------------------------------------------------------------------
    def _show_error_row(self, agent_name: str, text: str) -> None:
        if self._error_drawn(text):
            return  # the partial answer carries it (its row says it once, under the text)
        msg = Msg(agent_name, text, "assistant", metadata={MetaKey.PANEL_ERROR: True})
        self.transcript.add(Entry("error-" + msg.id, msg))

    def _error_drawn(self, text: str) -> bool:
        """Whether a row of this reply (after the newest user message) shows ``text``."""
        for entry in reversed(self.transcript.entries):
            msg = entry.msg
            if msg is None:
                continue
            if msg.role == "user":
                return False
            if msg.metadata.get(MetaKey.ERROR) == text:
                return True
        return False

    def _show_internal_error(self, exc: BaseException) -> None:
        self._show_error_row("nb_hitl", f"Widget error: {type(exc).__name__}: {exc}")

    # -- running -----------------------------------------------------------------------------
    async def _run_queue(self) -> None:
        while self._queue:
            # The reply we interrupted is finishing; the agent's public API has no idle event.
            while self.agent.is_replying:  # noqa: ASYNC110
                await asyncio.sleep(0.005)
            if not self._queue:
                break
            msg = self._queue.popleft()
            if msg is None:  # steering a reply that ended first: a new reply answers it
                if not getattr(self.agent, "pending_steering", None) or any(self._queue):
                    continue  # taken in already, or by the next queued message's reply start
            self._error_seen = False
            try:
                if isinstance(msg, (ResumeRequest, EditRequest, RegenerateRequest)):
                    await msg.run(self.agent)
                else:
                    await self.agent(msg)
            except AgentBusyError:
                self._queue.appendleft(msg)  # the same item (None: the steering) again
                await asyncio.sleep(0.01)
            except Exception as exc:  # shown in the transcript; the widget stays usable
                await self._failed(exc, msg)

    async def _retry(self) -> None:
        self._error_seen = False
        try:
            await self.agent()
        except AgentBusyError:
            self.say("The agent is busy: wait for its reply, then Retry.")
        except Exception as exc:
            await self._failed(exc, None)

    async def _failed(self, exc: Exception, msg: Msg | Request | None) -> None:
        await asyncio.sleep(0)
        if not self._error_seen:
            self._show_error_row(self.agent.name, f"{type(exc).__name__}: {exc}")
            self._restore_input(msg)
            self._finish_idle(interrupted=False, error=f"{type(exc).__name__}: {exc}")

    def _restore_input(self, msg: Msg | Request | None) -> None:
        text = self._sent_text.get(msg.id, "") if msg is not None else ""
        if text and is_blank(self.input.value):
            self.input.value = text

    def _begin_stopping(self) -> None:
        # The interrupted style goes out first: after Stop it is what the person waits for.
        self.live.mark_interrupted()
        self.status.set_state("stopping", "Stopping…")
        self.stop_button.disabled = True
        self.stop_button.description = "Stopping…"
        self.live.stop()  # deltas of a stopped reply are not drawn

    def _finish_idle(self, interrupted: bool, error: str = "", cause: str = "") -> None:
        self.stop_button.disabled = True
        self.stop_button.description = "Stop"
        self.send_button.description = "Send"
        self.status.hint = ""
        self.last_interrupted = interrupted
        self.continue_button.disabled = not interrupted
        self.tools.show_retry(bool(error))
        self.compressions.refresh()
        self.step_stop.end()  # an error ends the reply without ReplyFinished
        if error:
            # The transcript shows the whole error once; the status line names it and says
            # what to press (Retry), not the model's own advice for code.
            self.status.set_state("error", f"{short_error(error)} · {RETRY_HINT}")
        else:
            stopped = f"interrupted ({cause})" if cause else "interrupted"
            self.status.finish_reply(stopped if interrupted else "")
        if interrupted:
            self.input.placeholder = (
                "Interrupted. Tell the agent how to continue, or press Continue."
            )
        else:
            self.input.placeholder = f"Message {self.agent.name}…"

    # -- events ---------------------------------------------------------------------------
    def _on_event(self, ev: Event) -> None:
        self.step_stop.on_event(ev)
        self.branches.on_event(ev)
        if not isinstance(ev, (MessageUpdated, ReplyStarted)):
            self.status.follow(ev)
        if isinstance(ev, MessageUpdated):
            if ev.msg is None or self.status.state == "stopping":
                return
            self.status.tokens(ev.msg.id, ev.tokens)
            self.status.follow(ev)
            self.live.push(ev.msg)
        elif isinstance(ev, MessageAdded) and ev.msg is not None:
            self._on_added(ev.msg)
        elif isinstance(ev, ToolCallStarted) and ev.tool_use is not None:
            memory = getattr(self.agent, "memory", None)
            if memory is not None:
                self.transcript.follow_edited_call(ev.tool_use, memory.messages)
        elif isinstance(ev, ReplyStarted):
            self.tools.show_retry(False)
            self.compressions.refresh()
            self.last_interrupted = False
            self.continue_button.disabled = True
            self.stop_button.disabled = False
            self.stop_button.description = "Stop"
            self.status.start_reply()
            self._show_mode()
        elif isinstance(ev, ReplyFinished):
            self.live.end()
            cause = interrupt_cause(ev.msg) if ev.msg is not None else ""
            self._finish_idle(interrupted=ev.interrupted, cause=cause)
            if self.step_stop.stopped:  # ended cleanly between two steps: Continue goes on
                self.continue_button.disabled = False
                self.status.finish_reply(STOPPED_AFTER_STEP)
        elif isinstance(ev, ErrorOccurred):
            self._error_seen = True
            self.live.end()
            text = f"{ev.error_type}: {ev.message}"
            self._show_error_row(ev.agent_name, text)
            self._restore_input(self.transcript.last_user_msg())
            self._finish_idle(interrupted=False, error=text)
        elif isinstance(ev, (CompressionStarted, CompressionFinished, CompressionUndone)):
            self.compressions.on_event(ev)
        elif isinstance(ev, Notice):
            self._note_row(ev.text)  # e.g. a remote server's malformed events, skipped
        if isinstance(ev, MessageAdded):
            self._schedule_gauge()  # messages come in bursts: counted once for the burst
        elif isinstance(ev, GAUGE_EVENTS):
            self._update_gauge()  # the end of a reply, a compression, new settings: at once

    def _schedule_gauge(self) -> None:
        if self._gauge_handle is None:
            # A count of a huge memory takes a while: at most ~10% of the loop goes to it.
            delay = max(GAUGE_DELAY, 10 * self._gauge_cost)
            self._gauge_handle = self._bridge.later(delay, self._update_gauge)

    def _update_gauge(self) -> None:
        """Count the next prompt against the compression threshold (the status line's gauge)."""
        if self._gauge_handle is not None:
            self._gauge_handle.cancel()
            self._gauge_handle = None
        started = time.perf_counter()
        self.status.set_context(context_gauge(self.agent))
        self._gauge_cost = time.perf_counter() - started

    def _note_row(self, text: str) -> None:
        """A small system line in the transcript (not a message of the conversation)."""
        key = "note-" + uuid.uuid4().hex[:12]
        row = Row(
            key, f'<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event">{esc(text)}</div>'
        )
        self.transcript.add(Entry(key, None, row))

    def _on_added(self, msg: Msg) -> None:
        if msg.metadata.get(MetaKey.STEERED) and any(
            esc(note) in self._note.value for note in (STEER_NOTE, STEER_KEPT_NOTE)
        ):
            self._note.value = ""
        self.transcript.confirm(msg.id)
        self.transcript.fold_continued(msg)
        if self.live.commit(msg):
            return
        entry = self.transcript.get(msg.id)
        if entry is not None:
            if entry.msg is not None and msg_flags(entry.msg) != msg_flags(msg):
                entry.msg, entry.view = msg, None
                self.transcript.render()
            return
        self.transcript.add(Entry(msg.id, msg))

    def _input_source_gone(self) -> None:
        """The loop that read ``input_source()`` stopped: say so; Send answers directly now.

        A line in the transcript, where it happened: the note under it clears on the next send.
        """
        self._note_row(INPUT_GONE_NOTE)
        self.input.placeholder = f"Message {self.agent.name}…"

    def _set_waiting(self, waiting: bool, prompt: Msg | None = None) -> None:
        if waiting:
            interrupted = prompt is not None and msg_flags(prompt)[0]
            self.status.set_state("waiting", "waiting for you")
            self.input.placeholder = (
                "Interrupted. Tell the agent how to continue, or press Continue."
                if interrupted
                else f"Your turn: message {self.agent.name}…"
            )
            self.continue_button.disabled = not interrupted
        elif self.status.state == "waiting":
            self.status.set_state("idle")


__all__ = ["GAUGE_EVENTS", "INPUT_GONE_NOTE", "FollowAgentMixin"]
