"""ChatWidget: send, watch the reply stream, Stop it at once, see what was kept, resume.

The widget only reads the agent through its events and public methods (``agent(msg)``,
``agent.interrupt_nowait()``, ``agent.is_replying``, ``agent.subscribe``). Replies run as
background tasks on the loop captured at creation; every button callback goes through a
``LoopBridge`` because JupyterLab may run comm handlers on another thread.

The chat is one model (a ``PanelModel``; its front end ``js/src/chat.js``): its parts are
drawn inside it with no comm of their own (``inside_host`` + ``embed``), each keeping its own
Python object: ``transcript`` (the rows: ``chat.transcript.view``, a ``TranscriptView``),
``controls`` (``ChatControls``: the input, buttons, picker, status line, toolbar) and
``keys`` (``chat.shortcuts``, a ``KeyBindings``: the shortcuts, row and Copy buttons, Stop
drawn at once, the "kernel restarted" banner), plus ``css``, the kernel's stylesheet when
the chat is shown on its own. The page's actions reach a part as the chat's action named after it
(``{name: "controls", args: {name: "send", args: {text}}}``); a part's batches reach the page
as ``child`` ops of the chat's. One chat opens one comm (and its ``Layout``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import ipywidgets as w

from nb_hitl._render import (
    RemoteImages,
    check_remote_images,
    copy_text,
    esc,
)
from nb_hitl.agent.approvals import ApprovalMethods
from nb_hitl.message import Msg

from ._approval import CARD_KEYS, ApprovalCards, takes_decisions
from ._branch_view import ACTION_BUTTONS
from ._card import CARD_ACTION
from ._chat_branches import BranchControls
from ._chat_follow import INPUT_GONE_NOTE, FollowAgentMixin
from ._chat_send import EMPTY_INPUT_NOTE, SendMixin
from ._chat_tools import ChatTools, CompressionRows
from ._controls import ChatControls
from ._input import WidgetInput
from ._keys import KeyBindings
from ._live_rows import LiveRows
from ._loop import LoopBridge, WidgetRegistry
from ._model import PanelModel, inside_host, page_css, static_file
from ._question import QuestionCards
from ._resume import Request
from ._row import Row
from ._send_mode import MODE_HINTS, MODE_LABELS, SendMode, check_send_mode
from ._status import StatusLine
from ._step_stop import StepStop
from ._transcript import Entry, Transcript

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase

REPLACED_NOTE = "This chat no longer follows the agent: a newer one was created for it."


_CHATS = WidgetRegistry()
"""The newest ChatWidget of each agent."""


PARTS = ("transcript", "controls", "keys")
"""The chat's parts drawn inside it (``js/src/chat.js`` reads them), by their key."""


