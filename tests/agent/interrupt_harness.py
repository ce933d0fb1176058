"""Random replies with random interrupts, and the invariants every one must leave behind.

Shared by the property-based test (``test_interrupt_property.py``, plans drawn by hypothesis)
and the soak script (``scripts/soak_interrupts.py``, plans drawn by ``random_plan``). An
episode is one ``agent(msg)`` call: a scripted reply (text at some speed, 0-4 tool calls of
every kind, sequential or parallel, approvals, compression) and an interrupt landing at some
moment (before the first step, after some loop iterations, or on the n-th event of a kind:
streaming, tool calls, tool results, approval requests, compression), possibly twice, with a
message, by cancelling the caller or the reply task, from a thread, or from inside a tool.
Episodes may also steer (``agent.steer``) on the n-th event of a kind, and the machine steers
between replies: every steered message must end up recorded exactly once, or still queued.
An episode may start by resuming the last interrupted reply, or by rewinding (edit an earlier
question, regenerate an earlier answer: ``resume_harness``), and a "stop after this step" is
one more way to land; the machine also switches branches and round-trips the agent's state.
A continued answer must start exactly where its partial ended, and every branch stay valid.

``check_memory`` derives every invariant from the message data alone.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from permission_harness import MODES as PERMISSION_MODES
from permission_harness import RULES as PERMISSION_RULES
from permission_harness import RunCounter, add_rule, outside_twice, policy_for, question_args
from resume_harness import (
    STARTS,
    Violation,
    check_continuations,
    check_resume,
    find_question,
    start_episode,
)

from nb_hitl.agent import CompressionConfig, ReActAgent, ask_user
from nb_hitl.events import Event
from nb_hitl.exceptions import AgentBusyError, ApprovalError
from nb_hitl.memory import InMemoryMemory, StoredMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_prompt_valid
from nb_hitl.token import TokenCounter
from nb_hitl.tool import Toolkit, ToolResponse

TOOL_KINDS = (
    "sync",
    "async",
    "stream",
    "raises",
    "swallows",
    "self_interrupt",
    "approval",
    "ask",
    "ask_bad",
)
MOMENTS = ("none", "before_start", "iterations", "event")
EVENT_KINDS = (
    "message_updated",
    "message_added",
    "tool_call_started",
    "tool_result",  # ToolResultReady.kind
    "approval_requested",
    "question_asked",
    "compression_started",
)
HOWS = (
    "interrupt",
    "interrupt_msg",
    "kernel",
    "caller_cancel",
    "raw_cancel",
    "threadsafe",
    "stop_after_step",
)
SECOND_HOWS = ("interrupt", "interrupt_msg", "raw_cancel", "caller_cancel", "stop_after_step")
APPROVALS = ("approve", "deny", "edit", "none", "thread")
CALL_IDS = ("unique", "call_0", "", "dup")
SPEEDS = (1500.0, 15000.0, 1e6)
WAIT_S = 20.0
COUNTER = TokenCounter()


@dataclass
class ToolPlan:
    kind: str
    ms: int = 0
    call_id: str = "unique"


@dataclass
class TurnPlan:
    text_tokens: int = 5
    calls: list[ToolPlan] = field(default_factory=list)


@dataclass
class EpisodePlan:
    """One ``agent(msg)`` call and what happens to it."""

    turns: list[TurnPlan]
    tps: float = 1e6
    approval: str = "approve"
    moment: str = "none"
    iterations: int = 0
    event_kind: str = "message_updated"
    event_nth: int = 1
    how: str = "interrupt"
    second: str | None = None
    concurrent_call: bool = False
    steer_kind: str | None = None
    """Steer on the ``steer_nth`` event of this kind (None: no steering in this episode)."""
    steer_nth: int = 1
    start: str = "ask"
    """How the episode starts (``resume_harness.STARTS``): a question, a resume, a rewind."""
    pick: int = 0
    """Which earlier question or answer a rewind starts from (modulo how many there are)."""
    decide_ms: int = 0
    """``thread`` decisions: how long the outside thread waits before deciding (twice)."""


@dataclass
class AgentPlan:
    """Settings of one agent (a machine run or a soak session)."""

    parallel: bool = False
    compress: bool = False
    threshold: int = 600
    keep_recent: int = 2
    prefix: bool = True
    """The model continues an assistant prefix (else: the continuation prompt)."""
    mode: str = "ask"
    """The permission mode (``permission_harness.MODES``)."""
    rule: str = "none"
    """One permission rule (``permission_harness.RULES``)."""


@dataclass
class Stats:
    episodes: int = 0
    interrupts: int = 0
    """Episodes in which an interrupt (or cancel) was delivered to a running reply."""
    interrupted: int = 0
    """Replies that ended interrupted."""
    steers: int = 0
    """Steering messages given (mid-reply or between replies)."""
    where: Counter[str] = field(default_factory=Counter)
    """Where the interrupted replies stopped (``interrupted_at``, tool arguments left out)."""
    by: Counter[str] = field(default_factory=Counter)
    """What stopped them (``interrupted_by``)."""
    starts: Counter[str] = field(default_factory=Counter)
    """How the episodes started (ask, resume, edit, regenerate)."""
    stopped: int = 0
    """Replies that ended by ``stop_after_step()``."""


def random_plan(rng: random.Random) -> EpisodePlan:
    """An episode plan drawn from ``rng`` (the soak's twin of the hypothesis strategy)."""
    turns = [
        TurnPlan(
            rng.randint(0, 30),
            [
                ToolPlan(rng.choice(TOOL_KINDS), rng.randint(0, 20), rng.choice(CALL_IDS))
                for _ in range(rng.randint(0, 4))
            ],
        )
        for _ in range(rng.randint(1, 3))
    ]
    return EpisodePlan(
        turns=turns,
        tps=rng.choice(SPEEDS),
        approval=rng.choice(APPROVALS),
        moment=rng.choice(("none", *MOMENTS[1:] * 3)),  # mostly with an interrupt
        iterations=rng.randint(0, 120),
        event_kind=rng.choice(EVENT_KINDS),
        event_nth=rng.randint(1, 4),
        how=rng.choice(HOWS),
        second=rng.choice((None, *SECOND_HOWS)),
        concurrent_call=rng.random() < 0.2,
        steer_kind=rng.choice((None, None, *EVENT_KINDS)),
        steer_nth=rng.randint(1, 3),
        start=rng.choice(STARTS),
        pick=rng.randint(0, 5),
        decide_ms=rng.randint(0, 5),
    )


def random_agent_plan(rng: random.Random) -> AgentPlan:
    return AgentPlan(
        parallel=rng.random() < 0.4,
        compress=rng.random() < 0.5,
        threshold=rng.randint(250, 1500),
        keep_recent=rng.randint(1, 4),
        prefix=rng.random() < 0.7,
        mode=rng.choice(PERMISSION_MODES),
        rule=rng.choice(PERMISSION_RULES),
    )


# -- tools shared by the harnesses (each takes ms, the time it runs) --------------------------
async def async_tool(ms: int) -> str:
    """An async tool.

    Args:
        ms: milliseconds to wait.
    """
    await asyncio.sleep(ms / 1000)
    return f"async {ms}"


async def stream_tool(ms: int) -> AsyncGenerator[ToolResponse, None]:
    """A streaming tool.

    Args:
        ms: milliseconds between pages.
    """
    text = ""
    for i in range(3):
        text += f"page {i}\n"
        yield ToolResponse.text(text)
        await asyncio.sleep(ms / 3000)


async def raises_tool(ms: int) -> str:
    """A tool that fails.

    Args:
        ms: milliseconds before failing.
    """
    await asyncio.sleep(ms / 1000)
    raise ValueError("tool failed on purpose")


def approval_tool(ms: int) -> str:
    """A tool that needs approval.

    Args:
        ms: a number.
    """
    return f"approved {ms}"


# -- the agent ----------------------------------------------------------------------------------
class Harness:
    """An agent whose model and tools follow episode plans."""

    def __init__(self, plan: AgentPlan, memory: InMemoryMemory | None = None) -> None:
        self.turns: list[ScriptedTurn] = []
        self.model = ScriptedModel(responder=self._respond, tokens_per_second=1e6)
        self.model.supports_assistant_prefix = plan.prefix
        self.approval_runs = RunCounter()
        config = None
        if plan.compress:
            config = CompressionConfig(
                enable=True,
                agent_token_counter=COUNTER,
                trigger_threshold=plan.threshold,
                keep_recent=plan.keep_recent,
            )
        self.agent = ReActAgent(
            "Friday",
            "You are a test agent.",
            self.model,
            toolkit=self._toolkit(),
            compression_config=config,
            max_iters=4,
            parallel_tool_calls=plan.parallel,
            permissions=policy_for(plan.mode, plan.rule),
            memory=memory,
        )
        add_rule(self.agent, plan.rule)
        self.outside_errors: list[str] = []
        """Wrong outcomes of decisions made from another thread."""
        self.stats = Stats()
        self.n = 0
        self.steered: list[Msg] = []
        """Every message given to ``steer()`` so far."""

    def _respond(self, messages: list[dict[str, Any]], tools: Any) -> ScriptedTurn:
        return self.turns.pop(0) if self.turns else ScriptedTurn(text="Done.")

    def _toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        def sync_tool(ms: int) -> str:
            """A sync tool (runs in a thread).

            Args:
                ms: milliseconds to block.
            """
            time.sleep(min(ms, 5) / 1000)
            return f"sync {ms}"

        async def swallows_tool(ms: int) -> str:
            """A tool that swallows its cancellation.

            Args:
                ms: milliseconds to wait.
            """
            try:
                await asyncio.sleep(ms / 1000)
            except asyncio.CancelledError:
                return "swallowed"
            return f"swallows {ms}"

        async def self_interrupt_tool(ms: int) -> str:
            """A tool that pauses the agent for a person (interrupts its own reply).

            Args:
                ms: ignored.
            """
            self.agent.interrupt_nowait()
            return "paused for the human"

        def approval(ms: int) -> str:
            """A tool that needs approval (its runs are counted per call).

            Args:
                ms: a number.
            """
            self.approval_runs.ran()
            return approval_tool(ms)

        toolkit.register_tool_function(sync_tool, name="sync", read_only=True)
        toolkit.register_tool_function(async_tool, name="async")
        toolkit.register_tool_function(stream_tool, name="stream")
        toolkit.register_tool_function(raises_tool, name="raises")
        toolkit.register_tool_function(swallows_tool, name="swallows")
        toolkit.register_tool_function(self_interrupt_tool, name="self_interrupt")
        toolkit.register_tool_function(approval, name="approval", needs_approval=True)
        toolkit.register_tool_function(ask_user, name="ask")
        return toolkit

    def _script(self, plan: EpisodePlan) -> None:
        self.turns = []
        for t, turn in enumerate(plan.turns):
            calls = []
            for call in turn.calls:
                kwargs: dict[str, Any] = {}
                if call.call_id == "unique":
                    pass
                elif call.call_id == "dup":
                    kwargs["id"] = f"dup{t}"
                else:
                    kwargs["id"] = call.call_id
                if call.kind in ("ask", "ask_bad"):
                    calls.append(ScriptedToolCall("ask", question_args(call.kind), **kwargs))
                else:
                    calls.append(ScriptedToolCall(call.kind, {"ms": call.ms}, **kwargs))
            text = " ".join(f"w{self.n}.{t}.{i}" for i in range(turn.text_tokens))
            self.turns.append(ScriptedTurn(text=text, tool_calls=calls))
        self.model.tokens_per_second = plan.tps

    # -- one episode ------------------------------------------------------------------------
    async def episode(self, plan: EpisodePlan) -> None:
        """Run one reply under ``plan`` and check every invariant (raises ``Violation``)."""
        agent = self.agent
        self.n += 1
        self._script(plan)
        start = start_episode(agent, plan.start, plan.pick, self.n)
        steering: list[tuple[Msg, bool]] = []
        pending: list[asyncio.Future[Any]] = []
        causes: set[str] = set()
        delivered = False  # an interrupt or cancel reached a running reply of this episode
        stop_asked = False
        cancelled_caller = False
        actions_done = 0
        reply_ids: list[str] = []
        loop = asyncio.get_running_loop()
        caller: asyncio.Task[Msg] | None = None

        def ours() -> bool:
            return agent.is_replying and agent._reply_id in reply_ids

        def act(how: str) -> None:
            nonlocal delivered, cancelled_caller, actions_done, stop_asked
            actions_done += 1
            if how == "stop_after_step":
                stop_asked = agent.stop_after_step_nowait() or stop_asked
            elif how in ("interrupt", "kernel", "interrupt_msg"):
                msg = Msg("User", f"steer {self.n}.{actions_done}", "user")
                cause = "kernel" if how == "kernel" else "interrupt"
                ok = agent.interrupt_nowait(msg if how == "interrupt_msg" else None, cause=cause)
                if how == "interrupt_msg":
                    steering.append((msg, ok))
                if ok:
                    delivered = True
                    causes.add(cause)
            elif how == "threadsafe":
                msg = Msg("User", f"steer {self.n}.{actions_done} (thread)", "user")
                live = ours()
                fut = loop.run_in_executor(
                    None, lambda: agent.interrupt_threadsafe(msg).result(WAIT_S)
                )

                async def remember() -> None:
                    steering.append((msg, await fut))

                pending.append(asyncio.ensure_future(remember()))
                if live:
                    causes.add("interrupt")
            elif how == "caller_cancel":
                assert caller is not None
                if ours():
                    delivered = True
                    causes.add("cancelled")
                if caller.cancel():
                    cancelled_caller = True
            elif how == "raw_cancel":
                task = agent._reply_task
                if task is not None and not task.done() and ours():
                    task.cancel()
                    delivered = True
                    causes.add("cancelled")

        def act_all() -> None:
            act(plan.how)
            if plan.second is not None:
                act(plan.second)

        seen: dict[str, int] = {}

        def on_event(e: Event) -> None:
            if e.reply_id not in reply_ids:
                return
            seen[e.kind] = seen.get(e.kind, 0) + 1
            if e.kind == "reply_started":
                return
            if plan.steer_kind == e.kind and seen[e.kind] == plan.steer_nth:
                self.steer(f"steered {self.n} on {e.kind}")
            if (
                plan.moment == "event"
                and actions_done == 0
                and e.kind == plan.event_kind
                and seen[e.kind] == plan.event_nth
            ):
                act_all()
            later = act_all if actions_done == 0 else None
            if e.kind == "approval_requested" and e.tool_use is not None:  # type: ignore[attr-defined]
                call = e.tool_use  # type: ignore[attr-defined]
                edit_ok = call.name == "approval"  # edited arguments fit the approval tool only
                self._decide(plan, call.id, later, pending, edit_ok)
            if e.kind == "question_asked":
                self._answer(plan, e.question_id, later, pending)  # type: ignore[attr-defined]

        sub = agent.subscribe(on_event)
        before = start.index
        try:
            caller = asyncio.create_task(start.call())
            await asyncio.sleep(0)  # the caller ran agent() up to its reply task's first step
            if agent._reply_id is not None and agent.is_replying:
                reply_ids.append(agent._reply_id)
            if plan.moment == "before_start":
                act_all()
            elif plan.moment == "iterations":
                for _ in range(plan.iterations):
                    if caller.done():
                        break
                    await asyncio.sleep(0)
                if not caller.done():
                    act_all()
            if plan.concurrent_call and agent.is_replying:
                other = Msg("User", "concurrent", "user")
                try:
                    await agent(other)
                except AgentBusyError:
                    pass
                else:
                    raise Violation("a concurrent agent() call did not raise AgentBusyError")
                if any(m.id == other.id for m in agent.memory.messages):
                    raise Violation("a refused concurrent call changed memory")
            done, _ = await asyncio.wait({caller}, timeout=WAIT_S)
            if not done:
                agent.interrupt_nowait()
                await asyncio.wait({caller}, timeout=WAIT_S)
                raise Violation(f"the reply did not end within {WAIT_S} s (plan {plan})")
            for fut in pending:
                await fut
        finally:
            sub.close()
        result: Msg | None = None
        if caller.cancelled():
            if not cancelled_caller:
                raise Violation("CancelledError reached a caller that was not cancelled")
        elif caller.exception() is not None:
            raise Violation(f"agent() raised {caller.exception()!r}")
        else:
            result = caller.result()
        if plan.how == "threadsafe" or plan.second == "threadsafe":
            delivered = delivered or any(ok for _, ok in steering)
        resumed = start.point.not_run + start.point.interrupted_calls if start.point else []
        if any(call.kind == "self_interrupt" for turn in plan.turns for call in turn.calls) or any(
            call.name == "self_interrupt" for call in resumed
        ):
            causes.add("interrupt")  # a tool of the reply (or one it resumes) may interrupt it
        question = find_question(start, agent.memory.messages)
        if start.edited_from is not None and question is None and not cancelled_caller:
            raise Violation("the edited question is not on the new branch")
        self._check_episode(question, before, result, steering, delivered, causes, cancelled_caller)
        self._check_stop(result, stop_asked, delivered)
        check_resume(start, self.model.calls)
        self.stats.starts[start.kind] += 1
        await self._check_no_tasks_left()
        self.check_memory()
        problem = self.approval_runs.check() or next(iter(self.outside_errors), None)
        if problem:
            raise Violation(problem)
        self.stats.episodes += 1
        self.stats.interrupts += int(delivered)

    def checkout(self, which: int) -> None:
        """Switch to one of the agent's branches (between replies)."""
        branches = self.agent.branches
        self.agent.checkout(branches[which % len(branches)])
        self.check_memory()

    def state_round_trip(self) -> None:
        """Save the agent's state as JSON and load it back: nothing may change."""
        agent = self.agent
        before = (agent.memory.messages, [b.id for b in agent.branches], agent.pending_steering)
        agent.load_state_dict(json.loads(json.dumps(agent.state_dict())))
        after = (agent.memory.messages, [b.id for b in agent.branches], agent.pending_steering)
        if before != after:
            raise Violation("the agent's state JSON round trip changed it")
        self.check_memory()

    def steer(self, text: str) -> None:
        """Steer the agent now (a reply may be running or not)."""
        msg = Msg("User", text, "user")
        self.steered.append(msg)
        self.agent.steer_nowait(msg)
        self.stats.steers += 1

    def _decide(
        self,
        plan: EpisodePlan,
        call_id: str,
        interrupt: Any,
        pending: list[Any],
        edit_ok: bool = True,
    ) -> None:
        agent = self.agent
        try:
            if plan.approval == "thread":  # from another thread at a random moment, twice
                decide = lambda: agent.decide(call_id, "approve")  # noqa: E731
                loop = asyncio.get_running_loop()
                pending.append(outside_twice(loop, plan.decide_ms, decide, self.outside_errors))
            elif plan.approval == "approve":
                agent.approve(call_id)
            elif plan.approval == "deny":
                agent.deny(call_id, "no")
            elif plan.approval == "edit":
                agent.approve(call_id, {"ms": 99} if edit_ok else None)
            elif interrupt is not None:  # left undecided: only an interrupt ends the wait
                interrupt()
                if plan.how == "stop_after_step" and plan.second in (None, "stop_after_step"):
                    agent.approve(call_id)  # a stop lets the batch finish: someone decides
            else:
                agent.approve(call_id)
        except ApprovalError:
            pass  # closed by an interrupt in the meantime: a legitimate refusal

    def _answer(
        self, plan: EpisodePlan, question_id: str, interrupt: Any, pending: list[Any]
    ) -> None:
        agent = self.agent
        try:
            if plan.approval == "thread":
                answer = lambda: agent.answer(question_id, "b")  # noqa: E731
                loop = asyncio.get_running_loop()
                pending.append(outside_twice(loop, plan.decide_ms, answer, self.outside_errors))
                return
            if plan.approval == "deny":  # a choice not offered first: refused, still waiting
                try:
                    agent.answer(question_id, "zzz")
                except ApprovalError as exc:
                    if "not one of the choices" not in str(exc):
                        raise Violation(f"a bad answer was refused oddly: {exc}") from None
                else:
                    raise Violation("an answer that was not a choice was accepted")
            if plan.approval == "none" and interrupt is not None:
                interrupt()
                if plan.how == "stop_after_step" and plan.second in (None, "stop_after_step"):
                    agent.answer(question_id, "a")
                return
            agent.answer(question_id, "a")
        except ApprovalError:
            pass  # closed by an interrupt in the meantime

    def _check_stop(self, result: Msg | None, asked: bool, delivered: bool) -> None:
        if result is None or not result.metadata.get("stopped_after_step"):
            return
        self.stats.stopped += 1
        if not asked:
            raise Violation("a reply stopped after a step that nobody asked to stop")
        if result.is_interrupted or delivered:
            raise Violation("a reply both stopped after a step and was interrupted")
        if self.agent.memory.messages[-1].id != result.id:
            raise Violation("the stopped-after-step message is not the reply's last message")

    def _check_episode(
        self,
        question: Msg | None,
        before: int,
        result: Msg | None,
        steering: list[tuple[Msg, bool]],
        delivered: bool,
        causes: set[str],
        cancelled_caller: bool,
    ) -> None:
        msgs = self.agent.memory.messages
        ids = [m.id for m in msgs]
        if self.agent.is_replying:
            raise Violation("the agent still says it is replying")
        if question is None:
            after = msgs[before:]
        elif question.id not in ids:
            if cancelled_caller and len(msgs) <= before:
                return  # cancelled before agent() even ran: nothing happened, correctly
            raise Violation("the user's message is missing from memory")
        else:
            if ids.count(question.id) != 1:
                raise Violation("the user's message was recorded more than once")
            after = msgs[ids.index(question.id) + 1 :]
        n_interrupted = sum(m.is_interrupted for m in after)
        interrupted = n_interrupted > 0
        if n_interrupted > 1:
            raise Violation(f"{n_interrupted} interrupted messages for one reply")
        if delivered and not interrupted:
            raise Violation("an accepted interrupt did not end the reply interrupted")
        if result is not None:
            if result.is_interrupted != interrupted:
                raise Violation("the returned message disagrees with memory")
            if result.id not in ids:
                raise Violation("the returned message is not in memory")
        if interrupted:
            self.stats.interrupted += 1
            marker = next(m for m in after if m.is_interrupted)
            by = marker.metadata.get("interrupted_by")
            self.stats.where[str(marker.metadata.get("interrupted_at")).split(":")[0]] += 1
            self.stats.by[str(by)] += 1
            if causes and by not in causes:
                raise Violation(f"interrupted_by={by!r}, but the causes were {sorted(causes)}")
            tail = after[after.index(marker) + 1 :]
            recorded = [m.id for m in tail]
            wanted = [m.id for m, ok in steering if ok]
            threads = sum("(thread)" in (m.get_text_content() or "") for m, _ in steering)
            if recorded != wanted and not (threads > 1 and sorted(recorded) == sorted(wanted)):
                # two threads' interrupt(msg) reach the loop in an order no one fixes
                raise Violation(
                    f"steering messages after the interrupted one: {recorded}, "
                    f"expected those accepted: {wanted}"
                )
        for m, ok in steering:
            if not ok and m.id in ids:
                raise Violation("a refused interrupt(msg) was recorded anyway")
            if ok and ids.count(m.id) != 1:
                raise Violation("an accepted interrupt(msg) was not recorded exactly once")

    async def _check_no_tasks_left(self) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        me = asyncio.current_task()
        left = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
        if left:
            raise Violation(f"tasks left running: {left}")

    def check_memory(self) -> None:
        """Invariants from the message data alone (every branch's history included)."""
        agent = self.agent
        memory = agent.memory
        check_history(memory.messages)
        check_continuations(memory.messages)
        branches = [memory.messages]
        for history in agent.branch_table.stored_histories():
            check_history(history)
            check_continuations(history)
            branches.append(history)
        queued = [m.id for m in agent.pending_steering]
        for m in self.steered:
            counts = [[x.id for x in msgs].count(m.id) for msgs in branches]
            if max(counts) > 1 or int(any(counts)) + queued.count(m.id) != 1:
                raise Violation(
                    f"steered message {m.get_text_content()!r}: recorded {counts} times on the "
                    f"branches, {queued.count(m.id)} times queued (lost or duplicated)"
                )
        prompt = self.agent.formatter.format_sync(self.agent.prompt_msgs())
        try:
            assert_prompt_valid(prompt)
        except AssertionError as exc:
            raise Violation(f"invalid prompt: {exc}") from None
        if isinstance(memory, StoredMemory):
            return  # its state is the summary alone: the store is checked against it instead
        state = json.loads(json.dumps(memory.state_dict()))
        copy = InMemoryMemory()
        copy.load_state_dict(state)
        if copy.messages != memory.messages or copy.summary != memory.summary:
            raise Violation("memory JSON round trip is lossy")
        if any(copy.marks_of(m.id) != memory.marks_of(m.id) for m in memory.messages):
            raise Violation("memory JSON round trip lost marks")

    async def replies_normally(self) -> None:
        """The agent answers a plain question normally (after whatever happened before)."""
        self.turns = [ScriptedTurn(text="All good.")]
        self.model.tokens_per_second = 1e6
        reply = await asyncio.wait_for(self.agent(Msg("User", "still there?", "user")), WAIT_S)
        if reply.is_interrupted or reply.get_text_content() != "All good.":
            raise Violation(f"the agent did not reply normally afterwards: {reply}")
        if self.agent.pending_steering:
            raise Violation("steering still queued after a reply that ran to its end")
        self.check_memory()


def check_history(msgs: list[Msg]) -> None:
    """Every ``tool_use`` id is unique and answered exactly once, after it; no stray result."""
    used_at: dict[str, int] = {}
    answered: dict[str, int] = {}
    for i, m in enumerate(msgs):
        for b in m.get_content_blocks("tool_use"):
            if not b.id or b.id in used_at:
                raise Violation(f"tool_use id {b.id!r} is empty or not unique")
            used_at[b.id] = i
        for b in m.get_content_blocks("tool_result"):
            if b.id not in used_at:
                raise Violation(f"tool_result {b.id!r} answers no earlier tool_use")
            if b.id in answered:
                raise Violation(f"tool_use {b.id!r} answered twice")
            answered[b.id] = i
    missing = set(used_at) - set(answered)
    if missing:
        raise Violation(f"tool_use ids never answered: {sorted(missing)}")
