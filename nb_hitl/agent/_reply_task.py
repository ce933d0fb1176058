"""The reply task: how ``agent(msg)`` runs, interrupts and settles one reply.

``AgentBase`` (``_base.py``, whose docstring describes the lifecycle and its guarantees) mixes
this in. ``agent(msg)`` creates the reply task and awaits it; the task runs the reply hooks and
``reply()``, accepts interrupts (``_accept``: the only way into ``interrupting``), delivers
them as a cancel of its own task, and settles the reply exactly once (``_settle``).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from typing import TYPE_CHECKING, Any

from nb_hitl.events import (
    ErrorOccurred,
    Event,
    Interrupted,
    MessageAdded,
    ReplyFinished,
    ReplyStarted,
)
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import Msg

from ._hooks import HookMixin, bind_arguments, call_with_arguments, message_argument
from ._lifecycle import (
    ACTIVE_STATES,
    ReplyRecord,
    StartGuard,
    cancel_requested,
    reply_call,
    resume_stepped,
    uncancel,
)

logger = logging.getLogger("nb_hitl.agent")

_DIRECT_AWAIT = sys.version_info >= (3, 11)
"""Await the reply task directly (needs ``Task.cancelling()``, Python 3.11+)."""


class ReplyTaskMixin(HookMixin):
    """Running one reply in a task of the agent's own; accepting and delivering interrupts."""

    name: str
    memory: Any
    _reply: ReplyRecord | None
    _reply_task: asyncio.Task[Msg] | None
    _loop: asyncio.AbstractEventLoop | None
    _where: str

    if TYPE_CHECKING:  # AgentBase's

        @property
        def is_replying(self) -> bool: ...

        async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg: ...

        async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg: ...

        async def _on_error(self, exc: BaseException) -> None: ...

        def _record_incoming(self, msg: Any) -> None: ...

        def _emit(self, event: Event) -> None: ...

    # -- running -----------------------------------------------------------------------------
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
        guarded = StartGuard(self._run(ctx, kwargs), lambda: self._accept(ctx, "cancelled"))
        task: asyncio.Task[Msg] = loop.create_task(guarded, name=f"reply:{self.name}")
        ctx.task = task
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
            self._interrupt_reply(ctx, None, "cancelled")
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
            self._emit(ReplyFinished(self.name, ctx.id, result, interrupted=False))
            return result  # type: ignore[return-value]
        ctx.stopped = True
        uncancel(asyncio.current_task())
        if not ctx.recorded:  # interrupted during the pre_reply hooks: the question is kept
            self._record_incoming(ctx.msg)
            ctx.recorded = True
        interrupted = await self._run_handle_interrupt(ctx)
        ctx.result = interrupted
        self._emit(Interrupted(self.name, ctx.id, interrupted, self._where))
        self._emit(ReplyFinished(self.name, ctx.id, interrupted, interrupted=True))
        return interrupted

    async def _run_handle_interrupt(self, ctx: ReplyRecord) -> Msg:
        # handle_interrupt() must close the history exactly once, even if the reply task is
        # cancelled raw while it runs. Most handlers never suspend (memory writes are
        # synchronous), so the coroutine is first stepped inline: no extra loop iterations.
        # Only if it suspends does the rest move to an inner task behind a shield.
        coro = self._interrupt_and_record(ctx)
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

    async def _interrupt_and_record(self, ctx: ReplyRecord) -> Msg:
        result = await self.handle_interrupt(ctx.msg)
        while ctx.steering:  # interrupt(msg) may still add some while memory.add suspends
            m = ctx.steering.pop(0)
            if self.memory is not None:
                await self.memory.add(m)
                self._emit(MessageAdded(self.name, ctx.id, m))
        ctx.state = "finished"  # from here on interrupt() returns False
        return result

    def _record_after(self, ctx: ReplyRecord) -> None:
        """Record the messages given with ``stop_after_step(msg)`` after a finished reply."""
        while ctx.steering and self.memory is not None and hasattr(self.memory, "add_sync"):
            m = ctx.steering.pop(0)
            self.memory.add_sync(m)
            self._emit(MessageAdded(self.name, ctx.id, m))

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

    # -- interrupting ------------------------------------------------------------------------
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

    def _interrupt_reply(self, ctx: ReplyRecord | None, msg: Msg | None, cause: str) -> bool:
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
                asyncio.get_running_loop().call_soon(self._deliver, ctx)
            else:
                task.cancel()
        return True

    def _deliver(self, ctx: ReplyRecord) -> None:
        task = ctx.task
        if ctx.state == "interrupting" and not ctx.stopped and task is not None and not task.done():
            task.cancel()
