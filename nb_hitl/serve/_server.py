"""``AgentServer``: AG-UI runs, stops, steering and history over nb_hitl agents, HTTP aside.

The web layer (``_app.py``) parses requests and calls these methods; everything a request may
get wrong is checked here first and refused with a ``ServeError`` (HTTP status, code, what to
do) before a run starts, so a refused request changes nothing.

Input rules (docs/serve.md): the server's memory is the thread's history. Of
``RunAgentInput.messages`` only messages with ids the server does not know are new input, and
they must be user messages with text. A run with ``resume`` entries answers the interrupts the
thread waits on; a run with neither is *Continue* (``agent.resume()``), or, when the thread is
parked, re-sends the pending interrupts.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any

from ag_ui.core import Interrupt, RunAgentInput

from nb_hitl.events import ApprovalRequested, QuestionAsked
from nb_hitl.exceptions import ServeError
from nb_hitl.message import MetaKey, Msg

from ._cluster import run_locks_for
from ._convert import messages_to_agui, pending_interrupts
from ._input import MAX_TEXT, check_resume, user_msg
from ._run import ActiveRun, RunPlan
from ._state import agent_state
from ._threads import (
    AgentFactory,
    PermissionsFile,
    Threads,
    ThreadSlot,
    check_thread_id,
    settle,
)

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.session import SessionBase

__all__ = ["AgentServer"]


class AgentServer:
    """nb_hitl agents behind AG-UI: one agent per thread, saved after every run.

    Args:
        agent_or_factory: a function building a fresh agent (given the thread id when it
            has a ``thread_id`` or a required first parameter), or one agent instance (then
            the server has one thread).
        session: where threads are saved: a ``JSONSession``, ``RedisSession`` or any
            ``SessionBase`` (None: kept in this process only, gone on restart).
        max_idle_threads: idle threads kept in memory; older ones are loaded again on use.
        run_lock_ttl: with a ``RedisSession``, seconds a worker's run lock on a thread
            outlives its last renewal (a killed worker's threads take runs again after it).
        permissions_file: each served agent's own permission rules file (a path, or
            ``f(thread_id) -> path``) instead of the process-wide user file: its ``always``
            rules are read from and written there.
    """

    def __init__(
        self,
        agent_or_factory: AgentBase | AgentFactory,
        session: SessionBase | None = None,
        *,
        max_idle_threads: int = 1000,
        run_lock_ttl: float = 30.0,
        permissions_file: PermissionsFile | None = None,
    ) -> None:
        from nb_hitl.agent import AgentBase

        if isinstance(agent_or_factory, AgentBase):
            self.threads = Threads(
                None, session, single=agent_or_factory, permissions_file=permissions_file
            )
            self.name = agent_or_factory.name
        elif callable(agent_or_factory):
            self.threads = Threads(
                agent_or_factory,
                session,
                max_idle=max_idle_threads,
                permissions_file=permissions_file,
            )
            self.name = getattr(agent_or_factory, "__name__", "agent")
        else:
            raise TypeError(
                f"serve() takes an agent or a function that builds one, got "
                f"{type(agent_or_factory).__name__}."
            )
        self.locks = run_locks_for(session, run_lock_ttl)
        """Cross-worker run locks and stops (a shared Redis store), else None."""
        if self.locks is not None:
            self.locks.on_stop = self._stop_broadcast

    # -- runs --------------------------------------------------------------------------------
    async def start_run(self, data: RunAgentInput) -> ActiveRun:
        """Check ``data`` against the thread, then start the run (its events: ``run.stream()``).

        Raises:
            ServeError: 409 a run is in progress on the thread; 422 bad input (what to fix).
        """
        thread_id = check_thread_id(data.thread_id)
        run_id = data.run_id or uuid.uuid4().hex
        async with self.threads.lock(thread_id):
            local = self.threads.slots.get(thread_id)
            if local is not None and local.busy and local.run is not None:
                raise _busy(thread_id, local.run.run_id)
            lease = None
            if self.locks is not None:  # one run per thread among all the workers
                lease = await self.locks.acquire(thread_id, run_id)
                if lease is None:
                    raise _busy(thread_id, await self.locks.holder(thread_id) or "?")
            try:
                slot = await self.threads.slot(thread_id)
                if slot.busy:
                    raise _busy(thread_id, slot.run.run_id if slot.run else "?")
                history = await slot.agent.memory.get_memory(prepend_summary=False)
                plan = self._plan(slot, data, history)
            except BaseException:
                if lease is not None:
                    await lease.release()
                raise
            run = ActiveRun(self.threads, slot, run_id, plan, history, lease=lease)
            slot.run = run
            run.start()
            if self.locks is not None and self.locks.take_early_stop(thread_id, run_id):
                run.request_stop("stop")  # a stop came through another worker meanwhile
            return run

    def _plan(self, slot: ThreadSlot, data: RunAgentInput, history: list[Msg]) -> RunPlan:
        known = {m.id for m in history} | {m.id for m in messages_to_agui(history)}
        new = [m for m in data.messages if m.id not in known]
        msgs = [user_msg(m, slot.agent) for m in new]
        waiting = self._waiting(slot)
        if data.resume:
            if msgs:
                raise ServeError(
                    422,
                    "bad_input",
                    "A run with `resume` answers the pending interrupts; send new messages "
                    "in a run of their own (without `resume`).",
                )
            return RunPlan("resume", answers=check_resume(data.resume, waiting))
        if msgs and _continue_instruction(new[-1]) and getattr(slot.agent, "can_resume", False):
            return RunPlan("continue", new_msgs=msgs)  # Continue with an instruction
        if msgs:
            return RunPlan("message", new_msgs=msgs)
        if waiting:
            return RunPlan("reattach")
        if getattr(slot.agent, "pending_steering", None):  # steering queued after a reply
            return RunPlan("message")  # ended: a new reply takes it in, as agent() does
        if not getattr(slot.agent, "can_resume", False):
            raise ServeError(
                422,
                "nothing_to_continue",
                f"The run has no new user message and thread {slot.thread_id!r} has no "
                "interrupted reply to continue: add a user message with a new id to "
                "`messages`.",
            )
        return RunPlan("continue")

    def _waiting(self, slot: ThreadSlot) -> list[dict[str, Any]]:
        """The interrupts the thread waits on (JSON): live ones, else those saved with it."""
        if slot.parked:
            return [
                i.model_dump(mode="json", by_alias=True) for i in pending_interrupts(slot.agent)
            ]
        return list(slot.record.interrupts) if slot.reply is None else []

    # -- outside a run -----------------------------------------------------------------------
    async def interrupt(self, thread_id: str, run_id: str | None = None) -> dict[str, Any]:
        """Stop the thread's run (``agent.interrupt()``), or a reply parked between runs.

        A reply parked on approvals or questions is stopped wherever it was parked: live in
        this process, or saved in the store by another worker (or before a restart), where it
        is loaded, resumed and interrupted, so memory ends as after an in-kernel Stop. A run
        streaming on another worker (a shared Redis) is stopped through the stop broadcast.
        """
        check_thread_id(thread_id)
        slot = self.threads.slots.get(thread_id)
        if slot is not None and slot.run is not None and not slot.run.finished:
            return self._stop_run(slot, run_id)
        if self.locks is not None:
            holder = await self.locks.holder(thread_id)
            if holder is not None:  # a run streams on another worker (or is starting here)
                return await self._stop_elsewhere(thread_id, holder, run_id)
        async with self.threads.lock(thread_id):
            slot = await self.threads.slot(thread_id)
            if slot.run is not None and not slot.run.finished:
                return self._stop_run(slot, run_id)
            lease = None
            if self.locks is not None and (slot.parked or slot.record.interrupts):
                lease = await self.locks.acquire(thread_id, "stop-" + uuid.uuid4().hex[:12])
                if lease is None:  # a run started on another worker meanwhile
                    holder = await self.locks.holder(thread_id)
                    return await self._stop_elsewhere(thread_id, holder or "?", run_id)
            try:
                return await self._stop_parked(slot)
            finally:
                if lease is not None:
                    await lease.release()

    async def _stop_parked(self, slot: ThreadSlot) -> dict[str, Any]:
        """Stop the reply parked on the thread (live here, or loaded from the store)."""
        if not slot.parked:
            if slot.reply is not None or not slot.record.interrupts:
                return {"interrupted": False, "reason": "no run in progress"}
            asked = asyncio.Event()
            sub = slot.agent.subscribe(
                lambda e: asked.set() if isinstance(e, (ApprovalRequested, QuestionAsked)) else None
            )
            slot.reply = asyncio.get_running_loop().create_task(
                slot.agent.resume_pending()  # type: ignore[attr-defined]
            )
            waiter = asyncio.ensure_future(asked.wait())
            try:  # until the loaded reply parks again (a Stop before that re-parks it)
                await asyncio.wait(
                    {waiter, slot.reply}, timeout=10, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                waiter.cancel()
                sub.close()
        reply = slot.reply
        await slot.agent.interrupt()
        if reply is not None:
            await settle(reply, f"the stopped reply on thread {slot.thread_id}")
        slot.reply = None
        await self.threads.save(slot, [])
        return {"interrupted": True, "parked": True}

    async def _stop_elsewhere(
        self, thread_id: str, holder: str, run_id: str | None
    ) -> dict[str, Any]:
        """Stop the run ``holder`` streaming on another worker: broadcast it (``RunLocks``)."""
        assert self.locks is not None
        if run_id and run_id != holder:
            raise _other_run(run_id, holder)
        heard = await self.locks.broadcast_stop(thread_id, holder)
        if not heard:
            return {"interrupted": False, "reason": "no worker holds the run"}
        return {"interrupted": True, "runId": holder}

    def _stop_broadcast(self, thread_id: str, run_id: str | None) -> bool:
        """A stop broadcast by another worker: stop the run if it streams here."""
        slot = self.threads.slots.get(thread_id)
        if slot is None or slot.run is None or slot.run.finished:
            return False
        if run_id not in (None, slot.run.run_id):
            return False
        slot.run.request_stop("stop")
        return True

    def _stop_run(self, slot: ThreadSlot, run_id: str | None) -> dict[str, Any]:
        run = slot.run
        assert run is not None
        if run_id and run_id != run.run_id:
            raise _other_run(run_id, run.run_id)
        return {"interrupted": run.request_stop("stop"), "runId": run.run_id}

    async def steer(self, thread_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Give the running reply a new user message at its next step (``agent.steer``)."""
        check_thread_id(thread_id)
        content = body.get("content")
        if not isinstance(content, str) or not content.strip() or len(content) > MAX_TEXT:
            raise ServeError(
                422,
                "bad_input",
                f'Steering needs {{"content": "text"}} (1-{MAX_TEXT} characters).',
            )
        slot = self.threads.slots.get(thread_id)
        if slot is None or not slot.busy:
            raise ServeError(
                409,
                "no_run",
                f"No run is in progress on thread {thread_id!r}: send the message as a new "
                "run (POST to the run endpoint) instead.",
            )
        name = body.get("name") if isinstance(body.get("name"), str) else "user"
        extra: dict[str, Any] = {}
        if isinstance(body.get("id"), str) and body["id"]:
            extra["id"] = body["id"]
        msg = Msg(name or "user", content, "user", **extra)
        steer = getattr(slot.agent, "steer", None)  # ReActAgent's; not every AgentBase steers
        if steer is None:
            raise ServeError(
                409, "cannot_steer", f"{type(slot.agent).__name__} takes no steering messages."
            )
        queued = await steer(msg)
        return {"queued": bool(queued), "messageId": msg.id}

    async def history(self, thread_id: str) -> dict[str, Any]:
        """The thread's messages, state and pending interrupts, without running anything."""
        check_thread_id(thread_id)
        async with self.threads.lock(thread_id):
            slot = await self.threads.slot(thread_id)
            memory = await slot.agent.memory.get_memory(prepend_summary=False)
            waiting = self._waiting(slot)
        return {
            "threadId": thread_id,
            "exists": bool(memory) or slot.record.version > 0,
            "running": slot.busy,
            "messages": [
                m.model_dump(mode="json", by_alias=True) for m in messages_to_agui(memory)
            ],
            "state": agent_state(slot.agent),
            "interrupts": [
                Interrupt.model_validate(i).model_dump(mode="json", by_alias=True) for i in waiting
            ],
        }

    def info(self) -> dict[str, Any]:
        """What this server can do (``GET {path}/info``)."""
        return {
            "protocolVersion": "1.0",
            "server": "nb_hitl",
            "agent": self.name,
            "capabilities": {
                "stop": True,
                "steer": True,
                "resume": True,
                "continue": True,
                "history": True,
                "persistent": self.threads.session is not None,
            },
        }

    async def aclose(self) -> None:
        """Stop every running or parked reply (server shutdown); nothing more is saved."""
        for slot in list(self.threads.slots.values()):
            if slot.run is not None and not slot.run.finished:
                slot.run.request_stop("shutdown")
        # A failed task is logged by its done callback (Threads._forget_task).
        await asyncio.gather(*self.threads.background, return_exceptions=True)
        if self.locks is not None:
            await self.locks.aclose()


def _busy(thread_id: str, run_id: str) -> ServeError:
    return ServeError(
        409,
        "busy",
        f"A run ({run_id}) is in progress on thread {thread_id!r}. Stop it (POST "
        f".../threads/{thread_id}/interrupt), steer it (POST .../threads/{thread_id}/steer), "
        "or wait for its RUN_FINISHED.",
    )


def _other_run(run_id: str, running: str) -> ServeError:
    return ServeError(
        409,
        "other_run",
        f"Run {run_id!r} is not the run in progress ({running!r}); nothing was stopped.",
    )


def _continue_instruction(message: Any) -> bool:
    """Whether a new user message is an instruction for Continue (``RemoteAgent.resume(...)``
    marks it in ``metadata["nb_hitl"]``): the interrupted reply goes on, then follows it."""
    meta = getattr(message, "metadata", None)
    flags = meta.get("nb_hitl") if isinstance(meta, dict) else None
    return isinstance(flags, dict) and bool(flags.get(MetaKey.RESUME_INSTRUCTION))
