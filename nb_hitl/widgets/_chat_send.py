"""What Send, Stop, Continue and Retry do in a ``ChatWidget``, and the send modes.

While a reply runs, ``send_mode`` decides what Send does: interrupt and redirect, steer (taken
in at the reply's next step) or queue (answered after it); the Send button and the status line
say which applies. ``SendMixin`` is mixed into ``ChatWidget`` (``_chat.py``); the queue it
fills is run by ``FollowAgentMixin`` (``_chat_follow.py``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any

from nb_hitl._render import (
    esc,
)
from nb_hitl.message import Msg

from ._chat_branches import BranchControls
from ._chat_tools import ChatTools
from ._controls import ControlButton, ControlChoice, ControlInput
from ._input import WidgetInput
from ._invisible import is_blank
from ._loop import LoopBridge
from ._resume import Request, ResumeRequest, can_resume
from ._send_mode import (
    MODE_HINTS,
    SEND_LABELS,
    STEER_KEPT_NOTE,
    STEER_NOTE,
    SendMode,
    check_send_mode,
)
from ._status import StatusLine
from ._step_stop import STOPPING_AFTER_STEP, StepStop
from ._transcript import Entry, Transcript

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

EMPTY_INPUT_NOTE = "Nothing sent: the message is empty. Type an instruction first."


class SendMixin:
    """The sending half of ``ChatWidget``: ``send``, ``stop``, ``resume``, ``retry``."""

    # Provided by the class it is mixed into.
    _bridge: LoopBridge
    _input_source: WidgetInput | None
    _note: Any
    _queue: deque[Msg | Request | None]
    _runner: asyncio.Task[Any] | None
    _sent_text: dict[str, str]
    agent: AgentBase
    branches: BranchControls
    continue_button: ControlButton
    continue_text: str
    input: ControlInput
    mode_picker: ControlChoice
    send_button: ControlButton
    status: StatusLine
    step_stop: StepStop
    stop_button: ControlButton
    tools: ChatTools
    transcript: Transcript
    user_name: str

    if TYPE_CHECKING:

        def _begin_stopping(self) -> None: ...

        def _finish_idle(self, interrupted: bool, error: str = "", cause: str = "") -> None: ...

        def _restore_input(self, msg: Msg | Request | None) -> None: ...

        async def _retry(self) -> None: ...

        async def _run_queue(self) -> None: ...

        def say(self, text: str, error: bool = False) -> None: ...

    @property
    def send_mode(self) -> str:
        """``steer``, ``interrupt`` or ``queue``: what Send does while a reply runs."""
        return str(self.mode_picker.value)

    @send_mode.setter
    def send_mode(self, mode: SendMode) -> None:
        check_send_mode(mode)
        self.mode_picker.value = mode
        self._show_mode()

    def _effective_mode(self) -> str:
        mode = self.send_mode
        if mode == "steer" and not hasattr(self.agent, "steer_nowait"):
            return "interrupt"  # this agent takes no steering
        if mode == "steer" and self._input_source is not None and not self._input_source.gone:
            return "queue"  # a UserAgent loop reads the input: it answers after this reply
        return mode

    def _show_mode(self) -> None:
        """The Send button and the status line say what sending does now."""
        running = self.agent.is_replying and self.status.state != "stopping"
        mode = self._effective_mode()
        self.send_button.description = SEND_LABELS[mode] if running else "Send"
        self.status.set_hint(f"sending now: {MODE_HINTS[mode]}" if running else "")
        if self.step_stop.pending:
            self.status.set_hint(STOPPING_AFTER_STEP)
        if running:
            self.input.placeholder = f"Message {self.agent.name}… ({MODE_HINTS[mode]})"

    def send(self, text: str | Msg) -> Msg | None:
        """Send a message (the Send button's twin); ``None`` when nothing was sent.

        While a reply runs, ``send_mode`` decides: ``interrupt`` (the reply is interrupted and
        the message answered next), ``steer`` (the reply takes it in at its next step; it is
        drawn there) or ``queue`` (answered after this reply). Call on the widget's event loop.
        """
        if isinstance(text, Msg):
            msg = text
        else:
            if not isinstance(text, str) or is_blank(text):
                self._note.value = f'<span class="nb-hitl-note">{EMPTY_INPUT_NOTE}</span>'
                return None
            msg = Msg(self.user_name, text, "user")
        running = self.agent.is_replying
        if self.branches.editing is not None and not running:  # Edit, then Send: a new branch
            return msg if self.branches.send_edit(msg.get_text_content() or "") else None
        self._note.value = ""
        mode = self._effective_mode()
        if running and mode == "steer":
            self.agent.steer_nowait(msg)  # type: ignore[attr-defined]
            self._note.value = f'<span class="nb-hitl-note">{esc(STEER_NOTE)}</span>'
            self._queue.append(None)  # if the reply ends first, the next one answers it
            if self._runner is None or self._runner.done():
                self._runner = self._bridge.spawn(self._run_queue(), name="nb_hitl-chat-runner")
            return msg  # drawn where the reply takes it in (MessageAdded)
        self.tools.forget_clear()
        self.tools.show_retry(False)
        self._sent_text[msg.id] = msg.get_text_content() or ""
        while len(self._sent_text) > 20:  # only recent sends can still need restoring
            del self._sent_text[next(iter(self._sent_text))]
        self.transcript.unconfirmed.append(msg.id)
        self.transcript.add(Entry(msg.id, msg))
        self.continue_button.disabled = True
        redirect = running and mode == "interrupt"
        if redirect:
            self._begin_stopping()
            self.agent.interrupt_nowait()
        if self._input_source is not None and not self._input_source.gone:
            self._input_source.put(msg)
            return msg
        self._queue.append(msg)
        if not running:
            self.stop_button.disabled = False  # first: once "running" shows, Stop works
            self.status.set_state("running", "starting…")
        if self._runner is None or self._runner.done():
            self._runner = self._bridge.spawn(self._run_queue(), name="nb_hitl-chat-runner")
        return msg

    def stop(self) -> bool:
        """Interrupt the running reply (the Stop button's twin); ``False`` if none runs."""
        if self.status.state == "stopping":
            return True
        if not self.agent.is_replying:
            if self._queue:  # stopped before the reply began: take the messages back
                for msg in self._queue:
                    if msg is not None:
                        self.transcript.remove(msg.id)
                self._restore_input(self._queue[0])
                self._queue.clear()
                self._finish_idle(interrupted=True)
                return True
            return False
        if None in self._queue:  # Stop means no new reply; the steering waits for the next one
            self._queue = deque(m for m in self._queue if m is not None)
            self._note.value = f'<span class="nb-hitl-note">{esc(STEER_KEPT_NOTE)}</span>'
        self._begin_stopping()
        self.step_stop.stop_now()
        self.agent.interrupt_nowait()
        return True

    def stop_after_step(self) -> bool:
        """End the running reply after its current step (the "After step" button's
        twin, Shift+Escape): what is in flight finishes, the history stays complete; the
        status line says "stopping after this step…". False when no reply runs."""
        return self.step_stop.request()

    def resume(self, text: str | None = None) -> bool:
        """Continue the interrupted reply (the Continue button's twin); False if nothing started.

        It calls ``agent.resume(instruction)``: the partial answer is finished from where it
        stopped, drawn as one answer with a "resumed here" mark. Agents without ``resume()``,
        a ``UserAgent`` loop reading the chat, or nothing to resume: the instruction (else
        ``continue_text``) is sent as a message instead.

        Args:
            text: how to continue ("Continue, but keep it to one short paragraph."); by
                default what is typed in the box, which is then cleared.
        """
        typed = self.input.value if text is None else text
        instruction = typed if isinstance(typed, str) and not is_blank(typed) else None
        loop_reads = self._input_source is not None and not self._input_source.gone
        if loop_reads or self.agent.is_replying or not can_resume(self.agent):
            started = self.send(instruction or self.continue_text) is not None
        else:
            started = self._queue_resume(instruction)
        if started and text is None and self.input.value == typed:
            self.input.value = ""  # what was typed went with Continue
        return started

    def _queue_resume(self, instruction: str | None) -> bool:
        msg = Msg(self.user_name, instruction, "user") if instruction else None
        if msg is not None:
            self._sent_text[msg.id] = instruction or ""
        return self._queue_request(ResumeRequest(msg), "continuing…")

    def edit(self, msg_id: str, text: str | None = None) -> bool:
        """Edit the earlier user message ``msg_id`` (its Edit button's twin): its text goes in
        the box and Send re-sends it on a new branch (``agent.edit_and_resend``); with ``text``
        it is re-sent at once. The branch it leaves is kept (the switcher goes back)."""
        return self.branches.edit(msg_id, text)

    def regenerate(self, msg_id: str) -> bool:
        """Answer the answer ``msg_id``'s question again on a new branch (its Regenerate
        button's twin, ``agent.regenerate``)."""
        return self.branches.regenerate(msg_id)

    def checkout(self, branch: Any) -> bool:
        """Switch the conversation to ``branch`` (the switcher's arrows; ``agent.checkout``)."""
        return self.branches.checkout(branch)

    def _queue_request(self, request: Request, detail: str) -> bool:
        """Queue Continue, an edit or a regenerate: run once the agent is idle."""
        self._note.value = ""
        self.continue_button.disabled = True
        self.stop_button.disabled = False
        self.status.set_state("running", detail)
        self._queue.append(request)
        if self._runner is None or self._runner.done():
            self._runner = self._bridge.spawn(self._run_queue(), name="nb_hitl-chat-runner")
        return True

    def retry(self) -> bool:
        """After a model error, ask again (the Retry button's twin): the agent replies to what
        its memory holds (``agent(None)``); ``False`` if there is no error to retry."""
        if self.agent.is_replying or self.status.state != "error":
            self.say("Nothing to retry: Retry asks again after a model error.")
            return False
        last = self.transcript.last_user_msg()
        if last is not None and self.input.value == self._sent_text.get(last.id):
            self.input.value = ""  # the restored text is what is retried
        self.tools.show_retry(False)
        self.say("")
        self.stop_button.disabled = False
        self.status.set_state("running", "retrying…")
        self._runner = self._bridge.spawn(self._retry(), name="nb_hitl-chat-retry")
        return True


__all__ = ["EMPTY_INPUT_NOTE", "SendMixin"]
