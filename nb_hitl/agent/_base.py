"""AgentBase: a reply that runs as a task of its own and can be interrupted anywhere.

The AgentScope 1.x model, without its defects:

- ``await agent(msg)`` starts ``reply()`` in a *new* task (``agent._reply_task``) and awaits it
  through a shield, so interrupting never cancels the caller.
- ``await agent.interrupt()`` cancels that task; the ``CancelledError`` is caught inside it and
  ``handle_interrupt()`` returns a ``Msg`` with ``metadata["_is_interrupted"] = True``.
- An interrupt that arrives before the task's first step is remembered, not dropped.
- A second interrupt (or a raw ``cancel()``) while ``handle_interrupt()`` runs is absorbed
  (it runs in a shielded inner task), so exactly one interrupted message results and no
  ``CancelledError`` leaks to the caller.
- Cancellations that code inside the reply makes for itself (``asyncio.timeout``, anyio and
  httpx cancel scopes) stay theirs: the reply task is a plain task awaited through a shield.
- The reply task ``uncancel()``s itself after catching the interrupt, so nothing downstream
  sees a stale cancellation request.
- If the *caller* is cancelled (a notebook's interrupt-kernel on an awaiting cell), the reply is
  interrupted the same graceful way (``metadata["interrupted_by"] == "cancelled"``), and the
  caller still sees its own cancellation.
- A second concurrent ``agent()`` call raises ``AgentBusyError`` instead of interleaving memory.
- The message given to ``interrupt(msg)`` is recorded in memory after the interrupted reply.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import types
import uuid
from collections.abc import AsyncIterator, Coroutine, Generator
from typing import Any

from nb_hitl.events import (
    ErrorOccurred,
    Event,
    EventBus,
    Handler,
    Interrupted,
    MessageAdded,
    ReplyFinished,
    ReplyStarted,
    Subscription,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import Msg

from . import _registry

_DIRECT_AWAIT = sys.version_info >= (3, 11)
"""Await the reply task directly (needs ``Task.cancelling()``, Python 3.11+)."""

DEFAULT_INTERRUPT_TEXT = "[Interrupted] The agent was interrupted by the user."


def _uncancel(task: asyncio.Task[Any] | None) -> None:
    # Task.uncancel() exists from Python 3.11; 3.10 keeps no cancellation count to clean up.
    if task is not None and hasattr(task, "uncancel"):
        while task.cancelling():  # type: ignore[attr-defined,unused-ignore]
            task.uncancel()


@types.coroutine
def _resume_steps(coro: Coroutine[Any, Any, Msg], pending: Any) -> Generator[Any, Any, Msg]:
    # Go on driving a coroutine that was stepped by hand and suspended on ``pending``,
    # exactly as ``await coro`` would have (same futures, values and exceptions).
    while True:
        try:
            sent = yield pending
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:  # thrown in by the task: pass it on
            try:
                pending = coro.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                pending = coro.send(sent)
            except StopIteration as done:
                return done.value


async def _resume(coro: Coroutine[Any, Any, Msg], pending: Any) -> Msg:
    return await _resume_steps(coro, pending)


class AgentBase:
    """Base class of agents: the reply task, interruption, events and state.

    Subclasses implement ``reply(msg)`` and may override ``handle_interrupt()``; they update
    ``self._where`` as they go so the interrupted message can say where it landed.
    """

    memory: Any = None

    def __init__(self, name: str, *, interrupt_text: str = DEFAULT_INTERRUPT_TEXT) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(
                "An agent needs a non-empty name, e.g. ReActAgent(name='Friday', ...)."
            )
        self.name = name
        self.interrupt_text = interrupt_text
        self._bus = EventBus()
        self._reply_task: asyncio.Task[Msg] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reply_id: str | None = None
        self._task_started = False
        self._interrupt_requested = False
        self._handling_interrupt = False
        self._interrupt_msgs: list[Msg] = []
        self._where = ""
        self._interrupt_cause = "interrupt"
        _registry.register(self)  # weakly: lets the notebook extension find running replies

    # -- to implement ------------------------------------------------------------------------
    async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Produce the reply to ``msg``; runs inside the reply task."""
        raise NotImplementedError

    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Return the message that stands for an interrupted reply (runs shielded)."""
        return self._interrupted_msg()

    async def _on_error(self, exc: BaseException) -> None:
        """Hook run inside the reply task when ``reply()`` raised; keeps memory valid."""

    def _interrupted_msg(self, role: str = "assistant", **extra: Any) -> Msg:
        metadata: dict[str, Any] = {
            "_is_interrupted": True,
            "interrupted_at": self._where,
            "interrupted_by": self._interrupt_cause,
        }
        metadata.update(extra)
        return Msg(self.name, self.interrupt_text, role, metadata=metadata)  # type: ignore[arg-type]

    # -- running ------------------------------------------------------------------------------
    @property
    def is_replying(self) -> bool:
        """True while a reply task runs."""
        return self._reply_task is not None and not self._reply_task.done()

    async def __call__(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Reply to ``msg`` (or to what memory holds) in a task of the agent's own."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._reply_id = uuid.uuid4().hex[:12]
        self._task_started = False
        self._interrupt_requested = False
        self._interrupt_cause = "interrupt"
        self._handling_interrupt = False
        self._where = "before start"
        task = loop.create_task(self._run(msg, self._reply_id, kwargs), name=f"reply:{self.name}")
        self._reply_task = task
        caller = asyncio.current_task()
        if _DIRECT_AWAIT and caller is not None:
            # Python 3.11+: await the reply task directly. If the caller is cancelled, asyncio
            # cancels the reply task, which turns that into a graceful interrupt and returns its
            # message; the caller's own cancellation is then re-raised here (its cancel count
            # went up), so `asyncio.timeout()` and `TaskGroup` in the caller see it as usual.
            before = caller.cancelling()  # type: ignore[attr-defined,unused-ignore]
            result = await task
            if caller.cancelling() > before:  # type: ignore[attr-defined,unused-ignore]
                raise asyncio.CancelledError
            return result
        try:  # Python 3.10: no cancel count; shield the reply and interrupt it by hand.
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                raise
            self._request_interrupt("cancelled")
            while not task.done():
                try:
                    await asyncio.wait({task})
                except asyncio.CancelledError:
                    continue
            if not task.cancelled():
                task.exception()  # retrieved: the caller gets its CancelledError instead
            raise

    async def _run(self, msg: Msg | None, reply_id: str, kwargs: dict[str, Any]) -> Msg:
        me = asyncio.current_task()
        self._task_started = True
        self._emit(ReplyStarted(self.name, reply_id, msg))
        try:
            try:
                if self._interrupt_requested:  # arrived before our first step
                    raise asyncio.CancelledError
                result = await self.reply(msg, **kwargs)
            except asyncio.CancelledError:
                if not self._interrupt_requested:  # the task (or its awaiting caller) cancelled
                    self._interrupt_requested = True
                    self._interrupt_cause = "cancelled"
                _uncancel(me)
                result = await self._run_handle_interrupt(msg)
                self._emit(Interrupted(self.name, reply_id, result, self._where))
                self._emit(ReplyFinished(self.name, reply_id, result, interrupted=True))
                return result
            except Exception as exc:
                await self._on_error(exc)
                self._emit(ErrorOccurred(self.name, reply_id, type(exc).__name__, str(exc), None))
                raise
            self._emit(ReplyFinished(self.name, reply_id, result, interrupted=False))
            return result
        finally:
            if self._reply_task is me:
                self._reply_task = None

    async def _run_handle_interrupt(self, msg: Msg | None) -> Msg:
        # handle_interrupt() must close the history exactly once, even if the reply task is
        # cancelled raw while it runs. Most handlers never suspend (memory writes are
        # synchronous), so the coroutine is first stepped inline: no extra loop iterations.
        # Only if it suspends does the rest move to an inner task behind a shield.
        self._handling_interrupt = True
        coro = self._interrupt_and_record(msg)
        try:
            pending = coro.send(None)
        except StopIteration as done:
            return done.value
        inner = asyncio.ensure_future(_resume(coro, pending))
        while True:
            try:
                return await asyncio.shield(inner)
            except asyncio.CancelledError:
                _uncancel(asyncio.current_task())
                if inner.cancelled():
                    raise

    def _raise_if_interrupted(self) -> None:
        """Deliver a pending interrupt that code inside the reply swallowed (checkpoint)."""
        if self._interrupt_requested and not self._handling_interrupt:
            raise asyncio.CancelledError

    async def _interrupt_and_record(self, msg: Msg | None) -> Msg:
        result = await self.handle_interrupt(msg)
        if self.memory is not None and self._interrupt_msgs:
            pending, self._interrupt_msgs = self._interrupt_msgs, []
            for m in pending:
                await self.memory.add(m)
                self._emit(MessageAdded(self.name, self._reply_id, m))
        return result

    # -- interrupting -------------------------------------------------------------------------
    def _request_interrupt(self, cause: str = "interrupt") -> bool:
        task = self._reply_task
        if task is None or task.done():
            return False
        if self._interrupt_requested:
            return True  # already interrupting: absorbed, never a second cancel
        self._interrupt_requested = True
        self._interrupt_cause = cause
        if self._task_started:
            task.cancel()
        return True

    async def interrupt(self, msg: Msg | None = None) -> bool:
        """Interrupt the running reply; ``False`` when nothing is running.

        ``msg``, if given, is recorded in memory after the interrupted reply, and the next
        ``agent()`` call without a message answers it.
        """
        return self.interrupt_nowait(msg)

    def interrupt_nowait(self, msg: Msg | None = None) -> bool:
        """``interrupt()`` for sync callbacks running on the agent's event loop thread."""
        if not self.is_replying:
            return False
        if msg is not None:
            self._interrupt_msgs.append(msg)
        return self._request_interrupt()

    def interrupt_threadsafe(self, msg: Msg | None = None) -> concurrent.futures.Future[bool]:
        """Interrupt from any thread (e.g. a widget callback); returns a future of the result."""
        loop = self._loop
        if loop is None or loop.is_closed() or not self.is_replying:
            done: concurrent.futures.Future[bool] = concurrent.futures.Future()
            done.set_result(False)
            return done
        return asyncio.run_coroutine_threadsafe(self.interrupt(msg), loop)

    # -- events -------------------------------------------------------------------------------
    def subscribe(self, handler: Handler, *, max_pending: int = 10_000) -> Subscription:
        """Call ``handler(event)`` for every later event (see ``nb_hitl.events``)."""
        return self._bus.subscribe(handler, max_pending=max_pending)

    def events(self) -> AsyncIterator[Event]:
        """Iterate over this agent's events as they come."""
        return self._bus.stream()

    def _emit(self, event: Event) -> None:
        self._bus.emit(event)

    # -- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able state (memory and settings; never model clients or keys)."""
        state: dict[str, Any] = {"name": self.name, "interrupt_text": self.interrupt_text}
        if self.memory is not None and hasattr(self.memory, "state_dict"):
            state["memory"] = self.memory.state_dict()
        return state

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output; refuses while a reply runs."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        if self.memory is not None and "memory" in state:
            self.memory.load_state_dict(state["memory"], strict=strict)
        self.interrupt_text = state.get("interrupt_text", self.interrupt_text)

    def __repr__(self) -> str:
        status = "replying" if self.is_replying else "idle"
        return f"{type(self).__name__}(name={self.name!r}, {status})"
