"""One AG-UI run: start or continue the thread's reply, stream its events, park or finish.

An ``ActiveRun`` subscribes to the agent's events before it does anything, then:

1. sends ``RUN_STARTED``, ``MESSAGES_SNAPSHOT`` (the history with this run's new input) and
   ``STATE_SNAPSHOT``;
2. acts: replies to the new message (a reply parked on approvals is interrupted first, as in
   the kernel), continues an interrupted reply (``agent.resume()``), or resumes a parked one
   with the run's answers (a reply loaded from the store by another worker is resumed with
   ``agent.resume_pending()`` and the answers are given when its questions come back);
3. translates each nb_hitl event into AG-UI events (``RunTranslator``) until the reply ends or
   parks on approvals/questions nobody answered;
4. sends the closing ``MESSAGES_SNAPSHOT`` and ``STATE_SNAPSHOT``, saves the thread, and ends
   with ``RUN_FINISHED`` (outcome ``success``, ``cancelled`` or ``interrupt``) or ``RUN_ERROR``.

Stop (``request_stop``: the stop endpoint, or the client going away) is ``agent.interrupt()``:
the reply ends with the same interrupted message and memory as in the kernel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
)
from ag_ui.encoder import EventEncoder

from nb_hitl.events import ApprovalRequested, Event, MessageUpdated, QuestionAsked
from nb_hitl.exceptions import ApprovalError, NbHitlError
from nb_hitl.message import MetaKey, Msg

from ._convert import messages_to_agui, pending_interrupts
from ._state import agent_state
from ._threads import settle
from ._translate import RunTranslator

if TYPE_CHECKING:
    from ._cluster import RunLease
    from ._threads import Threads, ThreadSlot

__all__ = ["ActiveRun", "RunPlan", "apply_answer"]

logger = logging.getLogger("nb_hitl.serve")
Mode = Literal["message", "resume", "continue", "reattach"]
_DONE = object()


@dataclass
class RunPlan:
    """What a run does, decided (and checked) before its stream starts."""

    mode: Mode
    new_msgs: list[Msg] = field(default_factory=list)
    answers: dict[str, ResumeEntry] = field(default_factory=dict)
    """Resume entries by interrupt id, not yet given to the agent."""


def apply_answer(agent: Any, entry: ResumeEntry, question_id: str | None) -> bool:
    """Give ``entry`` to the agent: a decision on a waiting call, or answers to a question.

    Returns False when the answer is to stop the parked reply (a cancelled question).

    Raises:
        ApprovalError: the agent refused it (unknown call, bad arguments, a choice not offered).
    """
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    if question_id is not None:
        if entry.status == "cancelled":
            return False
        answers = payload["answers"] if "answers" in payload else entry.payload
        agent.answer(question_id, answers)
        return True
    if entry.status == "cancelled":
        agent.decide(entry.interrupt_id, "deny", reason=str(payload.get("reason") or "cancelled"))
        return True
    word = payload.get("decision", "approve")
    if word not in ("approve", "edit", "deny"):
        raise ApprovalError(
            f"Unknown decision {word!r} for tool call {entry.interrupt_id!r}: send "
            '{"decision": "approve"}, {"decision": "edit", "arguments": {...}} or '
            '{"decision": "deny", "reason": "..."}.'
        )
    agent.decide(
        entry.interrupt_id,
        word,
        arguments=payload.get("arguments") if word == "edit" else None,
        reason=str(payload.get("reason") or ""),
    )
    return True


class ActiveRun:
    """A run streaming on a thread (see the module docstring)."""

    def __init__(
        self,
        threads: Threads,
        slot: ThreadSlot,
        run_id: str,
        plan: RunPlan,
        history: list[Msg],
        lease: RunLease | None = None,
    ) -> None:
        self.threads = threads
        self.slot = slot
        self.agent: Any = slot.agent  # ReActAgent, or any AgentBase (resume may be missing)
        self.run_id = run_id
        self.plan = plan
        self.finished = False
        self.stop_requested = ""
        self.out: asyncio.Queue[BaseEvent | None] = asyncio.Queue()
        self._events: asyncio.Queue[Any] = asyncio.Queue()
        self._sub = self.agent.subscribe(self._events.put_nowait)
        snapshot = messages_to_agui([*history, *plan.new_msgs])
        self.translator = RunTranslator(known_ids={m.id for m in snapshot})
        self._snapshot = snapshot
        self.errors: list[str] = []
        self._state: dict[str, Any] = agent_state(self.agent)
        self.driver: asyncio.Task[None] | None = None
        self.lease = lease
        """The thread's run lock among workers (a shared Redis), given back as the run ends."""

    def start(self) -> None:
        """Start driving the run (its events go to ``out``)."""
        self.driver = self.threads.spawn(self._drive())

    # -- the client side ---------------------------------------------------------------------
    async def stream(self) -> AsyncIterator[str]:
        """The run's SSE lines; a client that goes away stops the reply (``agent.interrupt()``)."""
        encoder = EventEncoder()
        try:
            while True:
                events = [await self.out.get()]
                while not self.out.empty() and len(events) < 256:
                    events.append(self.out.get_nowait())  # one write for what is ready
                done = events[-1] is None
                text = "".join(encoder.encode(e) for e in events if e is not None)
                if text:
                    yield text
                if done:
                    return
        finally:
            if not self.finished:
                self.request_stop("disconnect")

    def request_stop(self, why: str = "stop") -> bool:
        """Interrupt the run's reply (now, or as soon as it starts). False: already over."""
        if self.finished or self.stop_requested:
            return not self.finished
        self.stop_requested = why
        if self.slot.reply is not None and not self.slot.reply.done():
            self.threads.spawn(self.agent.interrupt())
        return True

    # -- the driver --------------------------------------------------------------------------
    def _put(self, *events: BaseEvent) -> None:
        for event in events:
            self.out.put_nowait(event)

    async def _drive(self) -> None:
        slot = self.slot
        try:
            self._put(
                RunStartedEvent(
                    thread_id=slot.thread_id, run_id=self.run_id, protocol_version="1.0"
                ),
                MessagesSnapshotEvent(messages=self._snapshot),
                StateSnapshotEvent(snapshot=self._state),
            )
            await self._act()
            if self.stop_requested and slot.reply is not None and not slot.reply.done():
                await self.agent.interrupt()
            parked = await self._pump()
            await self._finish(parked)
        except Exception as exc:  # a bug here must still end the stream with a reason
            logger.exception("run %s on thread %s failed", self.run_id, slot.thread_id)
            self._put(*self.translator.close_open())
            self._put(RunErrorEvent(message=f"{type(exc).__name__}: {exc}", code="server_error"))
        finally:
            self._sub.close()
            if self.lease is not None:
                await self.lease.release()
            self.finished = True
            if slot.run is self:
                slot.run = None
            self.out.put_nowait(None)

    def _start_reply(self, coro: Any) -> None:
        task: asyncio.Task[Msg] = asyncio.get_running_loop().create_task(coro)
        task.add_done_callback(lambda _: self._events.put_nowait(_DONE))
        self.slot.reply = task

    async def _act(self) -> None:
        slot, agent, plan = self.slot, self.agent, self.plan
        if plan.mode == "message":
            if slot.reply is not None and not slot.reply.done():
                await agent.interrupt()  # parked on approvals: closed, as a new message does
                await settle(slot.reply, f"the parked reply on thread {slot.thread_id}")
            if not plan.new_msgs:  # only steering the agent queued: agent() takes it in
                self._start_reply(agent())
                return
            *earlier, last = plan.new_msgs
            if earlier:
                await agent.observe(earlier)
            self._start_reply(agent(last))
        elif plan.mode == "continue":
            instruction: Msg | None = None  # Continue with an instruction, or without
            if plan.new_msgs:
                *earlier, instruction = plan.new_msgs
                if earlier:
                    await agent.observe(earlier)
            self._start_reply(agent.resume(instruction))
        elif plan.mode == "resume":
            if slot.reply is not None and not slot.reply.done():
                slot.reply.add_done_callback(lambda _: self._events.put_nowait(_DONE))
                self._give_answers()
            else:
                self._give_answers()  # approvals loaded from the store wait already
                self._start_reply(agent.resume_pending())
        elif slot.reply is not None and not slot.reply.done():  # reattach to a parked reply
            slot.reply.add_done_callback(lambda _: self._events.put_nowait(_DONE))

    def _give_answers(self) -> None:
        """Answer what the agent waits on now, from the run's resume entries."""
        questions = {q.call_id or q.question_id: q.question_id for q in self._questions()}
        approvals = {p.call_id for p in getattr(self.agent, "pending_approvals", [])}
        for interrupt_id in list(self.plan.answers):
            if interrupt_id not in questions and interrupt_id not in approvals:
                continue
            entry = self.plan.answers.pop(interrupt_id)
            try:
                go_on = apply_answer(self.agent, entry, questions.get(interrupt_id))
            except (ApprovalError, NbHitlError, ValueError) as exc:
                self.errors.append(f"{interrupt_id}: {exc}")
                continue
            if not go_on:
                self.threads.spawn(self.agent.interrupt())

    def _questions(self) -> list[Any]:
        return [
            q
            for q in getattr(self.agent, "pending_questions", [])
            if q.future is None or not q.future.done()
        ]

    def _parked_now(self) -> bool:
        reply = self.slot.reply
        return (
            reply is not None
            and not reply.done()
            and self.agent.is_replying  # a reply loaded from the store parks once it runs
            and bool(pending_interrupts(self.agent))
        )

    async def _pump(self) -> bool:
        """Translate events until the reply ends (False) or parks unanswered (True)."""
        reply = self.slot.reply
        if reply is None or reply.done():
            return False
        while True:
            if self._events.empty() and self._parked_now():
                if self.plan.answers:
                    self._give_answers()  # asked again (a reply loaded from the store)
                for _ in range(3):  # let events already emitted reach the queue
                    await asyncio.sleep(0)
                if self._events.empty() and self._parked_now():
                    return True
                continue
            item = await self._events.get()
            if item is _DONE:
                if reply.done():
                    return False
                continue
            event: Event = item
            self._put(*self.translator.translate(event))
            if not isinstance(event, MessageUpdated):  # state moves per step, not per token
                self._state_delta()
            if isinstance(event, (ApprovalRequested, QuestionAsked)) and self.plan.answers:
                self._give_answers()

    def _state_delta(self) -> None:
        """``STATE_DELTA`` (JSON Patch ``replace`` of top-level keys) when the state changed."""
        state = agent_state(self.agent)
        ops = [
            {"op": "replace" if key in self._state else "add", "path": f"/{key}", "value": value}
            for key, value in state.items()
            if self._state.get(key, _DONE) != value
        ]
        if ops:
            self._state = state
            self._put(StateDeltaEvent(delta=ops))

    async def _finish(self, parked: bool) -> None:
        slot, agent = self.slot, self.agent
        self._put(*self.translator.close_open())
        memory = await agent.memory.get_memory(prepend_summary=False)
        self._put(
            MessagesSnapshotEvent(messages=messages_to_agui(memory)),
            StateSnapshotEvent(snapshot=agent_state(agent)),
        )
        interrupts = pending_interrupts(agent) if parked else []
        if parked and self.errors:
            for interrupt in interrupts:
                interrupt.metadata = {**(interrupt.metadata or {}), "errors": self.errors}
        terminal: BaseEvent
        if parked:
            terminal = RunFinishedEvent(
                thread_id=slot.thread_id,
                run_id=self.run_id,
                outcome=RunFinishedInterruptOutcome(interrupts=interrupts),
            )
        else:
            reply, slot.reply = slot.reply, None
            terminal = self._ended(reply)
        try:
            await self.threads.save(
                slot, [i.model_dump(mode="json", by_alias=True) for i in interrupts]
            )
        except Exception as exc:  # told to the client as the run's error, not lost
            terminal = RunErrorEvent(
                message=f"The reply ended but thread {slot.thread_id!r} was not saved: "
                f"{type(exc).__name__}: {exc}",
                code="save_failed",
            )
        if self.lease is not None:  # saved: the next run may start on any worker now
            await self.lease.release()
        self._put(terminal)

    def _ended(self, reply: asyncio.Task[Msg] | None) -> BaseEvent:
        ids = dict(thread_id=self.slot.thread_id, run_id=self.run_id)
        if reply is None:
            return RunFinishedEvent(**ids, outcome=RunFinishedSuccessOutcome())
        if reply.cancelled():
            return RunFinishedEvent(**ids, outcome=RunFinishedCancelledOutcome())
        exc = reply.exception()
        if exc is not None:
            return RunErrorEvent(message=f"{type(exc).__name__}: {exc}", code=type(exc).__name__)
        msg = reply.result()
        if msg.metadata.get(MetaKey.IS_INTERRUPTED):
            return RunFinishedEvent(
                **ids, outcome=RunFinishedCancelledOutcome(), result={"messageId": msg.id}
            )
        return RunFinishedEvent(
            **ids, outcome=RunFinishedSuccessOutcome(), result={"messageId": msg.id}
        )
