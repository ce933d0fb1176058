"""Random multi-agent pipelines with random interrupts, resumes and steering; their invariants.

Shared by the property-based test (``test_pipeline_property.py``, plans drawn by hypothesis)
and the soak script (``scripts/soak_interrupts.py --pipeline``, plans drawn by
``random_pipeline_plan``). A ``PipelineHarness`` holds 2-3 ``ReActAgent`` participants of one
``MsgHub`` and a ``SequentialPipeline`` over them. An episode runs the pipeline once: each
participant's model plays random turns (text, 0-3 tool calls of several kinds, some needing
approval), a Stop lands on a chosen participant at the n-th event of a kind (mid-stream,
mid-tool, on a tool result, while parked on an approval, or when a message is recorded, even
on an idle participant, where it must do nothing), the pipeline pauses and is resumed with
``retry`` / ``skip`` / ``stop`` (with or without an instruction), possibly stopped again, and
a participant may be steered mid-episode (``agent.steer``).

After every run and resume it checks the pipeline's position and the speaker order; after
every episode, ``check_all`` checks every participant's memory from its data alone.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from interrupt_harness import (
    WAIT_S,
    TurnPlan,
    Violation,
    approval_tool,
    async_tool,
    check_history,
    raises_tool,
    stream_tool,
)

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import MsgHub, SequentialPipeline
from nb_hitl.testing import assert_prompt_valid
from nb_hitl.tool import Toolkit

NAMES = ("Ada", "Ben", "Mia")
PIPE_TOOL_KINDS = ("async", "stream", "raises", "approval")
STOP_KINDS = (
    "message_updated",
    "tool_call_started",
    "tool_result",
    "approval_requested",
    "message_added",
)
ACTIONS = ("retry", "skip", "stop")
PIPE_SPEEDS = (2000.0, 1e6)
_TOOL_BLOCKS = ("tool_use", "tool_result")


@dataclass
class StopPlan:
    """Press Stop on the participant at ``position`` (of the pipeline, modulo its length) at
    its ``nth`` event of ``kind`` during one run or resume."""

    position: int = 0
    kind: str = "message_updated"
    nth: int = 1


@dataclass
class Segment:
    """The first run or one resume: where Stop lands, and how to resume if it pauses."""

    stop: StopPlan | None = None
    action: str = "retry"
    instruction: bool = True


@dataclass
class PipelineEpisodePlan:
    """One pipeline run, its pauses and resumes."""

    turns: list[list[TurnPlan]]
    """Per participant, the model turns queued for this episode (then ``Done.``)."""
    segments: list[Segment]
    """The first run and the resumes after it, in turn: segment ``i`` arms a Stop for run ``i``
    and says how to resume if that run pauses. When they run out, no Stop is armed."""
    approval: str = "approve"
    with_input: bool = True
    tps: float = 1e6
    steer_position: int | None = None
    """Steer this participant (modulo) at its ``steer_nth`` event of ``steer_kind``."""
    steer_kind: str = "message_updated"
    steer_nth: int = 1


@dataclass
class HubPlan:
    """The participants: how many, the pipeline's order, parallel tool calls."""

    size: int = 3
    order_seed: int = 0
    parallel: bool = False


@dataclass
class PipelineStats:
    episodes: int = 0
    runs: int = 0
    """Pipeline runs and resumes."""
    interrupts: int = 0
    """Stops that reached a replying participant."""
    pauses: int = 0
    actions: Counter[str] = field(default_factory=Counter)


def random_turns(rng: random.Random) -> list[TurnPlan]:
    from interrupt_harness import ToolPlan

    return [
        TurnPlan(
            rng.randint(0, 20),
            [
                ToolPlan(rng.choice(PIPE_TOOL_KINDS), rng.randint(0, 10))
                for _ in range(rng.randint(0, 3))
            ],
        )
        for _ in range(rng.randint(0, 2))
    ]


def random_pipeline_plan(rng: random.Random) -> PipelineEpisodePlan:
    """An episode plan drawn from ``rng`` (the soak's twin of the hypothesis strategy)."""
    segments = [
        Segment(
            StopPlan(rng.randint(0, 2), rng.choice(STOP_KINDS), rng.randint(1, 4))
            if rng.random() < 0.85
            else None,
            rng.choice(ACTIONS),
            rng.random() < 0.6,
        )
        for _ in range(rng.randint(1, 4))
    ]
    return PipelineEpisodePlan(
        turns=[random_turns(rng) for _ in NAMES],
        segments=segments,
        approval=rng.choice(("approve", "deny")),
        with_input=rng.random() < 0.7,
        tps=rng.choice(PIPE_SPEEDS),
        steer_position=rng.choice((None, 0, 1, 2)),
        steer_kind=rng.choice(STOP_KINDS),
        steer_nth=rng.randint(1, 3),
    )


