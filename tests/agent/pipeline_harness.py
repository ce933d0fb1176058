"""Random multi-agent pipelines with random interrupts, resumes, steering and sessions.

Shared by the property-based test (``test_pipeline_property.py``, plans drawn by hypothesis)
and the soak script (``scripts/soak_interrupts.py --pipeline``, plans drawn by
``pipeline_plans.random_pipeline_plan``). A ``PipelineHarness`` holds 2-3 ``ReActAgent``
participants of one ``MsgHub`` (and maybe a ``UserAgent``, the person in the loop) and a
``SequentialPipeline`` or ``FanoutPipeline`` over them. An episode runs the pipeline once: each
participant's model plays random turns (text, 0-3 tool calls of several kinds, some needing
approval, some of a tool no toolkit has), a Stop lands on a chosen participant at the n-th
event of a kind (mid-stream, mid-tool, on a tool result, while parked on an approval, when a
message is recorded or a steer taken in, as a reply starts, even on an idle participant, where
it must do nothing), participants are steered (and a steered speaker may be stopped right
after), and the pipeline pauses and is resumed with ``retry`` / ``skip`` / ``stop`` (with or
without an instruction), possibly many times. During a pause the host may broadcast an
announcement and every participant may be saved and loaded back; a participant parked on an
approval may be saved, and that file must load into a fresh agent whose resumed reply ends.

After every run and resume: the pipeline's position and speakers, and ``check_all``: every
history valid, each participant observes each reply exactly once and exactly as that reply's
own text so far (``observed_ledger``), no tool block in a broadcast, instructions, steering
and announcements recorded once where they belong.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

from interrupt_harness import (
    WAIT_S,
    Violation,
    approval_tool,
    async_tool,
    check_history,
    raises_tool,
    stream_tool,
)
from observed_ledger import Ledger
from pipeline_plans import (
    ACTIONS,
    KINDS,
    NAMES,
    PIPE_SPEEDS,
    PIPE_TOOL_KINDS,
    STOP_KINDS,
    USER_NAME,
    HubPlan,
    PipelineEpisodePlan,
    PipelineStats,
    Segment,
    SteerPlan,
    StopPlan,
    random_hub_plan,
    random_pipeline_plan,
)
from pipeline_runs import check_fanout_run, check_sequential_run

from nb_hitl.agent import AgentBase, ReActAgent, UserAgent
from nb_hitl.events import Event
from nb_hitl.exceptions import AgentBusyError, ApprovalError, SessionError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import FanoutPipeline, MsgHub, SequentialPipeline
from nb_hitl.testing import assert_prompt_valid
from nb_hitl.tool import Toolkit

__all__ = [
    "ACTIONS",
    "KINDS",
    "PIPE_SPEEDS",
    "PIPE_TOOL_KINDS",
    "STOP_KINDS",
    "HubPlan",
    "PipelineEpisodePlan",
    "PipelineHarness",
    "PipelineStats",
    "Segment",
    "SteerPlan",
    "StopPlan",
    "random_hub_plan",
    "random_pipeline_plan",
]


def toolkit() -> Toolkit:
    """The participants' tools (``ghost`` is never registered)."""
    tools = Toolkit()
    tools.register_tool_function(async_tool, name="async")
    tools.register_tool_function(stream_tool, name="stream")
    tools.register_tool_function(raises_tool, name="raises")
    tools.register_tool_function(approval_tool, name="approval", needs_approval=True)
    return tools