class ChatWidget(SendMixin, FollowAgentMixin, PanelModel):
    """A chat transcript with Send, Stop and Continue, driving one agent.

    One model draws it all (see module doc); ``chat.layout`` is its layout, ``add_class`` its
    classes, as they were when it was an ``ipywidgets.VBox``.

    Args:
        agent: the agent to talk to (``ReActAgent``...).
        user_name: name on the messages the person sends.
        max_rendered: how many recent rows are drawn (new rows add up to half as many again
            before the oldest go, together); older ones behind "Show earlier".
        max_updates_per_second: redraw rate of the streaming message (deltas are coalesced).
        continue_text: what the Continue button sends.
        css: include the kernel's stylesheet (``AgentPanel`` includes it once for both halves).
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
            max_rendered, images=remote_images, callback=self._bridge.callback, bridge=self._bridge
        )
        with inside_host():  # drawn by this chat's page only: no comm of their own
            self.controls = ChatControls(
                self._bridge,
                placeholder=f"Message {agent.name}…",
                send_mode=send_mode,
                modes=[(label, mode) for mode, label in MODE_LABELS.items()],
                hints=[MODE_HINTS[m] for m in MODE_LABELS],
            )
        """The input, buttons, picker, status line and toolbar: one front-end part."""
        self._build_controls()
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
        self._gauge_cost = 0.0
        """Seconds the last context-gauge count took (it spaces the next one)."""
        # Counted once the cell that made the chat has returned, so the rows go to the page
        # first: a panel's first count can load a tokenizer's vocabulary (~150 ms and more).
        self._gauge_handle = self._bridge.later(0.0, self._update_gauge)
        self._sub = agent.subscribe(self._bridge.callback(self._on_event))
        self.detached = False
        """True once a newer ChatWidget for the same agent took over (re-running the cell)."""
        _CHATS.replace(agent, self, REPLACED_NOTE)
        if agent.is_replying:  # created mid-reply (cell re-run): follow and stop that reply
            self._follow_running_reply()
        self.approvals: ApprovalCards | None = None
        """Approval cards of tool calls waiting for a decision (agents with approvals)."""
        if isinstance(agent, ApprovalMethods) or takes_decisions(agent):
            self.approvals = ApprovalCards(
                cast("ApprovalMethods", agent),  # a remote agent has the same decision API
                self.append_widget,
                self.set_status,
                self._bridge,
                insert_row=lambda row, after: self.append_widget(row, after=after),
            )
        self.questions: QuestionCards | None = None
        """Forms of ``ask_user`` questions waiting for answers (agents that can ask)."""
        self._unwatch_policy: Callable[[], None] | None = None
        if isinstance(agent, ApprovalMethods) or takes_decisions(agent):
            asking = cast("ApprovalMethods", agent)
            self.questions = QuestionCards(
                asking, self.append_widget, self.set_status, self._bridge
            )
            policy = asking.permissions
            toolkit = asking.toolkit

            def show_mode() -> None:  # only where there are tools to permit
                self.status.set_permission_mode(policy.mode if toolkit.tools else "")

            show_mode()
            self._unwatch_policy = policy.watch(self._bridge.callback(show_mode))
        self.controls.ready()  # set up (gauge, permission mode...): the page gets them whole
        # Everything drawn so far goes in the chat's opening message (no op batch for it).
        with inside_host():
            view = self.transcript.view
        parts: dict[str, PanelModel] = {
            "transcript": view,
            "controls": self.controls,
            "keys": self.shortcuts,
        }
        state = {"css": page_css(css), **{k: p.view_state for k, p in parts.items()}}
        PanelModel.__init__(self, state, bridge=self._bridge, _dom_classes=("nb-hitl-chat",))
        for key, part in parts.items():
            self.embed(part, key)  # the state holds them already: nothing is sent

    _esm = static_file("chat.js")
    _css = static_file("chat.css")

    # -- public API --------------------------------------------------------------------------
    @property
    def state(self) -> str:  # type: ignore[override]
        """``idle``, ``running``, ``stopping``, ``waiting`` (for you) or ``error`` (the view
        state, what ``PanelModel.state`` is elsewhere, is ``view_state``)."""
        return self.status.state

    def drawn_html(self) -> str:
        """Every part the page inserts as HTML: the rows, the status line and the note."""
        return "\n".join([self.transcript.view.drawn_html(), self.controls.drawn_html()])

    def clear(self) -> bool:
        """Clear the chat and the agent's memory (the Clear button's twin); undoable until the
        next message with ``undo_clear()`` or the row's *Undo clear*."""
        return self.tools.clear()

    def set_limits(self, limits: dict[str, str]) -> None:
        """Keep the controls named in ``limits`` off, each with its reason as its tooltip (what
        a remote agent cannot do): keys are the controls' (``"clear"``, ``"step"``, ``"send"``,
        ``"mode"``, ``"input"``...; ``ChatControls.set_limits``); replaces the limits set before."""
        self.controls.set_limits(limits)

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
        self, widget: w.Widget | Row, key: str | None = None, *, after: str | None = None
    ) -> str:
        """Add a row drawn inside the transcript (an approval card, a note: a ``Row``) or any
        ipywidget, as a transcript row; returns its key.

        An ipywidget is drawn by the notebook's widget manager inside the row (JupyterLab,
        Notebook 7, VS Code); a front end without one (marimo shows anywidgets only) says it
        cannot draw it: there, add a ``Row`` of HTML instead.

        ``after``: the key (a message id) of the row it goes after; default the end.
        """
        default = widget.key if isinstance(widget, Row) else "widget-" + uuid.uuid4().hex[:12]
        key = key or default
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
        """Stop listening to the agent and close the widget (and the parts drawn inside)."""
        self.detach()
        transcript = getattr(self, "transcript", None)  # None: __init__ refused its arguments
        view = transcript._model if transcript is not None else None
        for part in (view, getattr(self, "controls", None), getattr(self, "shortcuts", None)):
            if part is not None:
                part.close()
        super().close()

    @property
    def flushes(self) -> int:
        """How many coalesced redraws of streaming messages happened (for benchmarks)."""
        return self.live.flushes

    @property
    def rows(self) -> list[Any]:
        """The rows currently drawn (oldest first, newest last): ``Row`` (finished rows:
        messages, cards, notes...), ``LiveRow`` (streaming) and widgets."""
        return self.transcript.rows

    # -- controls ----------------------------------------------------------------------------
    def _build_controls(self) -> None:
        """The controls' stand-ins (``chat.input``, ``chat.send_button``...) and what they do."""
        controls = self.controls
        self.status = StatusLine(self._bridge, controls.status)
        self._note = controls.note
        self.input = controls.input
        self.send_button = controls.send_button
        self.stop_button = controls.stop_button
        self.continue_button = controls.continue_button
        self.mode_picker = controls.mode_picker
        self.mode_picker.observe(self._bridge.callback(lambda _c: self._show_mode()), "value")
        self._keyboard()
        self.send_button.on_click(self._bridge.callback(lambda _b: self._send_from_input()))
        self.stop_button.on_click(self._bridge.callback(lambda _b: self.stop()))
        self.continue_button.on_click(self._bridge.callback(lambda _b: self.resume()))
        self.step_stop = StepStop(self.agent, self.status, controls.step_button)
        """The "After step" button (``stop_after_step()``) next to Stop."""
        self.step_stop.button.on_click(self._bridge.callback(lambda _b: self.stop_after_step()))
        self.tools = ChatTools(self, controls)
        """Retry, Clear / Undo clear, Export (the row under the status line)."""
        self.compressions = CompressionRows(self)

    # -- keyboard ----------------------------------------------------------------------------
    def _keyboard(self) -> None:
        """Ctrl/Cmd+Enter sends, Escape stops, Enter in a card's box presses its button."""
        self.send_button.tooltip = "Send (Ctrl+Enter, ⌘+Enter on a Mac)"
        self.stop_button.tooltip = "Stop the reply (Esc anywhere in the panel)"
        self.continue_button.tooltip = (
            f"Continue the interrupted answer: sends what you typed as the instruction, "
            f"or “{self.continue_text}” when the box is empty"
        )
        bindings = [
            {"key": "Enter", "mod": True, "within": ".nb-hitl-input", "action": "send",
             "clear": True},
            {"key": "Escape", "action": "stop", "anywhere": True, "enabled": ".nb-hitl-stop"},
            {"key": "Escape", "shift": True, "action": "stop_after_step", "anywhere": True,
             "enabled": ".nb-hitl-stop-step"},
            *CARD_KEYS,
            {"key": "Enter", "within": ".nb-hitl-question-other", "near": ".nb-hitl-question",
             "click": ".nb-hitl-question-submit"},
        ]  # fmt: skip
        with inside_host():  # drawn by the chat's page (js/src/chat.js): no comm of its own
            self.shortcuts = KeyBindings(
                "nb-hitl-chat",
                bindings,
                self._bridge,
                focus_scope="nb-hitl-panel",
                copy_buttons=".nb-hitl-copy",
                action_buttons=ACTION_BUTTONS,
                stopping_rows=".nb-hitl-live",
                stop_button=".nb-hitl-stop",
                stop_action="stop",
            )
        self.shortcuts.on_action("send", self._send_text)
        self.shortcuts.on_copy(self._copy_text)
        self.shortcuts.on_form_action(CARD_ACTION, self.transcript.card_action)
        self.shortcuts.on_action("stop", lambda _text: self.stop())
        self.shortcuts.on_action("stop_after_step", lambda _text: self.stop_after_step())

    def _send_from_input(self) -> None:
        if self.send(self.input.value) is not None:
            self.input.value = ""

    def _copy_text(self, msg_id: str) -> str | None:
        """The text a long message's Copy button asked for (None: not in the transcript)."""
        entry = self.transcript.get(msg_id)
        return copy_text(entry.msg) if entry is not None and entry.msg is not None else None

    def _send_text(self, text: str) -> None:
        self.input.typed(text)  # what the box held when the key was pressed
        if self.send(text) is not None and self.input.value.strip() == text.strip():
            self.input.value = ""

    def _follow_running_reply(self) -> None:
        self.stop_button.disabled = False
        self.continue_button.disabled = True
        self.status.start_reply()
        self.status.set_detail("following the running reply")


__all__ = ["EMPTY_INPUT_NOTE", "INPUT_GONE_NOTE", "REPLACED_NOTE", "ChatWidget"]