def random_hub_plan(rng: random.Random) -> HubPlan:
    return HubPlan(rng.randint(2, 3), rng.randint(0, 5), rng.random() < 0.4)


def _toolkit() -> Toolkit:
    toolkit = Toolkit()
    toolkit.register_tool_function(async_tool, name="async")
    toolkit.register_tool_function(stream_tool, name="stream")
    toolkit.register_tool_function(raises_tool, name="raises")
    toolkit.register_tool_function(approval_tool, name="approval", needs_approval=True)
    return toolkit


class PipelineHarness:
    """Participants of one hub, a sequential pipeline over them, and every invariant."""

    def __init__(self, plan: HubPlan) -> None:
        self.scripts: dict[str, list[ScriptedTurn]] = {}
        self.agents: list[ReActAgent] = []
        for name in NAMES[: plan.size]:
            self.scripts[name] = []
            model = ScriptedModel(responder=self._responder(name), tokens_per_second=1e6)
            self.agents.append(
                ReActAgent(
                    name,
                    f"You are {name}, in a debate.",
                    model,
                    toolkit=_toolkit(),
                    max_iters=3,
                    parallel_tool_calls=plan.parallel,
                )
            )
        order = list(self.agents)
        random.Random(plan.order_seed).shuffle(order)
        self.hub = MsgHub(self.agents, name="property-hub")
        self.pipe = SequentialPipeline(order)
        self.stats = PipelineStats()
        self.n = 0
        self.steered: dict[str, list[Msg]] = {a.name: [] for a in self.agents}
        self.private: dict[str, list[Msg]] = {a.name: [] for a in self.agents}
        """Per participant, inputs and instructions given to it alone (recorded once there)."""
        self.replies: dict[str, list[Msg]] = {a.name: [] for a in self.agents}
        """Per participant, every reply it returned (broadcast once to the others)."""
        self.seen_ids: dict[str, list[str]] = {a.name: [] for a in self.agents}
        self.finished: list[tuple[str, bool, Msg | None]] = []
        """The replies that ended during the current run or resume: speaker, interrupted, msg."""
        for a in self.agents:
            a.subscribe(self._finished_handler(a.name))

    def _finished_handler(self, name: str) -> Any:
        def on_event(e: Event) -> None:
            if e.kind == "reply_finished":
                self.finished.append((name, e.interrupted, e.msg))  # type: ignore[attr-defined]

        return on_event

    def _responder(self, name: str) -> Any:
        def respond(messages: list[dict[str, Any]], tools: Any) -> ScriptedTurn:
            script = self.scripts[name]
            return script.pop(0) if script else ScriptedTurn(text=f"{name}: done.")

        return respond

    def _script(self, plan: PipelineEpisodePlan) -> None:
        for a, turns in zip(self.agents, plan.turns, strict=False):
            script = []
            for t, turn in enumerate(turns):
                calls = [ScriptedToolCall(c.kind, {"ms": c.ms}) for c in turn.calls]
                words = max(turn.text_tokens, 0 if calls else 1)
                text = " ".join(f"{a.name}{self.n}.{t}.{i}" for i in range(words))
                script.append(ScriptedTurn(text=text, tool_calls=calls))
            self.scripts[a.name] = script
            a.model.tokens_per_second = plan.tps  # type: ignore[attr-defined]

    def steer(self, position: int, text: str) -> None:
        """Steer the participant at ``position`` (modulo) now, replying or not."""
        agent = self.pipe.agents[position % len(self.pipe.agents)]
        msg = Msg("User", text, "user")
        self.steered[agent.name].append(msg)
        agent.steer_nowait(msg)

    async def announce(self, text: str) -> None:
        """The host broadcasts a message to every participant."""
        msg = Msg("Host", text, "user")
        async with self.hub:
            await self.hub.broadcast(msg)
        for a in self.agents:
            if [m.id for m in a.memory.messages].count(msg.id) != 1:
                raise Violation(f"{a.name} did not record the announcement exactly once")

    # -- one episode ------------------------------------------------------------------------
    async def episode(self, plan: PipelineEpisodePlan) -> None:
        """Run the pipeline under ``plan``, resume it until it ends; raises ``Violation``."""
        self.n += 1
        self._script(plan)
        pipe = self.pipe
        n_agents = len(pipe.agents)
        counts: Counter[tuple[str, str]] = Counter()
        finished = self.finished
        delivered: set[str] = set()
        current: dict[str, StopPlan | None] = {"stop": None}
        steer_events = 0

        def handler(agent: ReActAgent) -> Any:
            def on_event(e: Event) -> None:
                nonlocal steer_events
                counts[(agent.name, e.kind)] += 1
                if agent is self._at(plan.steer_position) and e.kind == plan.steer_kind:
                    steer_events += 1
                    if steer_events == plan.steer_nth:
                        assert plan.steer_position is not None
                        self.steer(plan.steer_position, f"steer {self.n} on {e.kind}")
                stop = current["stop"]
                stop_now = (
                    stop is not None
                    and agent is self._at(stop.position)
                    and e.kind == stop.kind
                    and counts[(agent.name, e.kind)] == stop.nth
                )
                if stop_now:
                    current["stop"] = None
                    if agent.interrupt_nowait():
                        delivered.add(agent.name)
                        self.stats.interrupts += 1
                elif e.kind == "approval_requested" and e.tool_use is not None:  # type: ignore[attr-defined]
                    call_id = e.tool_use.id  # type: ignore[attr-defined]
                    try:
                        if plan.approval == "deny":
                            agent.deny(call_id, "no")
                        else:
                            agent.approve(call_id)
                    except ApprovalError:
                        pass  # closed by an interrupt meanwhile: a legitimate refusal

            return on_event

        subs = [a.subscribe(handler(a)) for a in self.agents]
        try:
            async with self.hub:
                given = Msg("Host", f"topic {self.n}", "user") if plan.with_input else None
                if given is not None:
                    self.private[pipe.agents[0].name].append(given)
                segments = list(plan.segments) or [Segment()]
                seg = segments.pop(0)
                current["stop"], start = seg.stop, 0
                finished.clear()
                result = await self._run(pipe(given))
                self._check_run(start, finished, delivered, result)
                while pipe.paused is not None:
                    self.stats.pauses += 1
                    pos = pipe.paused.positions[0]
                    action, with_text = seg.action, seg.instruction
                    if seg.stop is None:  # paused without a planned Stop: end it
                        action = "stop"
                    self.stats.actions[action] += 1
                    instruction = Msg("Host", f"instruction {self.n}.{pos}", "user")
                    if not with_text or action == "stop":
                        instruction = None
                    if instruction is not None and action == "retry":
                        self.private[pipe.agents[pos].name].append(instruction)
                    if action == "skip" and pos + 1 < n_agents:
                        # the next speaker gets the instruction, else the skipped one's input
                        handed = instruction or pipe.paused.input
                        if isinstance(handed, Msg) and (
                            handed is instruction or self._is_private(handed)
                        ):
                            self.private[pipe.agents[pos + 1].name].append(handed)
                    seg = segments.pop(0) if segments else Segment()
                    current["stop"] = seg.stop
                    finished.clear()
                    delivered.clear()
                    counts.clear()
                    paused_msg = result
                    result = await self._run(pipe.resume(action, instruction))  # type: ignore[arg-type]
                    if action == "stop":
                        if result is not paused_msg or finished or pipe.paused is not None:
                            raise Violation("resume('stop') did not end with the paused message")
                        break
                    self._check_run(
                        pos if action == "retry" else pos + 1, finished, delivered, result
                    )
        finally:
            for sub in subs:
                sub.close()
        await _no_tasks_left()
        self.check_all()
        self.stats.episodes += 1

    def _is_private(self, msg: Msg) -> bool:
        return any(m.id == msg.id for held in self.private.values() for m in held)

    def _at(self, position: int | None) -> ReActAgent | None:
        if position is None:
            return None
        return self.pipe.agents[position % len(self.pipe.agents)]

    async def _run(self, coro: Any) -> Any:
        self.stats.runs += 1
        task = asyncio.ensure_future(coro)
        done, _ = await asyncio.wait({task}, timeout=WAIT_S)
        if not done:
            for a in self.agents:
                a.interrupt_nowait()
            await asyncio.wait({task}, timeout=WAIT_S)
            raise Violation(f"a pipeline run did not end within {WAIT_S} s")
        for _ in range(3):
            await asyncio.sleep(0)  # every event of the run delivered
        return task.result()

    def _check_run(
        self,
        start: int,
        finished: list[tuple[str, bool, Msg | None]],
        delivered: set[str],
        result: Any,
    ) -> None:
        """The speakers of one run or resume, in order, and the pipeline's position."""
        pipe = self.pipe
        names = [a.name for a in pipe.agents]
        spoke = [name for name, _, _ in finished]
        if spoke != names[start : start + len(spoke)]:
            raise Violation(f"speakers {spoke}, expected the pipeline's order from {start}")
        for name, interrupted, msg in finished:
            if msg is not None:
                self.replies[name].append(msg)
            if name in delivered and not interrupted:
                raise Violation(f"an accepted Stop on {name} did not end its reply interrupted")
        if any(interrupted for _, interrupted, _ in finished[:-1]):
            raise Violation("the pipeline went on after an interrupted reply")
        if finished and finished[-1][1]:
            pos = start + len(finished) - 1
            info = result.metadata.get("pipeline") if isinstance(result, Msg) else None
            if not isinstance(result, Msg) or not result.is_interrupted:
                raise Violation("an interrupted speaker did not pause the pipeline")
            if result is not finished[-1][2]:
                raise Violation("the pause returned another message than the interrupted reply")
            if pipe.paused is None or pipe.paused.positions != [pos]:
                raise Violation(f"pipeline.paused is {pipe.paused}, expected position {pos}")
            if info != {"id": pipe.id, "kind": "sequential", "position": pos, "agent": names[pos]}:
                raise Violation(f"metadata['pipeline'] is {info}, expected position {pos}")
            return
        if pipe.paused is not None:
            raise Violation("the pipeline says it is paused, but no reply was interrupted")
        if len(spoke) != len(names) - start:
            raise Violation(f"only {spoke} spoke, expected {names[start:]}")
        if spoke and result is not finished[-1][2]:
            raise Violation("the pipeline's result is not the last speaker's reply")

    # -- invariants -------------------------------------------------------------------------
    def check_all(self) -> None:
        """Every participant's memory, from its data alone, against what was said."""
        for agent in self.agents:
            msgs = agent.memory.messages
            ids = [m.id for m in msgs]
            check_history(msgs)
            try:
                assert_prompt_valid(agent.formatter.format_sync(agent.prompt_msgs()))
            except AssertionError as exc:
                raise Violation(f"{agent.name}: invalid prompt: {exc}") from None
            if len(set(ids)) != len(ids):
                raise Violation(f"{agent.name} holds a message twice")
            before = self.seen_ids[agent.name]
            if ids[: len(before)] != before:
                raise Violation(f"{agent.name} lost or reordered messages it held")
            self.seen_ids[agent.name] = ids
            for m in self.private[agent.name]:
                if ids.count(m.id) != 1:
                    raise Violation(f"{agent.name}: {m.get_text_content()!r} not recorded once")
            queued = [m.id for m in agent.pending_steering]
            for m in self.steered[agent.name]:
                if ids.count(m.id) + queued.count(m.id) != 1:
                    raise Violation(f"{agent.name}: steer {m.get_text_content()!r} lost or doubled")
            for other in self.agents:
                if other is not agent:
                    self._check_observed(agent, other)

    def _check_observed(self, observer: ReActAgent, speaker: ReActAgent) -> None:
        """``observer`` holds each of ``speaker``'s replies once, as the others may see it."""
        msgs = observer.memory.messages
        ids = [m.id for m in msgs]
        theirs = [m for m in msgs if m.name == speaker.name]
        for m in theirs:
            if any(b.type in _TOOL_BLOCKS for b in m.get_content_blocks()):
                raise Violation(f"{observer.name} observed a tool block of {speaker.name}")
            if m.is_interrupted and "_partial" not in m.metadata:
                raise Violation(f"{observer.name} holds {speaker.name}'s own interrupted message")
        own = {m.id for m in self.private[observer.name]}
        for m in self.private[speaker.name]:
            if m.id in ids and m.id not in own:
                raise Violation(f"{observer.name} holds an instruction given to {speaker.name}")
        replies = self.replies[speaker.name]
        if len(theirs) != len(replies):
            raise Violation(
                f"{observer.name} holds {len(theirs)} messages of {speaker.name}, who replied "
                f"{len(replies)} times (a broadcast lost or duplicated)"
            )
        interrupted = sum(r.is_interrupted for r in replies)
        if sum(m.is_interrupted for m in theirs) != interrupted:
            raise Violation(f"{observer.name} miscounts {speaker.name}'s interrupted replies")
        for r in replies:
            plain = not r.is_interrupted and not any(
                b.type in _TOOL_BLOCKS for b in r.get_content_blocks()
            )
            if plain and ids.count(r.id) != 1:
                raise Violation(f"{observer.name} does not hold {speaker.name}'s reply once")

    async def replies_normally(self) -> None:
        """One more uninterrupted run: every participant speaks, nothing stays queued."""
        for name in self.scripts:
            self.scripts[name] = []
        given = Msg("Host", "last word?", "user")
        self.private[self.pipe.agents[0].name].append(given)
        self.finished.clear()
        async with self.hub:
            result = await self._run(self.pipe(given))
        self._check_run(0, self.finished, set(), result)
        last = self.pipe.agents[-1].name
        if not isinstance(result, Msg) or result.get_text_content() != f"{last}: done.":
            raise Violation(f"the pipeline did not run normally afterwards: {result}")
        for a in self.agents:
            if a.pending_steering:
                raise Violation(f"{a.name}: steering still queued after a full run")
        self.check_all()


async def _no_tasks_left() -> None:
    for _ in range(3):
        await asyncio.sleep(0)
    me = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
    if left:
        raise Violation(f"tasks left running: {left}")