class PipelineHarness:
    """Participants of one hub, a pipeline over them, and every invariant."""

    def __init__(self, plan: HubPlan) -> None:
        self.plan = plan
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
                    toolkit=toolkit(),
                    max_iters=3,
                    parallel_tool_calls=plan.parallel,
                )
            )
        self.participants: list[AgentBase] = list(self.agents)
        self.user_ms = 0
        self.user_n = 0
        if plan.user:
            self.participants.append(UserAgent(USER_NAME, self._user_input))
        order = list(self.participants)
        random.Random(plan.order_seed).shuffle(order)
        self.hub = MsgHub(self.participants, name="property-hub")
        self.pipe: SequentialPipeline | FanoutPipeline = (
            FanoutPipeline(order, enable_gather=plan.gather)
            if plan.kind == "fanout"
            else SequentialPipeline(order)
        )
        self.ledger = Ledger(self.participants)
        self.stats = PipelineStats()
        self.n = 0
        self.steered: dict[str, list[Msg]] = {a.name: [] for a in self.agents}
        self.private: dict[str, list[Msg]] = {a.name: [] for a in self.participants}
        """Per participant, inputs and instructions given to it alone (recorded once there)."""
        self.announced: list[Msg] = []
        self.seen_ids: dict[str, list[str]] = {a.name: [] for a in self.agents}
        self.finished: list[tuple[str, bool, Msg | None]] = []
        """The replies that ended during the current run or resume: speaker, interrupted, msg."""
        self.parked_files: list[tuple[ReActAgent, Path]] = []
        self._dir = Path(tempfile.mkdtemp(prefix="nb-hitl-pipeline-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._dir, ignore_errors=True)
        for a in self.participants:
            a.subscribe(self._finished_handler(a.name))

    @property
    def replies(self) -> dict[str, list[Msg]]:
        """Per participant, what each of its replies returned (each observed once)."""
        return {a.name: self.ledger.results(a.name) for a in self.participants}

    def close(self) -> None:
        """Remove the session files (also done when the harness is collected)."""
        self._cleanup()

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

    async def _user_input(self, prompt: Msg | None) -> str:
        await asyncio.sleep(self.user_ms / 1000)
        self.user_n += 1
        return f"{USER_NAME} answers {self.n}.{self.user_n}"

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
        self.user_ms = plan.user_ms

    def _at(self, position: int | None) -> AgentBase | None:
        if position is None:
            return None
        return self.pipe.agents[position % len(self.pipe.agents)]

    def steer(self, position: int, text: str) -> bool:
        """Steer the participant at ``position`` (modulo) now, replying or not; ``False`` when
        it cannot be steered (the person in the loop)."""
        agent = self._at(position)
        if not isinstance(agent, ReActAgent):
            return False
        msg = Msg("User", text, "user")
        self.steered[agent.name].append(msg)
        agent.steer_nowait(msg)
        self.stats.steers += 1
        return True

    async def announce(self, text: str) -> None:
        """The host broadcasts a message to every participant."""
        msg = Msg("Host", text, "user")
        async with self.hub:
            await self.hub.broadcast(msg)
        self.announced.append(msg)
        self.stats.announcements += 1
        self.check_all()

    # -- one episode ------------------------------------------------------------------------
    async def episode(self, plan: PipelineEpisodePlan) -> None:
        """Run the pipeline under ``plan``, resume it until it ends; raises ``Violation``."""
        self.n += 1
        self._script(plan)
        pipe = self.pipe
        counts: Counter[tuple[str, str]] = Counter()
        steer_counts: Counter[int] = Counter()
        delivered: set[str] = set()
        current: dict[str, StopPlan | None] = {"stop": None}
        after_steer: dict[str, list[int]] = {}
        """Per steered speaker to stop: [taken in yet, streamed chunks left before Stop]."""
        saved_parked: set[str] = set()

        def stop(agent: AgentBase) -> None:
            if agent.interrupt_nowait():
                delivered.add(agent.name)
                self.stats.interrupts += 1

        def handler(agent: AgentBase) -> Any:
            def on_event(e: Event) -> None:
                counts[(agent.name, e.kind)] += 1
                streamed = e.kind == "message_updated" and bool(getattr(e, "delta", ""))
                for i, sp in enumerate(plan.steers):
                    if agent is self._at(sp.position) and e.kind == sp.kind:
                        steer_counts[i] += 1
                        if steer_counts[i] == sp.nth and self.steer(
                            sp.position, f"steer {self.n}.{i} on {e.kind}"
                        ):
                            if sp.then_stop and agent.is_replying:
                                after_steer[agent.name] = [0, sp.then_stop]
                pending = after_steer.get(agent.name)
                if pending is not None:
                    if e.kind == "reply_finished":
                        del after_steer[agent.name]
                    elif (e.kind == "steered" and not pending[0]) or (streamed and pending[0]):
                        pending[0], pending[1] = 1, pending[1] - 1
                        if pending[1] <= 0:
                            del after_steer[agent.name]
                            stop(agent)
                armed = current["stop"]
                if (
                    armed is not None
                    and agent is self._at(armed.position)
                    and e.kind == armed.kind
                    and counts[(agent.name, e.kind)] == armed.nth
                ):
                    current["stop"] = None
                    stop(agent)
                elif e.kind == "approval_requested" and e.tool_use is not None:  # type: ignore[attr-defined]
                    assert isinstance(agent, ReActAgent)
                    if plan.save_parked and agent.name not in saved_parked:
                        saved_parked.add(agent.name)
                        self._save_parked(agent)
                    call_id = e.tool_use.id  # type: ignore[attr-defined]
                    try:
                        if plan.approval == "deny":
                            agent.deny(call_id, "no")
                        else:
                            agent.approve(call_id)
                    except ApprovalError:
                        pass  # closed by an interrupt meanwhile: a legitimate refusal

            return on_event

        subs = [a.subscribe(handler(a)) for a in self.participants]
        try:
            async with self.hub:
                given = Msg("Host", f"topic {self.n}", "user") if plan.with_input else None
                segments = list(plan.segments) or [Segment()]
                seg = segments.pop(0)
                result = await self._step(
                    pipe(given), given, seg, current, delivered, counts, "run", None
                )
                while pipe.paused is not None:
                    self.stats.pauses += 1
                    await self._during_pause(seg)
                    action, with_text = seg.action, seg.instruction
                    if seg.stop is None:  # paused without a planned Stop: end it
                        action = "stop"
                    self.stats.actions[action] += 1
                    instruction = Msg("Host", f"instruction {self.n}.{self.stats.runs}", "user")
                    if not with_text or action == "stop":
                        instruction = None
                    paused_msg = result
                    seg = segments.pop(0) if segments else Segment()
                    after_steer.clear()
                    result = await self._step(
                        pipe.resume(action, instruction),  # type: ignore[arg-type]
                        instruction,
                        seg,
                        current,
                        delivered,
                        counts,
                        action,
                        paused_msg,
                    )
                    if action == "stop":
                        break
        finally:
            for sub in subs:
                sub.close()
        await _no_tasks_left()
        self.check_all()
        self.stats.episodes += 1

    async def _step(
        self,
        coro: Any,
        given: Msg | None,
        seg: Segment,
        current: dict[str, StopPlan | None],
        delivered: set[str],
        counts: Counter[tuple[str, str]],
        action: str,
        paused_msg: Any,
    ) -> Any:
        """One run (``action == "run"``) or resume: arm its Stop, note who is given what, run
        it, check it and every invariant."""
        pipe = self.pipe
        before = pipe.paused
        start = 0
        if before is not None:
            start = before.positions[0] + (0 if action == "retry" else 1)
        self._note_given(given, action, before)
        current["stop"] = seg.stop
        self.finished.clear()
        delivered.clear()
        counts.clear()
        result = await self._run(coro)
        if action == "stop":
            if result is not paused_msg and not isinstance(pipe, FanoutPipeline):
                raise Violation("resume('stop') did not end with the paused message")
            if self.finished or pipe.paused is not None:
                raise Violation("resume('stop') ran someone, or left the pipeline paused")
        elif isinstance(pipe, FanoutPipeline):
            asked = (
                list(range(len(pipe.agents)))
                if before is None
                else (before.positions if action == "retry" else [])
            )
            check_fanout_run(pipe, asked, self.finished, delivered, result, action)
        else:
            check_sequential_run(pipe, start, self.finished, delivered, result)
        await self._load_parked()
        self.check_all()
        return result

    def _note_given(self, given: Msg | None, action: str, paused: Any) -> None:
        """Record which participants were handed ``given`` (an input or an instruction)."""
        pipe = self.pipe
        if given is None or action == "stop":
            if action == "skip" and isinstance(pipe, SequentialPipeline) and paused is not None:
                handed = paused.input  # the next speaker gets the skipped one's input
                nxt = paused.positions[0] + 1
                if isinstance(handed, Msg) and nxt < len(pipe.agents) and self._is_private(handed):
                    self.private[pipe.agents[nxt].name].append(handed)
            return
        if action == "run":
            targets = pipe.agents if isinstance(pipe, FanoutPipeline) else pipe.agents[:1]
        elif isinstance(pipe, FanoutPipeline):
            targets = [pipe.agents[i] for i in paused.positions] if action == "retry" else []
        else:
            pos = paused.positions[0] + (0 if action == "retry" else 1)
            targets = pipe.agents[pos : pos + 1]
        for agent in targets:
            self.private[agent.name].append(given)

    def _is_private(self, msg: Msg) -> bool:
        return any(m.id == msg.id for held in self.private.values() for m in held)

    async def _during_pause(self, seg: Segment) -> None:
        """What happens while the pipeline waits: an announcement, a save and load of all."""
        if seg.announce:
            msg = Msg("Host", f"announcement {self.n}.{self.stats.pauses}", "user")
            await self.hub.broadcast(msg)
            self.announced.append(msg)
            self.stats.announcements += 1
        if seg.reload:
            for agent in self.agents:
                self._reload(agent)
        paused = self.pipe.paused
        if seg.continue_first and paused is not None:
            for pos in paused.positions:
                agent = self.pipe.agents[pos]
                if isinstance(agent, ReActAgent) and agent.can_resume:
                    await self._continue(agent, seg.continue_first - 1)
        self.check_all()

    async def _continue(self, agent: ReActAgent, stop_at: int) -> None:
        """Continue ``agent``'s interrupted reply (``resume()``), stopped at its ``stop_at``-th
        streamed chunk (0: not stopped); the others observe what it added."""
        chunks = 0

        def on_event(e: Event) -> None:
            nonlocal chunks
            if e.kind == "message_updated" and getattr(e, "delta", ""):
                chunks += 1
                if chunks == stop_at and agent.interrupt_nowait():
                    self.stats.interrupts += 1

        sub = agent.subscribe(on_event)
        self.finished.clear()
        try:
            reply = await self._run(agent.resume())
        finally:
            sub.close()
        if [name for name, _, _ in self.finished] != [agent.name]:
            raise Violation(f"resume() of {agent.name} ran {self.finished}")
        if "continued_by" not in reply.metadata:
            raise Violation(
                f"{agent.name}: resume() returned a reply not marked continued_by: {reply.metadata}"
            )
        self.stats.continuations += 1

    def _reload(self, agent: ReActAgent) -> None:
        """Save ``agent``'s session and load it back (a kernel restart, in place)."""
        ids = [m.id for m in agent.memory.messages]
        queued = [m.id for m in agent.pending_steering]
        path = self._dir / f"{agent.name}-{self.n}-reload.json"
        agent.save_session(path)
        try:
            agent.load_session(path)
        except SessionError as exc:
            raise Violation(
                f"{agent.name}: a session saved during a pause did not load: {exc}"
            ) from None
        finally:
            path.unlink(missing_ok=True)
        if [m.id for m in agent.memory.messages] != ids:
            raise Violation(f"{agent.name}: save and load changed memory")
        if [m.id for m in agent.pending_steering] != queued:
            raise Violation(f"{agent.name}: save and load changed the queued steering")
        self.stats.reloads += 1

    def _save_parked(self, agent: ReActAgent) -> None:
        """Save the session of ``agent``, parked on an approval (loaded later, elsewhere)."""
        if not agent.is_waiting_for_approval:
            return  # interrupted before this handler ran: not parked any more
        path = self._dir / f"{agent.name}-{self.n}-{len(self.parked_files)}.json"
        try:
            agent.save_session(path)
        except (SessionError, AgentBusyError) as exc:
            raise Violation(
                f"{agent.name}: saving while parked on an approval failed: {exc}"
            ) from None
        self.parked_files.append((agent, path))

    async def _load_parked(self) -> None:
        """Every file saved while parked loads into a fresh agent with the same tools, and
        its resumed reply (every call decided) ends with a valid history."""
        files, self.parked_files = self.parked_files, []
        for agent, path in files:
            name = agent.name
            model = ScriptedModel(
                responder=lambda m, t, name=name: ScriptedTurn(text=f"{name}: twin done."),
                tokens_per_second=1e6,
            )
            twin = ReActAgent(name, agent.sys_prompt, model, toolkit=toolkit(), max_iters=3)
            try:
                twin.load_session(path)
            except SessionError as exc:
                raise Violation(
                    f"{name}: a session saved while parked did not load: {exc}"
                ) from None
            finally:
                path.unlink(missing_ok=True)
            twin.approve_all()
            if twin.is_waiting_for_approval:
                reply = await asyncio.wait_for(twin.resume_pending(), WAIT_S)
                if reply.is_interrupted:
                    raise Violation(f"{name}: the reply resumed from a parked session stopped")
            check_history(twin.memory.messages)
            try:
                assert_prompt_valid(twin.formatter.format_sync(twin.prompt_msgs()))
            except AssertionError as exc:
                raise Violation(f"{name} (loaded twin): invalid prompt: {exc}") from None
            self.stats.parked_loads += 1

    async def _run(self, coro: Any) -> Any:
        self.stats.runs += 1
        task = asyncio.ensure_future(coro)
        done, _ = await asyncio.wait({task}, timeout=WAIT_S)
        if not done:
            for a in self.participants:
                a.interrupt_nowait()
            await asyncio.wait({task}, timeout=WAIT_S)
            raise Violation(f"a pipeline run did not end within {WAIT_S} s")
        for _ in range(3):
            await asyncio.sleep(0)  # every event of the run delivered
        return task.result()

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
            for m in [*self.private[agent.name], *self.announced]:
                if ids.count(m.id) != 1:
                    raise Violation(f"{agent.name}: {m.get_text_content()!r} not recorded once")
            queued = [m.id for m in agent.pending_steering]
            for m in self.steered[agent.name]:
                if ids.count(m.id) + queued.count(m.id) != 1:
                    raise Violation(f"{agent.name}: steer {m.get_text_content()!r} lost or doubled")
            self.ledger.check_streamed_kept(agent)
            own = {m.id for m in self.private[agent.name]}
            for other in self.participants:
                if other is agent:
                    continue
                self.ledger.check_observed(agent, other)
                for m in self.private[other.name]:
                    if m.id in ids and m.id not in own:
                        raise Violation(f"{agent.name} holds an instruction given to {other.name}")

    async def replies_normally(self) -> None:
        """One more uninterrupted run: every participant speaks, nothing stays queued."""
        for name in self.scripts:
            self.scripts[name] = []
        self.user_ms = 0
        given = Msg("Host", "last word?", "user")
        self._note_given(given, "run", None)
        self.finished.clear()
        async with self.hub:
            result = await self._run(self.pipe(given))
        pipe = self.pipe
        if isinstance(pipe, FanoutPipeline):
            check_fanout_run(pipe, list(range(len(pipe.agents))), self.finished, set(), result, "")
            outs = list(result)
        else:
            check_sequential_run(pipe, 0, self.finished, set(), result)
            outs = [result]
        for out in outs:
            want = f"{out.name}: done." if out.name != USER_NAME else None
            if out.is_interrupted or (want is not None and out.get_text_content() != want):
                raise Violation(f"the pipeline did not run normally afterwards: {out}")
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
