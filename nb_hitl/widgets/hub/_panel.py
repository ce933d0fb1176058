"""HubPanel: one transcript for a multi-agent discussion (``MsgHub``), Stop, and the pause prompt.

    hub = MsgHub([alice, bob, carol], announcement=Msg("Host", "Topic: ...", "user"))
    panel = nb_hitl.show(hub)          # display it; the cell returns at once
    panel.start(rounds=2)              # the discussion runs as a background task

Every participant's events feed one transcript (the chat's rows, renderer and interrupted
style), each speaker in a colour of its own. Stop interrupts whoever is speaking. When the
pipeline stops at an interrupted reply, the panel asks the person: Retry (the same agent, with
the typed instruction), Skip (the next agent) or Stop; that drives ``pipeline.resume()``. A
``UserAgent`` taking part reads its input from the panel. The memory inspector switches
between participants.

The panel is one model (``PanelModel``): its front end (``js/src/hub.js``) draws the speakers,
the transcript's rows (part ``rows``, keyed ops: ``_feed.py``), the pause prompt, the buttons,
the input and the inspector of the participant picked (drawn inside: ``PanelModel.embed``).
A click, a key or a pick arrives as an action (``{t: "action", name, args}``) and runs on the
kernel loop the panel was made on, whatever thread delivered it (``LoopBridge``); code and
tests press the same ``Control`` objects (``panel.stop_button.click()``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from nb_hitl._render import RemoteImages, check_remote_images, copy_text, esc
from nb_hitl.agent import AgentBase, UserAgent
from nb_hitl.pipeline import MsgHub

from .._approval import CARD_KEYS
from .._card import CARD_ACTION
from .._invisible import is_blank
from .._loop import LoopBridge, WidgetRegistry
from .._model import PanelModel, apply_op, page_css, static_file
from .._row_deltas import LIVE, apply_live
from .._transcript_view import row_html
from ._buttons import Control, RunButtons
from ._feed import EXPAND, HubFeed
from ._input import HubInputBar
from ._inspect import InspectorSwitch
from ._pause import PausePrompt
from ._run import REPLACED_NOTE, DiscussionRun
from ._style import chips_html, speakers_html

if TYPE_CHECKING:
    from .._input import WidgetInput
    from .._inspector import MemoryInspector

STOP_LABEL = "Stop speaker"
"""The panel's Stop: it interrupts whoever is speaking (the pause prompt's ends the run)."""
ENDINGS = {
    "stopped": "Stopped. Continue goes on from there; Next round starts another round.",
    "finished": "Finished. Next round lets everyone speak once more.",
    "error": "Ended with an error. Next round tries again.",
}
ERROR_CONTINUE = (
    "Ended with an error. Continue asks that speaker again, then the rest; Next round starts "
    "another round."
)
_HUBS = WidgetRegistry()
"""The newest HubPanel of each hub."""
KEYS: list[dict[str, Any]] = [
    {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-input", "action": "send",
     "clear": True},
    {"key": "Escape", "action": "stop", "anywhere": True, "enabled": ".nb-hitl-hub-stop"},
    {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-instruction",
     "click": ".nb-hitl-pause-retry"},
    *CARD_KEYS,
]  # fmt: skip
"""The hub's keyboard shortcuts (``js/src/hub.js`` reads them; ``chat/keys.js`` matches)."""


class HubKeys:
    """The hub's keyboard shortcuts as code presses them (``press``), and their bindings.

    The page's keys arrive as the panel's actions (``send``, ``stop``), the same path.
    """

    def __init__(self, bindings: list[dict[str, Any]]) -> None:
        self.bindings = [dict(b) for b in bindings]
        self.scope = "nb-hitl-hub"
        self.focus_scope = "nb-hitl-hub"
        self._actions: dict[str, Callable[[str], Any]] = {}

    def on_action(self, name: str, callback: Callable[[str], Any]) -> None:
        """Run ``callback(text)`` when the shortcut ``name`` is pressed."""
        self._actions[name] = callback

    def press(self, name: str, text: str = "", form: Mapping[str, Any] | None = None) -> None:
        """Press the shortcut ``name`` (``text``: what the box held)."""
        callback = self._actions.get(name)
        if callback is not None:
            callback(text)


