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

import asyncio
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from nb_hitl.agent import AgentBase, TerminalInput, UserAgent
from nb_hitl.message import Msg
from nb_hitl.pipeline import FanoutPipeline, MsgHub, SequentialPipeline

from ._hub_feed import HubFeed
from ._hub_input import HubInputBar
from ._hub_inspect import InspectorSwitch
from ._hub_pause import PausePrompt
from ._hub_style import HUB_CSS, speakers_html
from ._invisible import is_blank
from ._keys import KeyBindings
from ._live import html
from ._loop import LoopBridge, WidgetRegistry
from ._render import CSS, RemoteImages, check_remote_images, esc

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._input import WidgetInput
    from ._inspector import MemoryInspector

Pipeline = SequentialPipeline | FanoutPipeline
ACTIONS = ("retry", "skip", "stop")
ENDINGS = {"stopped": "Stopped.", "finished": "Finished.", "error": "Ended with an error."}
REPLACED_NOTE = (
    "This panel no longer follows the discussion: a newer panel was created for the same hub "
    "(its run, if any, was stopped). Use the newer one."
)
_HUBS = WidgetRegistry()
"""The newest HubPanel of each hub."""


class HubPanel(w.VBox):
    """The transcript of every participant of a ``MsgHub``, Stop, the pause prompt, memory.

    Args:
        hub: the ``MsgHub`` (the panel enters it on the first run unless it is open already).
        user_name: name on the instructions the person types in the pause prompt.
        max_rendered: how many recent rows are drawn; older ones behind "Show earlier".
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
        self.outcome = ""
        """How the last run ended: ``finished``, ``stopped`` or ``error``."""
        self.pipeline: Pipeline | None = None
        """The pipeline of the current (or last) run."""
        self.result: Any = None
        """What the last run returned (the pipeline's output)."""
        self.error: BaseException | None = None
        """The exception that ended the last run, if one did."""
        self._runner: asyncio.Task[Any] | None = None
        self._active = False
        self._decision: asyncio.Future[tuple[str, str | Msg | None]] | None = None
        self._opened_hub = False

        self.speakers = html()
        self.speakers.add_class("nb-hitl-hub-speakers")
        self.pause = PausePrompt(self._bridge, self._chosen)
        self._note = html()
        self.stop_button = w.Button(
            description="Stop", button_style="danger", icon="stop", disabled=True
        )
        self.stop_button.tooltip = "Interrupt whoever is speaking (Esc)"
        self.stop_button.add_class("nb-hitl-hub-stop")
        self.stop_button.on_click(self._bridge.callback(lambda _b: self.stop()))
        self.shortcuts = KeyBindings(
            "nb-hitl-hub",
            [
                {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-input", "action": "send",
                 "clear": True},
                {"key": "Escape", "action": "stop"},
                {"key": "Enter", "mod": True, "within": ".nb-hitl-hub-instruction",
                 "click": ".nb-hitl-pause-retry"},
            ],
            self._bridge,
            inactive_scope="nb-hitl-hub",
        )  # fmt: skip
        self.bar = HubInputBar(self._bridge, [self.stop_button], self._waiting, self._say)
        self.input, self.send_button = self.bar.input, self.bar.send_button
        self.shortcuts.on_action("send", self.bar.send_typed)
        self.shortcuts.on_action("stop", lambda _text: self.stop())
        left = w.VBox(
            [
                self.speakers,
                self.transcript.earlier,
                self.transcript.box,
                self.pause,
                self._note,
                self.bar,
                self.shortcuts,
            ],
            layout=w.Layout(flex="3 1 0%", min_width="320px"),
        )
        halves: list[w.Widget] = [left]
        self.inspectors: InspectorSwitch | None = None
        """The memory inspector with its participant picker (``None``: ``inspector=False``)."""
        if inspector:
            self.inspectors = InspectorSwitch(self._bridge)
            self.inspectors.layout = w.Layout(flex="2 1 0%", min_width="280px")
            halves.append(self.inspectors)
        row = w.HBox(
            halves, layout=w.Layout(width="100%", align_items="flex-start", flex_flow="row wrap")
        )
        super().__init__(children=[html(CSS + HUB_CSS), row])
        self.add_class("nb-hitl-hub")
        self.detached = False
        """True once a newer panel for the same hub took over (re-running the cell)."""
        self._sync_participants()
        self.feed.preload()
        _HUBS.replace(hub, self, REPLACED_NOTE)

    # -- public API ----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while a run (started with ``start`` or ``run``) is going on, pauses included."""
        return self._active

    @property
    def paused(self) -> bool:
        """True while the panel asks the person what to do after an interrupt."""
        return self._decision is not None and not self._decision.done()

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

    def start(
        self,
        pipeline: Pipeline | Sequence[AgentBase] | None = None,
        msg: Msg | str | None = None,
        *,
        rounds: int = 1,
    ) -> asyncio.Task[Any]:
        """Run a discussion as a background task and return it (the cell returns at once).

        Args:
            pipeline: a ``SequentialPipeline`` or ``FanoutPipeline``, or a list of agents (run
                one after the other); default: every participant in turn.
            msg: the first speaker's input (a string becomes a message from ``user_name``).
            rounds: with a list of agents (or the default), how many times round the table.
        """
        if self.detached:
            raise RuntimeError(REPLACED_NOTE)
        if self.running:
            raise RuntimeError(
                "A discussion is already running in this panel: press Stop (or panel.stop()), "
                "answer its pause prompt, or `await panel.wait()` before starting another."
            )
        pipe = self._make_pipeline(pipeline, rounds)
        first = Msg(self.user_name, msg, "user") if isinstance(msg, str) else msg
        if first is not None and not isinstance(first, Msg):
            raise TypeError(f"msg must be a Msg, a str or None, got {type(first).__name__}.")
        self._sync_participants()
        self.pipeline, self.result, self.error, self.outcome = pipe, None, None, ""
        self.feed.error_seen = False
        self._note.value = ""
        self._active = True
        self._set_state("running")
        self._runner = self._bridge.spawn(self._drive(pipe, first), name="nb_hitl-hub-runner")
        return self._runner

    async def run(
        self,
        pipeline: Pipeline | Sequence[AgentBase] | None = None,
        msg: Msg | str | None = None,
        *,
        rounds: int = 1,
    ) -> Any:
        """``start()`` and wait for the end; returns the pipeline's result (raises its error).

        In a notebook prefer ``start()``: on ipykernel before 7.4 no button click reaches the
        kernel while a cell awaits, so the pause prompt could not be answered.
        """
        self.start(pipeline, msg, rounds=rounds)
        return await self.wait()

    async def wait(self) -> Any:
        """Wait for the current run to end; returns its result (raises its error)."""
        if self._runner is not None:
            await asyncio.wait({self._runner})
        if self.error is not None:
            raise self.error
        return self.result

    def stop(self) -> bool:
        """Interrupt whoever is speaking (the Stop button's twin); ``False`` if no one is."""
        stopped = self.feed.stop()
        if stopped:
            self.stop_button.description = "Stopping…"
        return stopped

    def resume(self, action: str = "retry", instruction: str | Msg | None = None) -> None:
        """Answer the pause prompt (its buttons' twin): ``retry``, ``skip`` or ``stop``.

        Args:
            action: ``retry`` asks the interrupted agent again, ``skip`` goes on with the next
                one, ``stop`` ends the discussion.
            instruction: what the agent asked next is told (blank: nothing is added).
        """
        if action not in ACTIONS:
            raise ValueError(f"resume() takes 'retry', 'skip' or 'stop', got {action!r}.")
        if instruction is not None and not isinstance(instruction, (str, Msg)):
            raise TypeError("instruction must be a str, a Msg or None.")
        if not self.paused:
            raise RuntimeError(
                f"Nothing to resume: the panel is {self.state}, not paused. resume() answers "
                "the prompt shown after Stop interrupted a speaker."
            )
        assert self._decision is not None
        self._decision.set_result((action, instruction))

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
        for button in (self.stop_button, self.send_button):
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
                if isinstance(agent.input_source, TerminalInput) or HubInputBar.made_it(
                    agent.input_source
                ):
                    agent.input_source = self.input_source()  # a notebook has no terminal
        if self.inspectors is not None:
            self.inspectors.set_agents(self.agents)
        self._draw_speakers()

    def _make_pipeline(self, pipeline: Any, rounds: int) -> Pipeline:
        if not self.hub.participants:
            raise ValueError("The hub has no participants left: hub.add(agent) first.")
        if isinstance(pipeline, (SequentialPipeline, FanoutPipeline)):
            if rounds != 1:
                raise ValueError("rounds= goes with a list of agents, not with a pipeline.")
            agents = pipeline.agents
        else:
            if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
                raise ValueError(f"rounds must be a whole number of at least 1, got {rounds!r}.")
            agents = list(self.hub.participants if pipeline is None else pipeline)
            if not agents:
                raise ValueError("No agents to run: pass a pipeline or a list of agents.")
        strangers = [a for a in agents if a not in self.hub.participants]
        if strangers:
            who = ", ".join(getattr(a, "name", repr(a)) for a in strangers)
            raise ValueError(f"{who} not in the hub: hub.add(...) first, so everyone hears them.")
        if isinstance(pipeline, (SequentialPipeline, FanoutPipeline)):
            return pipeline
        return SequentialPipeline(agents * rounds)

    # -- running ---------------------------------------------------------------------------------
    async def _drive(self, pipe: Pipeline, msg: Msg | None) -> None:
        try:
            if not self.hub.is_open:
                announced = self.hub.announcement
                for m in announced if isinstance(announced, list) else [announced]:
                    if isinstance(m, Msg):
                        self.feed.add(m)  # drawn before the first message, as observed
                await self.hub.__aenter__()
                self._opened_hub = True
            if msg is not None:
                self.feed.add(msg)
            result = await pipe(msg)
            while pipe.paused is not None:
                action, instruction = await self._ask(pipe)
                given = self._instruction(instruction) if action != "stop" else None
                if given is not None:
                    self.feed.add(given)
                self.feed.note(self._choice_text(pipe, action))
                self._set_state("running")
                result = await pipe.resume(action, given)  # type: ignore[arg-type]
                if action == "stop":
                    self.outcome = "stopped"
            self.result = result
            self.outcome = self.outcome or "finished"
        except Exception as exc:  # shown; the panel stays usable for the next run
            self.error, self.outcome = exc, "error"
            await asyncio.sleep(0)  # the agent's ErrorOccurred event may draw it first
            if not self.feed.error_seen:
                self.feed.error(f"{type(exc).__name__}: {exc}")
        finally:
            self.pause.hide()
            self._decision = None
            self._active = False
            self._set_state("idle")

    async def _ask(self, pipe: Pipeline) -> tuple[str, str | Msg | None]:
        paused = pipe.paused
        assert paused is not None
        names = [pipe.agents[i].name for i in paused.positions]
        nxt = None
        if isinstance(pipe, SequentialPipeline) and paused.positions[0] + 1 < len(pipe.agents):
            nxt = pipe.agents[paused.positions[0] + 1].name
        self._decision = self._bridge.loop.create_future()
        self.pause.show(names, nxt)
        self._set_state("paused")
        try:
            return await self._decision
        finally:
            self.pause.hide()

    def _instruction(self, given: str | Msg | None) -> Msg | None:
        if isinstance(given, Msg):
            return given
        if given is None or is_blank(given):
            return None
        return Msg(self.user_name, given, "user")

    @staticmethod
    def _choice_text(pipe: Pipeline, action: str) -> str:
        paused = pipe.paused
        who = ", ".join(pipe.agents[i].name for i in paused.positions) if paused else "?"
        return {
            "retry": f"You asked {who} to try again.",
            "skip": f"You skipped {who}.",
            "stop": "You stopped the discussion.",
        }[action]

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
        elif self.state == "waiting":
            now = "Waiting for you: type your message below and press Send."
        elif self.state == "paused":
            now = "Paused: choose Retry, Skip or Stop below."
        elif self.speaking:
            verb = "is" if len(self.speaking) == 1 else "are"
            now = f"{', '.join(self.speaking)} {verb} speaking…"
        elif self.running:
            now = "Running…"
        else:
            now = ENDINGS.get(self.outcome, "Idle: start the discussion with panel.start().")
        names = [a.name for a in self.agents]
        self.speakers.value = speakers_html(names, self.feed.classes, self.speaking, now)
        self.stop_button.disabled = not self.speaking or bool(stopping)
        if not stopping:
            self.stop_button.description = "Stop"

    def _say(self, text: str) -> None:
        self._note.value = f'<span class="nb-hitl-note">{esc(text)}</span>' if text else ""

    def _show_internal_error(self, exc: BaseException) -> None:
        self.feed.error(f"Widget error: {type(exc).__name__}: {exc}")


__all__ = ["HubPanel"]
