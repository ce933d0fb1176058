"""AgentBase: a reply that runs as a task of its own and can be interrupted anywhere.

The AgentScope 1.x model, without its defects. Each reply follows one explicit lifecycle,
held in a ``ReplyRecord`` record with its own id (``_lifecycle.py``), run by this class::

    idle -> starting -> running -> finished
               |           |
               +-----------+-> interrupting -> finished

- ``starting``: ``agent(msg)`` recorded ``msg`` in memory *synchronously* (before anything can
  cancel the reply) and created the reply task, which has not stepped yet.
- ``running``: ``reply()`` runs in the agent's own task (``agent._reply_task``); interrupting
  never cancels the caller.
- ``interrupting``: an interrupt was accepted (``interrupt()``, the caller's cancellation, a raw
  ``cancel()`` of the reply task, or an interrupt from code inside the reply). The reply body
  stops at its next suspension or checkpoint; ``handle_interrupt()`` closes the history exactly
  once (further interrupts and cancels are absorbed), then the messages given to
  ``interrupt(msg)`` for *this* reply are recorded.
- ``finished``: one place (``_settle``) decides: an accepted interrupt means the reply ends
  interrupted (``metadata["_is_interrupted"]``, ``interrupted_by`` = the first cause),
  otherwise it finished normally. After that, ``interrupt()`` returns ``False``.

Other guarantees: a cancel that lands before the reply task's first step still runs the reply's
interrupted path (message kept, events emitted); code inside the reply that swallows a
cancellation is stopped at the next checkpoint (``_checkpoint()``); cancellations that code
inside the reply makes for itself (``asyncio.timeout``, anyio/httpx cancel scopes) stay theirs;
the reply task ``uncancel()``s itself; if the *caller* is cancelled, the reply is interrupted
gracefully (``interrupted_by == "cancelled"``) and the caller still sees its own cancellation; a
second concurrent ``agent()`` call raises ``AgentBusyError``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, ClassVar

from nb_hitl.events import (
    ErrorOccurred,
    Event,
    EventBus,
    Handler,
    Interrupted,
    MessageAdded,
    ReplyFinished,
    ReplyStarted,
    StopRequested,
    Subscription,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import MetaKey, Msg, Role
from nb_hitl.module import StateModule

from . import _hooks as hooks
from ._broadcast import Participant, Subscribers, wait_idle
from ._console import Console
from ._hooks import AGENT_HOOK_TYPES, Hook, bind_arguments, call_with_arguments, message_argument
from ._lifecycle import (
    ACTIVE_STATES,
    ReplyRecord,
    ReplyWait,
    StartGuard,
    cancel_requested,
    deliver_cancel,
    on_loop_thread,
    reply_call,
    resume_stepped,
    uncancel,
)
from ._live import register

logger = logging.getLogger("nb_hitl.agent")

_DIRECT_AWAIT = sys.version_info >= (3, 11)
"""Await the reply task directly (needs ``Task.cancelling()``, Python 3.11+)."""

DEFAULT_INTERRUPT_TEXT = "[Interrupted] The agent was interrupted by the user."


class AgentBase(StateModule):
    """Base class of agents: the reply task, interruption, events, hooks and state.

    Subclasses implement ``reply(msg)`` and may override ``handle_interrupt()``; they update
    ``self._where`` as they go so the interrupted message can say where it landed. As in
    AgentScope, a subclass may call ``super().__init__()`` without a name and set
    ``self.name`` afterwards (until then the name is the class name), register state with
    ``self.register_state(...)``, and use hooks (``_hooks.py``) and ``print`` (``_console.py``).
    ``reply`` hooks run around ``reply()`` in the lifecycle: pre hooks before the question is
    recorded, post hooks after the reply finished *or was interrupted*.
    """

    memory: Any = None

    supported_hook_types: ClassVar[tuple[str, ...]] = AGENT_HOOK_TYPES
    """The hook types this class runs."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        hooks.prepare_class(cls)  # hooks of its own; its own observe/print run them too

    def __init__(
        self, name: str | None = None, *, interrupt_text: str = DEFAULT_INTERRUPT_TEXT
    ) -> None:
        super().__init__()
        if name is None:
            name = type(self).__name__
        if not isinstance(name, str) or not name.strip():
            raise ValueError(
                "An agent needs a non-empty name, e.g. ReActAgent(name='Friday', ...)."
            )
        self.name = name
        self.id = uuid.uuid4().hex
        """A unique id of this agent object (AgentScope's ``agent.id``)."""
        self.interrupt_text = interrupt_text
        self._bus = EventBus()
        self._reply_task: asyncio.Task[Msg] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reply: ReplyRecord | None = None
        self._where = ""
        register(self)  # weakly: lets the notebook extension find running replies

    # -- to implement ------------------------------------------------------------------------
    async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Produce the reply to ``msg``; runs inside the reply task."""
        raise NotImplementedError

    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Return the message that stands for an interrupted reply (runs shielded)."""
        return self._interrupted_msg()

    async def _on_error(self, exc: BaseException) -> None:
        """Hook run inside the reply task when ``reply()`` raised; keeps memory valid."""

    def _record_incoming(self, msg: Any) -> None:
        """Record the incoming message in memory, synchronously, before the reply can be
        cancelled (``agent()`` calls it). The base agent keeps no conversation memory."""

    def _interrupted_msg(self, role: Role = "assistant", **extra: Any) -> Msg:
        metadata: dict[str, Any] = {
            MetaKey.IS_INTERRUPTED: True,
            MetaKey.INTERRUPTED_AT: self._where,
            MetaKey.INTERRUPTED_BY: self._reply.cause if self._reply is not None else "interrupt",
        }
        metadata.update(extra)
        return Msg._of_text(self.name, self.interrupt_text, role, metadata)

    # -- the lifecycle -------------------------------------------------------------------------
    @property
    def is_replying(self) -> bool:
        """True from ``agent(msg)`` until its reply has finished (normally or interrupted)."""
        return self._reply is not None and self._reply.state in ACTIVE_STATES

    async def wait_idle(self) -> None:
        """Wait until no reply runs (at once when none does): what a hub waits for before
        this agent can ``observe()``. Waiting never cancels or joins the reply."""
        await wait_idle(self)

    @property
    def reply_state(self) -> str:
        """``idle``, ``starting``, ``running``, ``interrupting`` or ``finished``."""
        return "idle" if self._reply is None else self._reply.state

    @property
    def _reply_id(self) -> str | None:
        return self._reply.id if self._reply is not None else None

    @property
    def reply_id(self) -> str | None:
        """The id of the reply running now (the events it emits carry it); ``None`` if none."""
        return self._reply_id

    @property
    def where(self) -> str:
        """Where the running reply is ("streaming", "tool search"...): the interrupted
        message's ``interrupted_at``. Code that drives a reply from outside the agent's own
        ``reply()`` (a remote run's events) sets it as the reply goes."""
        return self._where

    @where.setter
    def where(self, value: str) -> None:
        self._where = value

    async def __call__(self, *args: Any, **kwargs: Any) -> Msg:
        """Reply in a task of the agent's own: ``reply(*args, **kwargs)``, as given.

        ``agent(msg)`` replies to ``msg`` (recorded in memory first), ``agent()`` to what
        memory holds; a ``reply`` written without a message parameter (AgentScope allows
        ``async def reply(self)``) is called without one. In a ``MsgHub`` the reply is then
        observed by the other participants.
        """
        result = await self._call_reply(*args, **kwargs)
        if self.subscribers:
            await self.subscribers.broadcast(result)
        return result

    # -- the reply task ----------------------------------------------------------------------
    async def _call_reply(self, *args: Any, **kwargs: Any) -> Msg:
        if self.is_replying:
            raise AgentBusyError(self.name)
        args, msg = reply_call(self.reply, args, kwargs)
        loop = asyncio.get_running_loop()
        self._loop = loop
        ctx = ReplyRecord(uuid.uuid4().hex[:12], msg)
        ctx.args = args
        before = self._reply
        if before is not None:
            before.previous = None  # one reply back, never a chain of every reply
        ctx.previous = before
        self._reply = ctx
        self._where = "before start"
        self._emit(ReplyStarted(self.name, ctx.id, msg))
        if not self.has_hooks("reply"):  # else the reply task records it after the pre hooks
            try:
                self._record_incoming(msg)  # synchronous: no cancel can come in between
            except BaseException as exc:
                ctx.state = "finished"
                self._emit(ErrorOccurred(self.name, ctx.id, type(exc).__name__, str(exc), None))
                raise
            ctx.recorded = True
        caller = asyncio.current_task()
        wait = None
        if _DIRECT_AWAIT and caller is not None:  # first: a task factory may step the task now
            wait = ctx.wait = ReplyWait(ctx, loop)
        guarded = StartGuard(self._run(ctx, kwargs), lambda: self._accept(ctx, "cancelled"))
        task: asyncio.Task[Msg] = loop.create_task(guarded, name=f"reply:{self.name}")
        ctx.task = task
        self._reply_task = task
        if wait is not None and caller is not None:
            # Python 3.11+: wait for the reply task as if awaiting it directly (see ReplyWait).
            # If the caller is cancelled, the reply task is cancelled, which turns that into a
            # graceful interrupt and returns its message; the caller's own cancellation is then
            # re-raised here (its cancel count went up), so `asyncio.timeout()` and `TaskGroup`
            # in the caller see it as usual.
            before = caller.cancelling()  # type: ignore[attr-defined,unused-ignore]
            await wait
            result = task.result() if task.done() else await task
            if caller.cancelling() > before:  # type: ignore[attr-defined,unused-ignore]
                raise asyncio.CancelledError
            return result
        try:  # Python 3.10: no cancel count; shield the reply and interrupt it by hand.
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                raise
            self._stop(ctx, None, "cancelled", "now")
            while not task.done():
                try:
                    await asyncio.wait({task})
                except asyncio.CancelledError:
                    continue
            if not task.cancelled():
                task.exception()  # retrieved: the caller gets its CancelledError instead
            raise

    async def _run(self, ctx: ReplyRecord, kwargs: dict[str, Any]) -> Msg:
        me = asyncio.current_task()
        if ctx.state == "starting":
            ctx.state = "running"
        result: Msg | None = None
        try:
            try:
                if ctx.state == "interrupting":  # accepted before our first step
                    raise asyncio.CancelledError
                if not ctx.recorded:  # reply hooks: pre hooks first, in this (interruptible) task
                    arguments = bind_arguments(self.reply, ctx.args, kwargs)
                    ctx.arguments = await self._run_pre_hooks("reply", arguments)
                    ctx.msg = message_argument(self.reply, ctx.arguments, ctx.msg)
                    self._record_incoming(ctx.msg)
                    ctx.recorded = True
                if ctx.arguments is not None:
                    result = await call_with_arguments(self.reply, ctx.arguments)
                else:
                    result = await self.reply(*ctx.args, **kwargs)
                if cancel_requested(me):  # a cancel that code inside the reply swallowed
                    self._accept(ctx, "cancelled")
            except asyncio.CancelledError:
                self._accept(ctx, "cancelled")  # a raw cancel, or the awaiting caller's
            except (KeyboardInterrupt, SystemExit, GeneratorExit):
                ctx.state = "finished"
                raise
            except BaseException as exc:  # Exception, and BaseExceptions such as a Rust panic
                if cancel_requested(me):  # code inside the reply turned a cancel into an error
                    self._accept(ctx, "cancelled")
                if ctx.state != "interrupting":
                    ctx.stopped = True  # from here on interrupt() returns False
                    await self._on_error(exc)
                    ctx.state = "finished"
                    self._emit(ErrorOccurred(self.name, ctx.id, type(exc).__name__, str(exc), None))
                    raise
                logger.info(
                    "reply of %s raised %r after an interrupt; ends interrupted", self.name, exc
                )
            result = await self._settle(ctx, result)
            await self._flush_memory()
            if self.has_hooks("reply"):  # interrupted replies go through post hooks too
                arguments = ctx.arguments or bind_arguments(self.reply, ctx.args, kwargs)
                result = await self._run_post_hooks("reply", arguments, result)
                ctx.result = result
            return result
        finally:
            if ctx.state != "finished":  # an error in handle_interrupt: nothing may stay active
                ctx.state = "finished"
            if self._reply_task is me:
                self._reply_task = None
            wait = ctx.wait
            if wait is not None and not wait.done():
                wait.set_result(None)  # the caller resumes as the task ends (this very step)

    async def _flush_memory(self) -> None:
        """Let a database memory (``StoredMemory``) finish writing: when a reply ends, finished
        or interrupted, the store holds what the agent holds. The write is not abandoned if
        this task is cancelled meanwhile; a store error is logged (memory keeps the change
        and writes it at the next flush)."""
        flush = getattr(self.memory, "flush", None)
        if flush is None:
            return
        writing = asyncio.ensure_future(flush())
        while True:
            try:
                await asyncio.shield(writing)
                return
            except asyncio.CancelledError:
                if writing.cancelled():
                    raise
                uncancel(asyncio.current_task())  # the reply has settled; finish the write
            except Exception as exc:
                logger.warning("%s: its memory could not be written (%s)", self.name, exc)
                return

    async def _settle(self, ctx: ReplyRecord, result: Msg | None) -> Msg:
        """The one place that decides: interrupted (an interrupt was accepted) or finished."""
        if ctx.state != "interrupting":
            ctx.state = "finished"
            self._record_after(ctx)  # interrupt(msg, when="step") messages
            ctx.result = result
            self._reply_ended(ctx, result, interrupted=False)
            return result  # type: ignore[return-value]
        ctx.stopped = True
        uncancel(asyncio.current_task())
        if not ctx.recorded:  # interrupted during the pre_reply hooks: the question is kept
            self._record_incoming(ctx.msg)
            ctx.recorded = True
        interrupted = await self._run_handle_interrupt(ctx)
        ctx.result = interrupted
        self._reply_ended(ctx, interrupted, interrupted=True)
        return interrupted

    def _reply_ended(self, ctx: ReplyRecord, result: Msg | None, *, interrupted: bool) -> None:
        """A reply settled: its reply-scoped state ends (``_end_reply``), and listeners get
        ``Interrupted`` (if it was) and ``ReplyFinished``. The events are built only when
        someone listens: this runs once per reply, so with the CPU's caches cold, and an
        interrupted reply's message waits for it (``bench/agentscope_side_by_side.py``)."""
        self._end_reply(ctx.id)
        bus = self._bus
        if bus.subscriptions:
            if interrupted:
                bus.emit(Interrupted(self.name, ctx.id, result, self._where))
            bus.emit(ReplyFinished(self.name, ctx.id, result, interrupted=interrupted))

    def _end_reply(self, reply_id: str) -> None:
        """End what lives only as long as reply ``reply_id`` (the base agent keeps nothing)."""

    async def _run_handle_interrupt(self, ctx: ReplyRecord) -> Msg:
        # handle_interrupt() must close the history exactly once, even if the reply task is
        # cancelled raw while it runs. Most handlers never suspend (memory writes are
        # synchronous), so the coroutine is first stepped inline: no extra loop iterations.
        # Only if it suspends does the rest move to an inner task behind a shield.
        coro = self._close_interrupted(ctx)
        try:
            pending = coro.send(None)
        except StopIteration as done:
            return done.value
        inner = asyncio.ensure_future(resume_stepped(coro, pending))
        while True:
            try:
                return await asyncio.shield(inner)
            except asyncio.CancelledError:
                uncancel(asyncio.current_task())
                if inner.cancelled():
                    raise

    async def _close_interrupted(self, ctx: ReplyRecord) -> Msg:
        """``handle_interrupt()``, then the messages given to ``interrupt(msg)``."""
        result = await self.handle_interrupt(ctx.msg)
        while ctx.steering:  # interrupt(msg) may still add some while memory.add suspends
            m = ctx.steering.pop(0)
            if self.memory is not None:
                await self.memory.add(m)
                self._said(ctx.id, m)
        ctx.state = "finished"  # from here on interrupt() returns False
        return result

    def _record_after(self, ctx: ReplyRecord) -> None:
        """Record the messages given with ``stop_after_step(msg)`` after a finished reply."""
        while ctx.steering and self.memory is not None and hasattr(self.memory, "add_sync"):
            m = ctx.steering.pop(0)
            self.memory.add_sync(m)
            self._said(ctx.id, m)

    def _checkpoint(self) -> None:
        """Stop the reply here if an interrupt was accepted (or a cancel of the reply task
        requested) that code inside the reply swallowed. Call between steps of ``reply()``."""
        ctx = self._reply
        if ctx is None or ctx.stopped or ctx.task is not asyncio.current_task():
            return
        if ctx.state == "interrupting":
            raise asyncio.CancelledError
        if cancel_requested(ctx.task):  # the caller's cancellation, or a raw cancel()
            self._accept(ctx, "cancelled")
            raise asyncio.CancelledError

    # -- interrupting -------------------------------------------------------------------------
    supports_stop_after_step: bool = False
    """Whether ``stop_after_step()`` (``interrupt(when="step")``) works: the agent has step
    boundaries where a reply can end cleanly (``ReActAgent`` does)."""

    async def interrupt(
        self, msg: Msg | None = None, *, cause: str = "interrupt", when: str = "now"
    ) -> bool:
        """Interrupt the running reply; ``False`` when nothing is running.

        Args:
            msg: recorded in memory right after this reply's interrupted message, and answered
                by the next ``agent()`` call without a message. When ``interrupt()`` returns
                ``False`` (no reply, or it already finished) ``msg`` is not recorded.
            cause: what ``metadata["interrupted_by"]`` will say (``"interrupt"``; widgets and
                extensions may pass their own, e.g. ``"kernel"``). The first cause wins.
            when: ``"now"`` (cancel wherever it is) or ``"step"``: ``stop_after_step()``, the
                model call or tool batch in flight finishes and the reply ends cleanly at its
                next step boundary (``msg`` is then recorded after its last message).
        """
        return self.interrupt_nowait(msg, cause=cause, when=when)

    def interrupt_nowait(
        self, msg: Msg | None = None, *, cause: str = "interrupt", when: str = "now"
    ) -> bool:
        """``interrupt()`` for sync callbacks running on the agent's event loop thread."""
        return self._stop(self._reply, msg, cause, _check_when(when))

    def interrupt_threadsafe(
        self, msg: Msg | None = None, *, cause: str = "interrupt", when: str = "now"
    ) -> concurrent.futures.Future[bool]:
        """Interrupt from any thread (e.g. a widget callback); returns a future of the result.

        It interrupts the reply running when it is called: if that reply finished before the
        request reached the event loop, a newer reply is left alone and the result is False.
        """
        when = _check_when(when)
        if when == "step":
            self._check_step_stop()  # raises TypeError here, in the caller's thread
        ctx = self._reply
        if ctx is None or ctx.state not in ACTIVE_STATES:
            done: concurrent.futures.Future[bool] = concurrent.futures.Future()
            done.set_result(False)
            return done
        return on_loop_thread(self._loop, lambda: self._stop(ctx, msg, cause, when), lambda: False)

    async def stop_after_step(self, msg: Msg | None = None) -> bool:
        """End the running reply cleanly at its next step boundary; ``False`` if none runs.

        Nothing is cancelled: the model call or tool batch in flight finishes, then the reply
        ends with a complete history and returns a message marked
        ``metadata["stopped_after_step"]`` (not ``_is_interrupted``); ``resume()`` goes on from
        there. A ``StopRequested`` event is emitted at once (a UI shows "stopping after this
        step..."); an ``interrupt()`` meanwhile still stops it at once. A reply that finishes
        by itself first just finishes. ``msg``, if given, is recorded after the reply.
        The same as ``interrupt(msg, when="step")``.

        Raises:
            TypeError: this agent has no step boundaries (``supports_stop_after_step``).
        """
        return self._stop(self._reply, msg, "interrupt", "step")

    def stop_after_step_nowait(self, msg: Msg | None = None) -> bool:
        """``stop_after_step()`` for sync callbacks running on the agent's event loop thread."""
        return self._stop(self._reply, msg, "interrupt", "step")

    def stop_after_step_threadsafe(self, msg: Msg | None = None) -> concurrent.futures.Future[bool]:
        """``stop_after_step()`` from any thread; returns a future of the result."""
        return self.interrupt_threadsafe(msg, when="step")

    @property
    def stop_pending(self) -> bool:
        """True while a ``stop_after_step()`` waits for the running reply's next step boundary."""
        ctx = self._reply
        return ctx is not None and ctx.stop_after_step and ctx.state in ("starting", "running")

    def _check_step_stop(self) -> None:
        if not self.supports_stop_after_step:
            raise TypeError(
                f"{type(self).__name__} has no step boundaries to stop at; use "
                "`await agent.interrupt()` to stop it now."
            )

    def _stop(self, ctx: ReplyRecord | None, msg: Msg | None, cause: str, when: str) -> bool:
        """The one implementation behind every interrupt and stop entry point above.

        ``when="now"`` accepts an interrupt of reply ``ctx`` (if it is still the current
        one) and cancels its task; ``"step"`` asks it to end at its next step boundary. ``msg``
        is recorded after the reply. ``False`` when ``ctx`` is not running any more.
        """
        if when == "step":
            self._check_step_stop()
            if ctx is None or self._reply is not ctx or ctx.state not in ("starting", "running"):
                return False
            if ctx.stopped:
                return False
            if msg is not None:
                ctx.steering.append(msg)
            if not ctx.stop_after_step:
                ctx.stop_after_step = True
                self._emit(StopRequested(self.name, ctx.id, self._where))
            return True
        if ctx is None or self._reply is not ctx:
            return False
        was_running = ctx.state == "running"
        if not self._accept(ctx, cause, msg):
            return False
        task = ctx.task
        if was_running and task is not None and not task.done():
            if task is asyncio.current_task():
                # From inside the reply (a tool, a memory listener): cancelling our own running
                # task would leave a pending cancel that outlives the interrupted path. The
                # cancel is delivered once this step suspends; checkpoints catch it earlier.
                asyncio.get_running_loop().call_soon(deliver_cancel, ctx)
            else:
                task.cancel()
                wait = ctx.wait
                if wait is not None and not wait.done():
                    # The caller steps right after the reply task in the loop's next
                    # iteration: when handle_interrupt() ends in that step (most do), the caller
                    # returns its message at once instead of one iteration later (ReplyWait).
                    wait.set_result(None)
        return True

    def _accept(self, ctx: ReplyRecord, cause: str, msg: Msg | None = None) -> bool:
        """Accept an interrupt of reply ``ctx``: the only place that enters ``interrupting``."""
        if ctx.state not in ACTIVE_STATES or (ctx.stopped and ctx.state != "interrupting"):
            return False  # finished, or failing (its error path runs)
        if msg is not None:
            ctx.steering.append(msg)
        if ctx.state != "interrupting":
            ctx.state = "interrupting"
            ctx.cause = cause
        return True

    # -- events -------------------------------------------------------------------------------
    def subscribe(self, handler: Handler, *, max_pending: int = 10_000) -> Subscription:
        """Call ``handler(event)`` for every later event (see ``nb_hitl.events``)."""
        return self._bus.subscribe(handler, max_pending=max_pending)

    def events(self) -> AsyncIterator[Event]:
        """Iterate over this agent's events as they come."""
        return self._bus.stream()

    def emit(self, event: Event) -> None:
        """Give ``event`` to every subscriber, as the agent's own code does (for parts that
        produce the agent's events from outside it, e.g. a remote run's event mapper)."""
        self._emit(event)

    def _emit(self, event: Event) -> None:
        if isinstance(event, MessageAdded):  # from a part outside the agent (a remote run's)
            self.subscribers.note_said(event.reply_id, event.msg)
        self._bus.emit(event)

    def _listened(self) -> bool:
        """Whether anyone listens to this agent's events (if not, an event need not be built).
        False while the agent is still being built."""
        bus = getattr(self, "_bus", None)
        return bus is not None and bool(bus.subscriptions)

    def _said(self, reply_id: str | None, msg: Msg) -> None:
        """This agent recorded ``msg`` in its memory: noted for a hub's participants
        (``Subscribers.note_said``), and ``MessageAdded`` for listeners, built only when
        someone listens (the interrupt path records its messages so, see ``_reply_ended``)."""
        self.subscribers.note_said(reply_id, msg)
        bus = self._bus
        if bus.subscriptions:
            bus.emit(MessageAdded(self.name, reply_id, msg))

    # -- parts (created on first use: AgentScope subclasses may set attributes, even print,
    # before they call super().__init__()) ----------------------------------------------------
    @functools.cached_property
    def console(self) -> Console:
        """Console output and AgentScope's message queue (``_console.py``)."""
        return Console()

    @functools.cached_property
    def subscribers(self) -> Subscribers:
        """The participants of each ``MsgHub`` that observe this agent's replies."""
        return Subscribers(self)

    # -- hubs (AgentScope's subscriber API) ---------------------------------------------------
    def reset_subscribers(self, msghub_name: str, subscribers: Sequence[Participant]) -> None:
        """For hub ``msghub_name``, make ``subscribers`` (but this agent) observe its replies."""
        self.subscribers.reset(msghub_name, subscribers)

    def remove_subscribers(self, msghub_name: str) -> None:
        """Stop giving this agent's replies to the participants of hub ``msghub_name``."""
        self.subscribers.remove(msghub_name)

    @property
    def _subscribers(self) -> dict[str, list[Participant]]:
        """AgentScope's attribute: the subscribers by hub name (a copy)."""
        return self.subscribers.hubs()

    # -- printing (AgentScope's console API over ``self.console``) ----------------------------
    async def print(self, msg: Msg, last: bool = True, speech: Any = None) -> None:
        """Show ``msg`` on the console (runs the ``pre_print`` / ``post_print`` hooks).

        Args:
            msg: the message, complete or (``last=False``) a streaming chunk of it.
            last: whether this is the final version of the message.
            speech: AgentScope's audio to play along; put into ``msg_queue`` with the
                message, not played (nb_hitl plays no audio).
        """
        await self.console.show(msg, last, speech)

    def _print_wanted(self) -> bool:
        """Whether ``print`` has anything to do: console, print hooks or the message queue."""
        return self.console.active or self.has_hooks("print")

    def set_console_output_enabled(self, enabled: bool) -> None:
        """Turn printing this agent's messages to the console on or off."""
        self.console.enabled = bool(enabled)

    @property
    def console_output_enabled(self) -> bool:
        """Whether ``print`` writes to the console."""
        return self.console.enabled

    def set_msg_queue_enabled(self, enabled: bool, queue: asyncio.Queue[Any] | None = None) -> None:
        """Turn AgentScope's message queue on or off.

        Args:
            enabled: ``True`` puts every printed message into ``msg_queue``.
            queue: the queue to use; by default the agent's current one, or a new
                ``asyncio.Queue(maxsize=100)``. Disabling sets ``msg_queue`` to ``None``.
        """
        self.console.set_queue_enabled(enabled, queue)

    @property
    def msg_queue(self) -> asyncio.Queue[Any] | None:
        """Where ``print`` puts ``(msg, last, speech)`` while on (``set_msg_queue_enabled``)."""
        return self.console.queue

    @msg_queue.setter
    def msg_queue(self, queue: asyncio.Queue[Any] | None) -> None:
        self.console.queue = queue

    @property
    def _disable_msg_queue(self) -> bool:
        """AgentScope's attribute: the message queue is off (``stream_printing_messages``)."""
        return not self.console.queue_enabled

    @_disable_msg_queue.setter
    def _disable_msg_queue(self, disabled: bool) -> None:
        self.console.queue_enabled = not disabled

    # -- hooks (AgentScope's pre/post hooks; ``_hooks.py`` runs them) -------------------------
    def register_instance_hook(self, hook_type: str, hook_name: str, hook: Hook) -> None:
        """Run ``hook`` at ``hook_type`` for this agent only; a used name is replaced.

        Args:
            hook_type: e.g. ``"pre_reply"`` (see ``supported_hook_types``).
            hook_name: the name to remove it by later.
            hook: ``(agent, kwargs)`` for pre hooks, ``(agent, kwargs, output)`` for post
                hooks; sync or async.
        """
        hooks.register_instance_hook(self, hook_type, hook_name, hook)

    def remove_instance_hook(self, hook_type: str, hook_name: str) -> None:
        """Remove this agent's hook ``hook_name``; ``ValueError`` if there is none."""
        hooks.remove_instance_hook(self, hook_type, hook_name)

    def clear_instance_hooks(self, hook_type: str | None = None) -> None:
        """Remove this agent's hooks of ``hook_type``, or all of them."""
        hooks.clear_instance_hooks(self, hook_type)

    @classmethod
    def register_class_hook(cls, hook_type: str, hook_name: str, hook: Hook) -> None:
        """Run ``hook`` at ``hook_type`` for every agent of this class and its subclasses."""
        hooks.register_class_hook(cls, hook_type, hook_name, hook)

    @classmethod
    def remove_class_hook(cls, hook_type: str, hook_name: str) -> None:
        """Remove this class's hook ``hook_name``; ``ValueError`` if there is none."""
        hooks.remove_class_hook(cls, hook_type, hook_name)

    @classmethod
    def clear_class_hooks(cls, hook_type: str | None = None) -> None:
        """Remove this class's hooks of ``hook_type``, or all of them."""
        hooks.clear_class_hooks(cls, hook_type)

    def has_hooks(self, name: str) -> bool:
        """True if any pre or post hook of ``name`` (``"reply"``, ``"print"``...) is set."""
        return hooks.has_hooks(self, name)

    async def _run_pre_hooks(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await hooks.run_pre_hooks(self, name, arguments)

    async def _run_post_hooks(self, name: str, arguments: dict[str, Any], output: Any) -> Any:
        return await hooks.run_post_hooks(self, name, arguments, output)

    async def _call_hooked(
        self, name: str, func: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Any:
        """``await func(*args, **kwargs)`` with the ``pre_<name>`` / ``post_<name>`` hooks."""
        return await hooks.call_hooked(self, name, func, *args, **kwargs)

    # -- observing ------------------------------------------------------------------------------
    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        """Record ``msg`` (one message, several, or none) in memory without replying."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        if self.memory is None:
            return
        for m in [msg] if isinstance(msg, Msg) else list(msg or []):
            await self.memory.add(m)
            self._said(None, m)

    # -- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able state: memory and settings (never model clients or keys), plus nested
        state modules and attributes registered with ``register_state``."""
        state = super().state_dict()
        state.update(name=self.name, interrupt_text=self.interrupt_text)
        if self.memory is not None and hasattr(self.memory, "state_dict"):
            state["memory"] = self.memory.state_dict()
        return state

    def _optional_state_keys(self) -> set[str]:
        # Nested modules found on the agent (memory, a toolkit...) may be absent from states
        # saved before they existed; registered attributes stay required under ``strict``.
        return {key for key, _ in self._nested_modules()}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output (all or nothing); refuses while a reply runs.

        The settings in ``state`` (``interrupt_text``, ``sys_prompt``, ``max_iters``...) are
        type-checked first: a wrong one raises ``ValueError`` naming it, before anything changes.
        Nested state modules (memory...) and attributes registered with ``register_state`` are
        loaded as ``StateModule`` does; the saved name is restored (AgentScope's behaviour).
        """
        if self.is_replying:
            raise AgentBusyError(self.name)
        from nb_hitl.session import check_agent_settings

        check_agent_settings(state)
        super().load_state_dict(state, strict=strict)
        name = state.get("name")
        if isinstance(name, str) and name.strip():
            self.name = name
        self.interrupt_text = state.get("interrupt_text", self.interrupt_text)

    def __repr__(self) -> str:
        status = "replying" if self.is_replying else "idle"
        return f"{type(self).__name__}(name={self.name!r}, {status})"


hooks.prepare_class(AgentBase)  # __init_subclass__ does it for every subclass


def _check_when(when: str) -> str:
    if when not in ("now", "step"):
        raise ValueError(
            f"when must be 'now' (interrupt at once) or 'step' (stop after the current step), "
            f"got {when!r}."
        )
    return when
