"""Running a discussion in the hub panel: the pipeline as a background task, and its pauses.

``start()`` runs a pipeline on the panel's loop; when it stops at an interrupted reply the
pause prompt asks the person, and the choice (Retry with an instruction, Skip, Stop) goes to
``pipeline.resume()``; that repeats until the pipeline ends. ``HubPanel`` mixes this in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nb_hitl.agent import AgentBase
from nb_hitl.message import Msg
from nb_hitl.pipeline import FanoutPipeline, MsgHub, SequentialPipeline

from .._invisible import is_blank

if TYPE_CHECKING:
    import ipywidgets as w

    from .._loop import LoopBridge
    from ._feed import HubFeed
    from ._pause import PausePrompt

Pipeline = SequentialPipeline | FanoutPipeline
ACTIONS = ("retry", "skip", "stop")
REPLACED_NOTE = (
    "This panel no longer follows the discussion: a newer panel was created for the same hub "
    "(its run, if any, was stopped). Use the newer one."
)


class DiscussionRun:
    """``start`` / ``run`` / ``wait`` / ``resume`` of ``HubPanel`` (a mixin: it uses the
    panel's hub, feed, pause prompt and loop bridge)."""

    hub: MsgHub
    feed: HubFeed
    pause: PausePrompt
    user_name: str
    detached: bool
    state: str
    _bridge: LoopBridge
    _note: w.HTML

    def _init_run(self) -> None:
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
        self._next: str | None = None
        self._round: Pipeline | list[AgentBase] | None = None
        """What one more round runs: the last run's pipeline, or its agents once each."""
        self._stopped_at: tuple[Pipeline, list[int]] | None = None
        """Where the person chose Stop: the pipeline and the paused positions."""

    def _set_state(self, state: str) -> None:
        raise NotImplementedError

    def _sync_participants(self) -> None:
        raise NotImplementedError

    @property
    def running(self) -> bool:
        """True while a run (started with ``start`` or ``run``) is going on, pauses included."""
        return self._active

    @property
    def paused(self) -> bool:
        """True while the panel asks the person what to do after an interrupt."""
        return self._decision is not None and not self._decision.done()

    def start(
        self,
        pipeline: Pipeline | Sequence[AgentBase] | None = None,
        msg: Msg | str | None = None,
        *,
        rounds: int = 1,
    ) -> None:
        """Run a discussion as a background task (the cell returns at once, with no output).

        ``await panel.wait()`` waits for its end and gives the pipeline's result.

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
        if isinstance(pipeline, (SequentialPipeline, FanoutPipeline)):
            self._round = pipeline
        else:
            self._round = list(self.hub.participants if pipeline is None else pipeline)
        self._launch(pipe, first)

    def next_round(self, msg: Msg | str | None = None) -> None:
        """One more round (the *Next round* button): the last run's pipeline again, or its
        speakers once each; ``msg`` (e.g. what is typed in the box) goes first."""
        self.start(self._round, msg)

    def continue_run(self, msg: Msg | str | None = None) -> None:
        """Go on where the person chose Stop, or where a speaker's model failed (the
        *Continue* button): that speaker answers again (told ``msg``, if given), then everyone
        after them in that run."""
        if self._stopped_at is None:
            raise RuntimeError(
                "Nothing to continue: Continue goes on after you chose Stop in the pause "
                "prompt, or after a speaker's error. Use next_round() (or start()) for another "
                "round."
            )
        pipe, positions = self._stopped_at
        rest: Pipeline
        if isinstance(pipe, SequentialPipeline):
            rest = SequentialPipeline(pipe.agents[positions[0] :])
        else:
            rest = FanoutPipeline([pipe.agents[i] for i in positions])
        self.start(rest, msg)

    @property
    def can_continue(self) -> bool:
        """Whether ``continue_run()`` has a stopped discussion to go on with."""
        return self._stopped_at is not None and not self.running

    def _launch(self, pipe: Pipeline, first: Msg | None) -> None:
        self._stopped_at = None
        self._sync_participants()
        self.pipeline, self.result, self.error, self.outcome = pipe, None, None, ""
        self.feed.error_seen = False
        self.feed.failed = []
        self._note.value = ""
        self._active = True
        self._set_state("running")
        self._runner = self._bridge.spawn(self._drive(pipe, first), name="nb_hitl-hub-runner")

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
                # Only Retry, and Skip to a next speaker, pass the instruction on to anyone.
                heard = action == "retry" or (action == "skip" and self._next is not None)
                given = self._instruction(instruction) if heard else None
                if given is not None:
                    self.feed.add(given)
                self.feed.note(self._choice_text(pipe, action))
                self._set_state("running")
                if action == "stop" and pipe.paused is not None:
                    self._stopped_at = (pipe, list(pipe.paused.positions))  # for Continue
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
            self._stopped_at = self._failed_at(pipe)  # Continue asks them again
        finally:
            self.pause.hide()
            self._decision = None
            self._active = False
            self._set_state("idle")

    def _failed_at(self, pipe: Pipeline) -> tuple[Pipeline, list[int]] | None:
        """Where Continue goes on after an error: the speaker whose model failed (the first
        of them, in a sequence), then everyone after them; None if no speaker failed."""
        positions = [i for i, a in enumerate(pipe.agents) if a in self.feed.failed]
        if not positions:
            return None
        return (pipe, positions[:1] if isinstance(pipe, SequentialPipeline) else positions)

    async def _ask(self, pipe: Pipeline) -> tuple[str, str | Msg | None]:
        paused = pipe.paused
        assert paused is not None
        names = [pipe.agents[i].name for i in paused.positions]
        nxt, skip = None, "Skip leaves their replies out of the result"
        if isinstance(pipe, SequentialPipeline):
            skip = "Skip ends the discussion (no one speaks after them)"
            if paused.positions[0] + 1 < len(pipe.agents):
                nxt = pipe.agents[paused.positions[0] + 1].name
                skip = f"Skip goes on with {nxt}"
        self._next = nxt
        self._decision = self._bridge.loop.create_future()
        self._set_state("paused")  # "Paused" first: it is what the person waits for after Stop
        self.pause.show(names, nxt, skip)
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


__all__ = ["ACTIONS", "REPLACED_NOTE", "DiscussionRun", "Pipeline"]
