"""HubPanel: one transcript for a multi-agent discussion (``MsgHub``), Stop, and the pause prompt.

    hub = MsgHub([alice, bob, carol], announcement=Msg("Host", "Topic: ...", "user"))
    panel = nb_hitl.show(hub)          # display it; the cell returns at once
    panel.start(rounds=2)              # the discussion runs as a background task

Every participant's events feed one transcript (the chat's rows, renderer and interrupted
style), each speaker in a colour of its own. Stop interrupts whoever is speaking. When the
pipeline stops at an interrupted reply, the panel asks the person: Retry (the same agent, with
the typed instruction), Skip (the next agent) or Stop; that drives ``pipeline.resume()``. A
``UserAgent`` taking part reads its input from the panel. The memory inspector switches
between participants. Widget callbacks go through a ``LoopBridge`` (see ``_chat.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as w

from nb_hitl._render import CSS, RemoteImages, check_remote_images, copy_text, esc
from nb_hitl.agent import AgentBase, UserAgent
from nb_hitl.pipeline import MsgHub

from .._approval import CARD_KEYS
from .._card import CARD_ACTION
from .._invisible import is_blank
from .._keys import KeyBindings
from .._live import html
from .._look import look
from .._loop import LoopBridge, WidgetRegistry
from .._pacer import comm_pacer, walk
from ._buttons import RunButtons
from ._feed import HubFeed
from ._input import HubInputBar
from ._inspect import InspectorSwitch
from ._pause import PausePrompt
from ._run import REPLACED_NOTE, DiscussionRun
from ._style import HUB_CSS, speakers_html

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


class HubPanel(DiscussionRun, w.VBox):
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
        self._bridge = LoopBridge()
        self._bridge.on_error = self._show_internal_error
        rate = 1.0 / max_updates_per_second
        self.feed = HubFeed(self._bridge, max_rendered, remote_images, rate, self._draw_speakers)
        self.transcript = self.feed.transcript
        self.state = "idle"
        """``idle``, ``running``, ``paused`` (asking the person) or ``waiting`` (a UserAgent)."""
        self._init_run()

        self.speakers = html()
        self.speakers.add_class("nb-hitl-hub-speakers")
        self.pause = PausePrompt(self._bridge, self._chosen)
        self._note = html()
        self.stop_button = w.Button(  # named apart from the pause prompt's End discussion
            description=STOP_LABEL,
            button_style="danger",
            icon="stop",
            disabled=True,
            **look(w.Button),
        )
        self.stop_button.tooltip = "Interrupt whoever is speaking (Esc)"
        self.stop_button.add_class("nb-hitl-hub-stop")
        self.stop_button.on_click(self._bridge.callback(lambda _b: self.stop()))
        self.shortcuts = KeyBindings(
            "nb-hitl-hub",
            [
                {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-input", "action": "send",
                 "clear": True},
                {"key": "Escape", "action": "stop", "anywhere": True,
                 "enabled": ".nb-hitl-hub-stop"},
                {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-instruction",
                 "click": ".nb-hitl-pause-retry"},
                *CARD_KEYS,
            ],
            self._bridge,
            inactive_scope="nb-hitl-hub",
            copy_buttons=".nb-hitl-copy",
            action_buttons=f"[data-nb-hitl-action='{CARD_ACTION}']",  # the cards' buttons
        )  # fmt: skip
        self.runs = RunButtons(self._bridge, self._start_clicked, self._continue_clicked)
        """Start / Next round / Continue (shown while no discussion runs)."""
        self.bar = HubInputBar(self._bridge, [self.stop_button], self._waiting, self._say)
        self.input, self.send_button = self.bar.input, self.bar.send_button
        self.shortcuts.on_action("send", self.bar.send_typed)
        self.shortcuts.on_action("stop", lambda _text: self.stop())
        self.shortcuts.on_copy(self._copy_text)
        self.shortcuts.on_form_action(CARD_ACTION, self.feed.transcript.card_action)
        left = w.VBox(
            [
                self.speakers,
                self.transcript.box,
                self.pause,
                self._note,
                self.runs.box,
                self.bar,
                self.shortcuts,
            ],
            **look(w.VBox),
        )
        left.add_class("nb-hitl-column-main")
        halves: list[w.Widget] = [left]
        self.inspectors: InspectorSwitch | None = None
        """The memory inspector with its participant picker (``None``: ``inspector=False``)."""
        if inspector:
            self.inspectors = InspectorSwitch(self._bridge)
            self.inspectors.add_class("nb-hitl-column-side")
            halves.append(self.inspectors)
        row = w.HBox(halves, **look(w.HBox))
        row.add_class("nb-hitl-columns")  # side by side, or stacked when narrow
        super().__init__(children=[html(CSS + HUB_CSS), row])
        self.add_class("nb-hitl-hub")
        comm_pacer(self._bridge.loop).pace(walk(self))  # many panels' bursts paced (_pacer.py)
        self.detached = False
        """True once a newer panel for the same hub took over (re-running the cell)."""
        self._sync_participants()
        self.feed.preload()
        _HUBS.replace(hub, self, REPLACED_NOTE)

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
        if getattr(self, "_opened_hub", False):
            self.hub.close()
            self._opened_hub = False
        if getattr(self, "inspectors", None) is not None:
            self.inspectors.close()  # type: ignore[union-attr]
        super().close()

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
        self.input.value = ""
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
        self._note.value = f'<span class="nb-hitl-note">{esc(text)}</span>' if text else ""

    def _show_internal_error(self, exc: BaseException) -> None:
        self.feed.error(f"Widget error: {type(exc).__name__}: {exc}")


__all__ = ["HubPanel"]
