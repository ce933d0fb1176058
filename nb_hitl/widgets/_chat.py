"""ChatWidget: send, watch the reply stream, Stop it at once, see what was kept, resume.

The widget only reads the agent through its events and public methods (``agent(msg)``,
``agent.interrupt_nowait()``, ``agent.is_replying``, ``agent.subscribe``). Replies run as
background tasks on the loop captured at creation; every button callback goes through a
``LoopBridge`` because JupyterLab may run comm handlers on another thread.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl._render import (
    CSS,
    RemoteImages,
    check_remote_images,
    esc,
    interrupt_cause,
    msg_flags,
)
from nb_hitl.agent._approval import ToolApprovalMixin
from nb_hitl.agent._decisions import DecisionsMixin
from nb_hitl.events import (
    CompressionConfigChanged,
    CompressionFinished,
    CompressionStarted,
    CompressionUndone,
    ErrorOccurred,
    Event,
    MessageAdded,
    MessageUpdated,
    ReplyFinished,
    ReplyStarted,
    ToolCallStarted,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import Msg

from ._approval import ApprovalCards
from ._branch_view import ACTION_BUTTONS
from ._chat_branches import BranchControls
from ._chat_tools import GAUGE_DELAY, ChatTools, CompressionRows, context_gauge
from ._input import WidgetInput
from ._invisible import is_blank
from ._keys import KeyBindings
from ._live import html
from ._loop import LoopBridge, WidgetRegistry
from ._question import QuestionCards
from ._resume import EditRequest, RegenerateRequest, Request, ResumeRequest, can_resume
from ._send_mode import (
    MODE_HINTS,
    MODE_LABELS,
    SEND_LABELS,
    STEER_KEPT_NOTE,
    STEER_NOTE,
    SendMode,
    check_send_mode,
)
from ._status import StatusLine
from ._step_stop import STOPPED_AFTER_STEP, STOPPING_AFTER_STEP, StepStop
from ._transcript import Entry, LiveRows, Transcript

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

EMPTY_INPUT_NOTE = "Nothing sent: the message is empty. Type an instruction first."
REPLACED_NOTE = "This chat no longer follows the agent: a newer one was created for it."
INPUT_GONE_NOTE = (
    "The conversation loop that read this chat has stopped. What you send now goes to the "
    "agent directly and is answered as usual."
)

GAUGE_EVENTS = (
    MessageAdded,
    ReplyFinished,
    CompressionFinished,
    CompressionUndone,
    CompressionConfigChanged,
)
"""Events after which the context gauge recounts (coalesced, ``GAUGE_DELAY``)."""

_CHATS = WidgetRegistry()
"""The newest ChatWidget of each agent."""


class ChatWidget(w.VBox):
    """A chat transcript with Send, Stop and Continue, driving one agent.

    Args:
        agent: the agent to talk to (``ReActAgent``...).
        user_name: name on the messages the person sends.
        max_rendered: how many recent rows are drawn; older ones behind "Show earlier".
        max_updates_per_second: redraw rate of the streaming message (deltas are coalesced).
        continue_text: what the Continue button sends.
        css: include the stylesheet (``AgentPanel`` includes it once for both halves).
        remote_images: how images from URLs in messages are drawn: ``"link"`` (default: a
            link opened only on a click, so no message can make the browser fetch anything),
            ``"show"`` (loaded at once: only for trusted sources) or ``"text"``. Inline
            ``data:image`` images are always shown.
        send_mode: what sending does while a reply runs: ``"interrupt"`` (interrupt & redirect:
            the reply stops, the message is answered next), ``"steer"`` (taken in at the
            reply's next step, nothing cancelled; agents without ``steer()`` redirect) or
            ``"queue"`` (answered after this reply). The picker above the input changes it.
    """

    def __init__(
        self,
        agent: AgentBase,
        *,
        user_name: str = "User",
        max_rendered: int = 50,
        max_updates_per_second: float = 20.0,
        continue_text: str = "Please continue.",
        css: bool = True,
        remote_images: RemoteImages = "link",
        send_mode: SendMode = "interrupt",
    ) -> None:
        check_remote_images(remote_images)
        check_send_mode(send_mode)
        if max_rendered < 1:
            raise ValueError(f"max_rendered must be at least 1 (got {max_rendered}).")
        if max_updates_per_second <= 0:
            raise ValueError("max_updates_per_second must be > 0.")
        self.agent = agent
        self.user_name = user_name
        self.continue_text = continue_text
        self.max_rendered = max_rendered
        self._bridge = LoopBridge()
        self._bridge.on_error = self._show_internal_error

        self.remote_images: RemoteImages = remote_images
        self.transcript = Transcript(
            max_rendered, images=remote_images, callback=self._bridge.callback
        )
        self.transcript.earlier.on_click(self._bridge.callback(lambda _b: self.show_earlier()))
        self.status = StatusLine(self._bridge)
        self._note = html()
        self.input = w.Textarea(
            placeholder=f"Message {agent.name}…", layout={"width": "100%", "height": "64px"}
        )
        self.send_button = w.Button(description="Send", button_style="primary", icon="paper-plane")
        self.send_button.add_class("nb-hitl-send")  # its label changes with the send mode
        self.stop_button = w.Button(description="Stop", button_style="danger", icon="stop")
        self.stop_button.disabled = True
        self.continue_button = w.Button(description="Continue", icon="play", disabled=True)
        self.mode_picker = w.ToggleButtons(
            options=[(label, mode) for mode, label in MODE_LABELS.items()],
            value=send_mode,
            description="While running:",
            tooltips=[MODE_HINTS[m] for m in MODE_LABELS],
            style={"button_width": "auto", "description_width": "initial"},
        )
        self.mode_picker.add_class("nb-hitl-send-mode")
        self.mode_picker.observe(self._bridge.callback(lambda _c: self._show_mode()), "value")
        self._keyboard()
        self.send_button.on_click(self._bridge.callback(lambda _b: self._send_from_input()))
        self.stop_button.on_click(self._bridge.callback(lambda _b: self.stop()))
        self.continue_button.on_click(self._bridge.callback(lambda _b: self.resume()))
        self.step_stop = StepStop(agent, self.status)
        """The "After this step" button (``stop_after_step()``) next to Stop."""
        self.step_stop.button.on_click(self._bridge.callback(lambda _b: self.stop_after_step()))
        buttons = w.VBox(
            [self.send_button, self.stop_button, self.step_stop.button, self.continue_button],
            layout={"width": "130px", "flex": "0 0 auto"},
        )
        buttons.add_class("nb-hitl-chat-buttons")  # buttons as wide as the column (CSS)
        bar = w.HBox([self.input, buttons], layout={"width": "100%"})
        self.tools = ChatTools(self)
        """Retry, Clear / Undo clear, Export (the row under the status line)."""
        self.compressions = CompressionRows(self)
        top: list[w.Widget] = [html(CSS)] if css else []
        super().__init__(
            children=[
                *top,
                self.transcript.earlier,
                self.transcript.box,
                self.status,
                self.tools,
                self._note,
                self.mode_picker,
                bar,
                self.shortcuts,
            ]
        )
        self.add_class("nb-hitl-chat")

        self.live = LiveRows(
            self.transcript, self._bridge, 1.0 / max_updates_per_second, self.status.refresh
        )
        self._queue: deque[Msg | Request | None] = deque()
        """Messages to send in turn; ``None``: answer steering a finished reply left queued;
        a ``ResumeRequest``: Continue (``agent.resume()``)."""
        self._runner: asyncio.Task[Any] | None = None
        self._input_source: WidgetInput | None = None
        self._sent_text: dict[str, str] = {}
        self._error_seen = False
        self.last_interrupted = False
        """True after a reply was interrupted, until the next reply starts."""
        self.branches = BranchControls(self)
        """Edit, Regenerate and the branch switcher (agents that fork: ``ReActAgent``)."""
        memory = getattr(agent, "memory", None)
        if self.branches.enabled:
            self.branches.redraw()  # memory, with a switcher wherever branches part
        else:
            for msg in memory.messages if memory is not None else []:
                self.transcript.add(Entry(msg.id, msg), render=False)
            for msg in memory.messages if memory is not None else []:
                self.transcript.fold_continued(msg)  # a continued answer: one, with a seam
            self.transcript.render()
        self._gauge_handle: asyncio.TimerHandle | None = None
        self._update_gauge()
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))
        self.detached = False
        """True once a newer ChatWidget for the same agent took over (re-running the cell)."""
        _CHATS.replace(agent, self, REPLACED_NOTE)
        if agent.is_replying:  # created mid-reply (cell re-run): follow and stop that reply
            self._follow_running_reply()
        self.approvals: ApprovalCards | None = None
        """Approval cards of tool calls waiting for a decision (agents with approvals)."""
        if isinstance(agent, ToolApprovalMixin):
            self.approvals = ApprovalCards(
                agent,
                self.append_widget,
                self.set_status,
                self._bridge,
                insert_row=lambda row, after: self.append_widget(row, after=after),
            )
        self.questions: QuestionCards | None = None
        """Forms of ``ask_user`` questions waiting for answers (agents that can ask)."""
        self._unwatch_policy: Callable[[], None] | None = None
        if isinstance(agent, DecisionsMixin):
            self.questions = QuestionCards(agent, self.append_widget, self.set_status, self._bridge)
            policy = agent.permissions
            self.status.set_permission_mode(policy.mode)
            self._unwatch_policy = policy.watch(
                self._bridge.callback(lambda: self.status.set_permission_mode(policy.mode))
            )

    # -- public API --------------------------------------------------------------------------
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

    @property
    def state(self) -> str:
        """``idle``, ``running``, ``stopping``, ``waiting`` (for you) or ``error``."""
        return self.status.state

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
        """End the running reply after its current step (the "After this step" button's
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

    def clear(self) -> bool:
        """Clear the chat and the agent's memory (the Clear button's twin); undoable until the
        next message with ``undo_clear()`` or the row's *Undo clear*."""
        return self.tools.clear()

    def undo_clear(self) -> bool:
        """Bring back what ``clear()`` removed."""
        return self.tools.undo_clear()

    def export(self, path: Any = None, format: Any = None) -> Any:
        """Save the transcript as Markdown (default) or HTML (``format="html"``); returns the
        path (default: ``<agent>-chat-<date-time>.md`` next to the notebook)."""
        return self.tools.export(path, format)

    def say(self, text: str, error: bool = False) -> None:
        """A one-line note under the status line (``""`` clears it)."""
        cls = "nb-hitl-status-error" if error else "nb-hitl-note"
        self._note.value = f'<span class="{cls}">{esc(text)}</span>' if text else ""

    def after_clear(self) -> None:
        """The transcript was cleared or brought back: idle, gauge recounted."""
        self.tools.show_retry(False)
        self.continue_button.disabled = True
        self.last_interrupted = False
        self.status.set_state("idle")
        self._update_gauge()

    def input_source(self) -> WidgetInput:
        """An input source for ``UserAgent``: the person types into this widget.

        ``user = UserAgent("User", chat.input_source())`` then run
        ``while True: msg = await user(msg); msg = await agent(msg)`` as a background task.
        """
        if self._input_source is None:
            self._input_source = WidgetInput(self)
        return self._input_source

    def append_widget(
        self, widget: w.Widget, key: str | None = None, *, after: str | None = None
    ) -> str:
        """Add any widget (e.g. an approval card) as a transcript row; returns its key.

        ``after``: the key (a message id) of the row it goes after; default the end.
        """
        key = key or "widget-" + uuid.uuid4().hex[:12]
        self.transcript.insert_after(Entry(key, None, widget), after)
        return key

    def remove_widget(self, key: str) -> bool:
        """Remove a row added with ``append_widget``."""
        return self.transcript.remove(key) is not None

    def set_status(self, state: str, detail: str = "") -> None:
        """Show a state (``waiting`` for "waiting for you") and a detail in the status line."""
        self.status.set_state(state, detail)

    def show_earlier(self) -> None:
        """Draw ``max_rendered`` more of the older rows."""
        self.transcript.show_earlier()

    def detach(self, reason: str = "") -> None:
        """Stop following the agent: no more events, buttons off; the transcript stays.

        A newer ChatWidget for the same agent detaches the older one, so re-running a cell
        does not leave stale widgets redrawing (and sending comm messages) for every event.
        """
        sub = getattr(self, "_sub", None)
        if sub is not None:
            sub.close()
        approvals = getattr(self, "approvals", None)
        if approvals is not None:
            approvals.close()
        questions = getattr(self, "questions", None)
        if questions is not None:
            questions.close()
        unwatch = getattr(self, "_unwatch_policy", None)
        if unwatch is not None:
            unwatch()
        if hasattr(self, "status"):
            self.status.stop_ticker()
        handle = getattr(self, "_gauge_handle", None)
        if handle is not None:
            handle.cancel()
            self._gauge_handle = None
        if reason and not getattr(self, "detached", True):
            self.detached = True
            tools = self.tools
            for button in (
                self.send_button,
                self.stop_button,
                self.step_stop.button,
                self.continue_button,
                tools.retry_button,
                tools.clear_button,
                tools.export_button,
            ):
                button.disabled = True
            self.live.stop()
            self._note.value = f'<span class="nb-hitl-note">{esc(reason)}</span>'

    def close(self) -> None:
        """Stop listening to the agent and close the widget."""
        self.detach()
        super().close()

    @property
    def flushes(self) -> int:
        """How many coalesced redraws of streaming messages happened (for benchmarks)."""
        return self.live.flushes

    @property
    def rows(self) -> list[w.Widget]:
        """The row widgets currently drawn (oldest first, newest last)."""
        return self.transcript.rows

    # -- keyboard ----------------------------------------------------------------------------
    def _keyboard(self) -> None:
        """Ctrl/Cmd+Enter sends, Escape stops, Enter in a deny-reason box denies."""
        self.input.add_class("nb-hitl-input")
        self.send_button.tooltip = "Send (Ctrl+Enter, ⌘+Enter on a Mac)"
        self.stop_button.tooltip = "Stop the reply (Esc anywhere in the panel)"
        self.continue_button.tooltip = (
            f"Continue the interrupted answer: sends what you typed as the instruction, "
            f"or “{self.continue_text}” when the box is empty"
        )
        self.shortcuts = KeyBindings(
            "nb-hitl-chat",
            [
                {"key": "Enter", "mod": True, "within": ".nb-hitl-input", "action": "send",
                 "clear": True},
                {"key": "Escape", "action": "stop", "anywhere": True, "enabled": ".nb-hitl-stop"},
                {"key": "Escape", "shift": True, "action": "stop_after_step", "anywhere": True,
                 "enabled": ".nb-hitl-stop-step"},
                {"key": "Enter", "within": ".nb-hitl-deny-reason", "near": ".nb-hitl-approval",
                 "click": ".nb-hitl-deny-ok"},
                {"key": "Enter", "within": ".nb-hitl-question-other", "near": ".nb-hitl-question",
                 "click": ".nb-hitl-question-submit"},
            ],
            self._bridge,
            focus_scope="nb-hitl-panel",
            copy_buttons=".nb-hitl-copy",
            action_buttons=ACTION_BUTTONS,
            stopping_rows=".nb-hitl-live",
            stop_button=".nb-hitl-stop",
            stop_action="stop",
        )  # fmt: skip
        self.stop_button.add_class("nb-hitl-stop")
        self.shortcuts.on_action("send", self._send_text)
        self.shortcuts.on_action("stop", lambda _text: self.stop())
        self.shortcuts.on_action("stop_after_step", lambda _text: self.stop_after_step())

    def _send_text(self, text: str) -> None:
        if self.send(text) is not None and self.input.value.strip() == text.strip():
            self.input.value = ""

    def _follow_running_reply(self) -> None:
        self.stop_button.disabled = False
        self.continue_button.disabled = True
        self.status.start_reply()
        self.status.set_detail("following the running reply")

    # -- transcript ---------------------------------------------------------------------------
    def _show_error_row(self, agent_name: str, text: str) -> None:
        msg = Msg(agent_name, text, "assistant", metadata={"_nb_hitl_error": True})
        self.transcript.add(Entry("error-" + msg.id, msg))

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

    def _send_from_input(self) -> None:
        if self.send(self.input.value) is not None:
            self.input.value = ""

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
        if error:
            self.status.set_state("error", error)
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
        if isinstance(ev, MessageAdded):
            self._schedule_gauge()  # messages come in bursts: counted once for the burst
        elif isinstance(ev, GAUGE_EVENTS):
            self._update_gauge()  # the end of a reply, a compression, new settings: at once

    def _schedule_gauge(self) -> None:
        if self._gauge_handle is None:
            self._gauge_handle = self._bridge.later(GAUGE_DELAY, self._update_gauge)

    def _update_gauge(self) -> None:
        """Count the next prompt against the compression threshold (the status line's gauge)."""
        if self._gauge_handle is not None:
            self._gauge_handle.cancel()
            self._gauge_handle = None
        self.status.set_context(context_gauge(self.agent))

    def _note_row(self, text: str) -> None:
        """A small system line in the transcript (not a message of the conversation)."""
        row = html(f'<div class="nb-hitl-msg nb-hitl-role-system nb-hitl-event">{esc(text)}</div>')
        self.transcript.add(Entry("note-" + uuid.uuid4().hex[:12], None, row))

    def _on_added(self, msg: Msg) -> None:
        if msg.metadata.get("_steered") and any(
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


__all__ = ["EMPTY_INPUT_NOTE", "INPUT_GONE_NOTE", "REPLACED_NOTE", "ChatWidget"]