class HubPanel(DiscussionRun, PanelModel):
    """The transcript of every participant of a ``MsgHub``, Stop, the pause prompt, memory.

    Args:
        hub: the ``MsgHub`` (the panel enters it on the first run unless it is open already).
        user_name: name on the instructions the person types in the pause prompt.
        max_rendered: how many recent rows are drawn (new rows add up to half as many again
            before the oldest go, together); older ones behind "Show earlier".
        max_updates_per_second: redraw rate of a streaming message (deltas are coalesced).
        inspector: show the memory inspector (with a participant picker).
        remote_images: the chat's policy for images from URLs (see ``ChatWidget``).
    """

    def __init__(
        self,
        hub: MsgHub,
        *,
        user_name: str = "User",
        max_rendered: int = 80,
        max_updates_per_second: float = 20.0,
        inspector: bool = True,
        remote_images: RemoteImages = "link",
    ) -> None:
        if not isinstance(hub, MsgHub):
            raise TypeError(
                f"HubPanel shows a MsgHub, got {type(hub).__name__}; e.g. "
                "HubPanel(MsgHub([alice, bob])). For one agent use nb_hitl.show(agent)."
            )
        if not hub.participants:
            raise ValueError(
                "This MsgHub has no participants: create it with agents, e.g. "
                "MsgHub([alice, bob, carol]), or hub.add(agent) before showing it."
            )
        check_remote_images(remote_images)
        if max_rendered < 1 or max_updates_per_second <= 0:
            raise ValueError("max_rendered must be at least 1 and max_updates_per_second > 0.")
        self.hub = hub
        self.user_name = user_name
        self._drawing = 0
        self._ready = False
        self._run_state = "idle"
        self._snapshot_due: asyncio.TimerHandle | None = None
        bridge = LoopBridge()
        bridge.on_error = self._show_internal_error
        super().__init__({"css": page_css(True)}, bridge=bridge)
        self._bridge = bridge
        self.add_class("nb-hitl-hub")
        rate = 1.0 / max_updates_per_second
        self.feed = HubFeed(
            bridge, max_rendered, remote_images, rate, self._draw_speakers, self._send_ops
        )
        self.transcript = self.feed.transcript
        self.transcript.earlier.on_click(self.transcript.show_earlier)
        self.transcript.earlier.on_change = self._draw
        self.state = "idle"
        """``idle``, ``running``, ``paused`` (asking the person) or ``waiting`` (a UserAgent)."""
        self._init_run()
        self.speakers = Control()
        """``value``: the participants' chips and the status line (HTML, escaped)."""
        self._note = Control()
        """``value``: a note to the person (HTML, escaped)."""
        self._now = ""
        self._chips = ""
        self.pause = PausePrompt(self._chosen, self._draw)
        self.stop_button = Control(  # named apart from the pause prompt's End discussion
            STOP_LABEL,
            self.stop,
            tooltip="Interrupt whoever is speaking (Esc)",
            disabled=True,
        )
        self.runs = RunButtons(self._start_clicked, self._continue_clicked)
        """Start / Next round / Continue (shown while no discussion runs)."""
        self.bar = HubInputBar(self._waiting, self._say, self._draw)
        self.input, self.send_button = self.bar.input, self.bar.send_button
        for control in (self.speakers, self._note, self.stop_button, *self.runs.buttons):
            control.on_change = self._draw
        self.shortcuts = HubKeys(KEYS)
        """The keyboard shortcuts (drawn by the front end; ``press`` is a key's twin)."""
        self.shortcuts.on_action("send", self.bar.send_typed)
        self.shortcuts.on_action("stop", lambda _text: self.stop())
        self.inspectors: InspectorSwitch | None = None
        """The memory inspector with its participant picker (``None``: ``inspector=False``)."""
        if inspector:
            self.inspectors = InspectorSwitch(self, self._draw)
        self._actions_from_page()
        self.detached = False
        """True once a newer panel for the same hub took over (re-running the cell)."""
        self._ready = True
        with self._batch():
            self._sync_participants()
            self.feed.preload()
        _HUBS.replace(hub, self, REPLACED_NOTE)

    _esm = static_file("hub.js")
    _css = static_file("hub.css")

    # -- the model ---------------------------------------------------------------------------
    @property  # type: ignore[override]
    def state(self) -> str:  # the run's state; the view state is ``view_state``
        """``idle``, ``running``, ``paused`` (asking the person) or ``waiting`` (a UserAgent)."""
        return self._run_state

    @state.setter
    def state(self, value: str) -> None:
        self._run_state = value

    @property
    def view_state(self) -> dict[str, Any]:
        """A copy of the view state, as the page holds it after the last batch."""
        return PanelModel.state.fget(self)  # type: ignore[attr-defined]

    def drawn_html(self) -> str:
        """Every part the page inserts as HTML, the rows' included (tests, exports)."""
        rows = [row_html(item) for item in self._state.get("rows") or []]
        return "\n".join([PanelModel.drawn_html(self), *rows])

    def _apply_to(self, state: dict[str, Any], op: Mapping[str, Any]) -> None:
        if op.get("op") == LIVE:
            apply_live(state, op)  # a streaming row (the chat's transcript speaks it too)
        else:
            apply_op(state, op, self._embedded)  # the inspector's batches: ``child`` ops

    def _send_ops(self, ops: list[dict[str, Any]]) -> None:
        self.apply_ops(ops)

    SNAPSHOT_DELAY = 0.25
    """Seconds after a batch before the ``snapshot`` trait takes the state (see ``apply_ops``)."""

    _fresh_ops = True
    """Unlike ``PanelModel.apply_ops`` the ops are not copied (the hub builds each op afresh
    and replaces parts of its state, never changes them in place)."""

    def _keep_snapshot(self) -> None:
        """The ``snapshot`` trait takes the state once the batches pause (``SNAPSHOT_DELAY``),
        not after each one: copying and comparing the whole state (every row drawn, the
        inspector) for each batch was most of the kernel's time between Stop and "Paused". A
        view made meanwhile starts from the older snapshot and asks for the current one
        (``{t: "sync"}``)."""
        if self._snapshot_due is None:
            self._snapshot_due = self._bridge.later(self.SNAPSHOT_DELAY, self._settle)

    def _settle(self) -> None:
        self._snapshot_due = None
        self._set_unsent(self._snapshot())  # set, not sent: no JSON round trip of the state

    def _actions_from_page(self) -> None:
        def typed(handler: Callable[[], None]) -> Callable[..., None]:
            def run(text: Any = "", **_: Any) -> None:
                self.input.value = text if isinstance(text, str) else ""
                handler()

            return run

        self.on_action("start", typed(self.runs.start_button.click))
        self.on_action("next", typed(self.runs.next_button.click))
        self.on_action("continue", typed(self.runs.continue_button.click))
        self.on_action("stop", lambda **_: self.stop_button.click())
        self.on_action("send", lambda text="", **_: self.shortcuts.press("send", str(text)))
        self.on_action(
            "pause",
            lambda choice="", text="", **_: self.pause.choose(str(choice), str(text or "")),
        )
        self.on_action("earlier", lambda **_: self.transcript.earlier.click())
        self.on_action(
            CARD_ACTION,
            lambda text="", form=None, **_: self.transcript.card_action(
                str(text), form if isinstance(form, dict) else {}
            ),
        )
        self.on_action(EXPAND, lambda text="", **_: self.transcript.expand(str(text)))
        self.on_action("copy", self._answer_copy)
        if self.inspectors is not None:
            inspectors = self.inspectors

            def pick(index: Any = None, **_: Any) -> None:
                if isinstance(index, int) and not isinstance(index, bool):
                    inspectors.picker.value = index

            self.on_action("pick", pick)

    def _answer_copy(self, text: Any = "", **_: Any) -> None:
        copied = self._copy_text(str(text))
        self._send_msg({"t": "copy", "id": str(text), "text": copied})

    @contextlib.contextmanager
    def _batch(self) -> Iterator[None]:
        """Draw once, at the end, whatever changes inside."""
        self._drawing += 1
        try:
            yield
        finally:
            self._drawing -= 1
            self._draw()

    def _draw(self) -> None:
        """Send the parts of the view that changed (one batch)."""
        if self._drawing or not self._ready:
            return
        controls: dict[str, Any] = {
            "now": self._now,
            "stop": self.stop_button.drawn(),
            "send": self.send_button.drawn(),
            "input": {
                "value": self.input.value,
                "placeholder": self.input.placeholder,
                "cleared": self.bar.cleared,
            },
            "start": self.runs.start_button.drawn(),
            "next": self.runs.next_button.drawn(),
            "continue": self.runs.continue_button.drawn(),
            "earlier": self.transcript.earlier.drawn(),
            "picker": self.inspectors.drawn() if self.inspectors is not None else None,
            "keys": self.shortcuts.bindings,
            "live": not self.detached,
        }
        self.set_view(
            speakers=self._chips,
            pause=self.pause.drawn(),
            note=self._note.value,
            controls=controls,
        )

    # -- public API ----------------------------------------------------------------------------
    @property
    def agents(self) -> list[AgentBase]:
        """Every participant the panel follows, in the order it first saw them."""
        return self.feed.agents

    @property
    def speaking(self) -> list[str]:
        """Names of the participants replying right now (the "speaking" indicator)."""
        return self.feed.speaking

    def speaker_class(self, name: str) -> str:
        """The colour class of participant ``name`` (``""`` for anyone else, e.g. the user)."""
        return self.feed.speaker_class(name)

    def colour_of(self, name: str) -> str | None:
        """The colour (``#rrggbb``) of participant ``name``, stable for the panel's life."""
        return self.feed.colour_of(name)

    def stop(self) -> bool:
        """Interrupt whoever is speaking (the Stop button's twin); ``False`` if no one is."""
        with self._batch():  # the rows' interrupted style goes first, in a batch of its own
            stopped = self.feed.stop()
            if stopped:
                self.stop_button.description = "Stopping…"
        return stopped

    def send(self, text: str) -> bool:
        """Give ``text`` to the ``UserAgent`` waiting for the person (the Send button's twin)."""
        return self.bar.send(text)

    def input_source(self) -> WidgetInput:
        """The input source of a ``UserAgent`` that speaks for the person in this panel.

        Participants that are ``UserAgent``s reading the terminal get it automatically.
        """
        return self.bar.source()

    @property
    def inspector(self) -> MemoryInspector | None:
        """The memory inspector shown (of the participant picked), or ``None``."""
        return self.inspectors.inspector if self.inspectors is not None else None

    def inspect(self, agent: AgentBase | str | int) -> MemoryInspector:
        """Show the memory of ``agent`` (the agent, its name, or its index in ``agents``)."""
        target = self._find(agent)
        if self.inspectors is None:
            raise RuntimeError("This panel was created with inspector=False.")
        return self.inspectors.show(target)

    def detach(self, reason: str = "") -> None:
        """Stop following the hub: no more events, its run (if any) ends, buttons off.

        A newer panel for the same hub detaches the older one, so re-running the cell leaves
        one live panel and one discussion, not two fighting over the same agents.
        """
        self.feed.close()
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()  # the speaking agent is interrupted by the cancel
        self.detached = True
        self.feed.speaking.clear()
        self.feed.stopping.clear()
        with self._batch():
            self._draw_speakers()
            self.pause.hide()
            for button in (self.stop_button, self.send_button, *self.runs.buttons):
                button.disabled = True
            if reason:
                self._say(reason)

    def close(self) -> None:
        """Stop following the agents, end a run, leave the hub if the panel entered it."""
        # getattr: ipywidgets also closes a widget whose __init__ raised (bad input)
        feed = getattr(self, "feed", None)
        if feed is not None:
            feed.close()
        runner = getattr(self, "_runner", None)
        if runner is not None and not runner.done():
            runner.cancel()
        due = getattr(self, "_snapshot_due", None)
        if due is not None:
            due.cancel()
            self._settle()  # the last state, for the notebook's saved widget state
        if getattr(self, "_opened_hub", False):
            self.hub.close()
            self._opened_hub = False
        if getattr(self, "inspectors", None) is not None:
            self.inspectors.close()  # type: ignore[union-attr]
        PanelModel.close(self)

    # -- participants ----------------------------------------------------------------------------
    def _find(self, agent: AgentBase | str | int) -> AgentBase:
        if isinstance(agent, int) and 0 <= agent < len(self.agents):
            return self.agents[agent]
        for a in self.agents:
            if a is agent or a.name == agent:
                return a
        names = ", ".join(a.name for a in self.agents)
        raise ValueError(f"{agent!r} is not a participant of this panel (it has: {names}).")

    def _sync_participants(self) -> None:
        """Follow participants added to the hub since (colours are kept for the panel's life)."""
        for agent in self.hub.participants:
            if self.feed.follow(agent) and isinstance(agent, UserAgent):
                if agent.reads_terminal or HubInputBar.made_it(agent.input_source):
                    agent.input_source = self.input_source()  # a notebook has no terminal
        if self.inspectors is not None:
            self.inspectors.set_agents(self.agents)
        self._draw_speakers()

    def _chosen(self, action: str, text: str) -> None:
        try:
            self.resume(action, text)
        except RuntimeError as exc:
            self._say(str(exc))

    def _waiting(self, waiting: bool) -> None:
        if waiting:
            self._set_state("waiting")
        elif self.state == "waiting":
            self._set_state("running" if self.running else "idle")

    # -- drawing ---------------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        self.state = state
        self._draw_speakers()

    def _draw_speakers(self) -> None:
        with self._batch():
            self._speakers_now()

    def _speakers_now(self) -> None:
        stopping = self.feed.stopping
        if self.detached:
            now = "No longer live: a newer panel for this hub took over."
        elif stopping:
            now = f"Stopping {', '.join(sorted(stopping))}…"
        elif self.feed.approving:
            who = "; ".join(f"{n}: {d}" for n, d in self.feed.approving.items())
            now = f"Waiting for your approval ({who}): see the card below."
        elif self.state == "waiting":
            now = "Waiting for you: type your message below and press Send."
        elif self.state == "paused":
            now = "Paused: choose Retry, Skip or End discussion below."
        elif self.speaking:
            verb = "is" if len(self.speaking) == 1 else "are"
            now = f"{', '.join(self.speaking)} {verb} speaking…"
        elif self.running:
            now = "Running…"
        else:
            now = ENDINGS.get(self.outcome, "Idle: press Start (or panel.start()) to begin.")
            if self.outcome == "error" and self.can_continue:
                now = ERROR_CONTINUE
        names = [a.name for a in self.agents]
        self.speakers.value = speakers_html(names, self.feed.classes, self.speaking, now)
        self._chips = chips_html(names, self.feed.classes, self.speaking)
        self._now = now
        self.stop_button.disabled = not self.speaking or bool(stopping)
        if not stopping:
            self.stop_button.description = STOP_LABEL
        self.runs.show(
            running=self.running,
            ran=bool(self.outcome),
            can_continue=self.can_continue,
            live=not self.detached,
        )

    def _copy_text(self, msg_id: str) -> str | None:
        """The text a long message's Copy button asked for (None: not in the transcript)."""
        entry = self.transcript.get(msg_id)
        return copy_text(entry.msg) if entry is not None and entry.msg is not None else None

    def _typed(self) -> str | None:
        """What is typed in the box (taken out of it), or None."""
        text = self.input.value
        if is_blank(text):
            return None
        self.bar.clear()
        return str(text)

    def _start_clicked(self) -> None:
        try:
            self.next_round(self._typed())
        except (RuntimeError, ValueError) as exc:
            self._say(str(exc))

    def _continue_clicked(self) -> None:
        try:
            self.continue_run(self._typed())
        except (RuntimeError, ValueError) as exc:
            self._say(str(exc))

    def _say(self, text: str) -> None:
        self._note.value = (
            f'<span class="nb-hitl-note" role="status">{esc(text)}</span>' if text else ""
        )

    def _show_internal_error(self, exc: BaseException) -> None:
        self.feed.error(f"Widget error: {type(exc).__name__}: {exc}")


__all__ = ["HubPanel"]
