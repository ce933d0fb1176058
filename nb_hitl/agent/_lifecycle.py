"""The reply lifecycle's building blocks: the per-reply record, task plumbing, the thread hop.

``AgentBase`` (``_base.py``, whose module docstring describes the lifecycle) drives them.
``on_loop_thread`` is the one way code in ``agent/`` hops from another thread onto the
agent's event loop (``interrupt_threadsafe``, ``steer_threadsafe``, ...).
"""

from __future__ import annotations

import asyncio
import collections.abc
import concurrent.futures
import inspect
import types
from collections.abc import Callable, Coroutine, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from nb_hitl.message import Msg

T = TypeVar("T")

ReplyState = Literal["starting", "running", "interrupting", "finished"]
ACTIVE_STATES = ("starting", "running", "interrupting")


@dataclass(eq=False)
class ReplyRecord:
    """One reply's lifecycle record (see the module docstring)."""

    id: str
    msg: Any
    state: ReplyState = "starting"
    cause: str = "interrupt"
    """What interrupted it first: ``interrupt``, ``cancelled``, or a caller's own word."""
    steering: list[Msg] = field(default_factory=list)
    """Messages given to ``interrupt(msg)`` for this reply; recorded after it."""
    stopped: bool = False
    """The body has stopped and the interrupted path runs: nothing is delivered any more."""
    recorded: bool = False
    """The incoming message was recorded in memory."""
    stop_after_step: bool = False
    """``stop_after_step()`` was asked: the reply ends at its next step boundary."""
    task: asyncio.Task[Msg] | None = None
    arguments: dict[str, Any] | None = None
    """``reply()``'s arguments by name, when reply hooks are set (pre hooks may change them)."""
    args: tuple[Any, ...] = ()
    """``reply()``'s positional arguments, as the caller gave them."""
    said: list[Msg] = field(default_factory=list)
    """The agent's own messages of this reply, in order, as they were recorded (its model
    turns, the partial answer an interrupt kept): what the reply said, and so what the other
    participants of a ``MsgHub`` observe of it when it is interrupted (``_broadcast.py``)."""
    continues: bool = False
    """This reply continues the interrupted reply before it (``previous``): set by the code
    that continues it, or by a message it said carrying ``metadata["continued_by"]``."""
    previous: ReplyRecord | None = None
    """The agent's reply before this one (its own ``previous`` is dropped: no chain)."""
    result: Msg | None = None
    """The message the reply returned (set when it settles)."""
    observed: Msg | None = None
    """What the other participants of a hub were given of it, once broadcast."""
    wait: asyncio.Future[None] | None = None
    """What the caller of ``agent()`` awaits (``ReplyWait``; Python 3.11+)."""


def reply_call(
    reply: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], Any]:
    """``reply()``'s positional arguments for a call ``agent(*args, **kwargs)``, and its message.

    The arguments go through as given (AgentScope's ``__call__(*args, **kwargs)``), except
    that ``agent()`` on a ``reply(self, msg)`` whose message has no default passes ``None``
    (reply to what memory holds). The message is the first argument (or ``msg=``) when it is
    a ``Msg``, a list of them or ``None``; anything else is the reply's business alone.
    """
    if args:
        first = args[0]
    elif "msg" in kwargs:
        first = kwargs["msg"]
    else:
        params: Iterable[inspect.Parameter]
        try:
            params = inspect.signature(reply).parameters.values()
        except (TypeError, ValueError):
            params = ()
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if positional and positional[0].default is inspect.Parameter.empty:
            return (None,), None
        return (), None
    is_message = first is None or isinstance(first, Msg)
    is_message = is_message or (isinstance(first, list) and all(isinstance(m, Msg) for m in first))
    return args, first if is_message else None


def uncancel(task: asyncio.Task[Any] | None) -> None:
    # Task.uncancel() exists from Python 3.11; 3.10 keeps no cancellation count to clean up.
    if task is not None and hasattr(task, "uncancel"):
        while task.cancelling():  # type: ignore[attr-defined,unused-ignore]
            task.uncancel()


def cancel_requested(task: asyncio.Task[Any] | None) -> bool:
    # A cancellation of this task that nobody has taken back (3.11+; always False on 3.10).
    return task is not None and hasattr(task, "cancelling") and task.cancelling() > 0


class StartGuard(collections.abc.Coroutine[Any, Any, Msg]):
    """The reply coroutine, as a task runs it, except that a cancel thrown in before its first
    step starts it anyway (it then takes its interrupted path instead of vanishing unrun)."""

    def __init__(self, coro: Coroutine[Any, Any, Msg], on_early_cancel: Callable[[], object]):
        self._coro = coro
        self._on_early_cancel = on_early_cancel
        self._started = False

    def send(self, value: Any) -> Any:
        self._started = True
        return self._coro.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        if not self._started:
            self._started = True
            exc = typ if val is None else val
            if isinstance(exc, asyncio.CancelledError) or exc is asyncio.CancelledError:
                self._on_early_cancel()
                return self._coro.send(None)
        if val is None and tb is None:
            return self._coro.throw(typ)
        return self._coro.throw(typ, val, tb)  # pragma: no cover - tasks throw one argument

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, None, Msg]:
        return self._coro.__await__()


@types.coroutine
def _drive(coro: Coroutine[Any, Any, Msg], pending: Any) -> Generator[Any, Any, Msg]:
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


class ReplyWait(asyncio.Future[None]):
    """What ``agent(msg)`` awaits on Python 3.11+ in place of its reply task: a future that is
    set when the reply task ends, or earlier, the moment ``interrupt()`` cancels that task.

    Why not ``await task``: a task's end wakes its awaiter through a callback that runs in the
    loop's *next* iteration, so the caller would resume one iteration after the reply task
    ended and whoever awaits the caller one more after that. ``interrupt()`` sets this future
    right after cancelling the reply task, which puts the caller's wake-up in the ready queue
    just behind the reply task's: in the common case (``handle_interrupt()`` does not suspend)
    the reply task ends and the caller returns its message in the same iteration, as if the
    reply ran in the caller's own task (AgentScope), while it still runs in a task of its own.
    If the reply task has not ended when the caller wakes, the caller awaits it directly.

    A cancel of the caller reaches the future it awaits (``Task.cancel()`` cancels its
    ``_fut_waiter``); this one hands it to the reply task instead of being cancelled, exactly
    what asyncio does for a task awaited directly: the reply is interrupted gracefully and a
    raw cancel of ``agent._reply_task`` stays distinct from a cancel of the caller.
    """

    def __init__(self, ctx: ReplyRecord, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._ctx = ctx

    def cancel(self, msg: Any = None) -> bool:
        task = self._ctx.task
        return task is not None and task.cancel(msg)


def deliver_cancel(ctx: ReplyRecord) -> None:
    """Cancel the reply task of ``ctx`` for an interrupt accepted from inside that task."""
    task = ctx.task
    if ctx.state == "interrupting" and not ctx.stopped and task is not None and not task.done():
        task.cancel()


def on_loop_thread(
    loop: asyncio.AbstractEventLoop | None, call: Callable[[], T], no_loop: Callable[[], T]
) -> concurrent.futures.Future[T]:
    """Run ``call()`` on ``loop``'s thread from any thread; a future of what it returned.

    Already on that loop's thread, it runs at once; when there is no loop to hop onto (never
    started, closed, stopped) the result is ``no_loop()``, run in the calling thread. An
    exception ``call`` raises is the future's.
    JupyterLab may run widget callbacks on another thread, and ``task.cancel()`` from there
    would not wake the loop: every cross-thread entry of an agent goes through here.
    """
    out: concurrent.futures.Future[T] = concurrent.futures.Future()
    if loop is None or loop.is_closed() or not loop.is_running():
        out.set_result(no_loop())
        return out
    try:
        here = asyncio.get_running_loop() is loop
    except RuntimeError:
        here = False

    def run() -> None:
        if out.set_running_or_notify_cancel():
            try:
                out.set_result(call())
            except BaseException as exc:  # handed to the caller through the future
                out.set_exception(exc)

    if here:
        run()
        return out
    try:
        loop.call_soon_threadsafe(run)
    except RuntimeError:  # the loop closed meanwhile
        if not out.done():
            out.set_result(no_loop())
    return out


async def resume_stepped(coro: Coroutine[Any, Any, Msg], pending: Any) -> Msg:
    return await _drive(coro, pending)


__all__ = [
    "ACTIVE_STATES",
    "ReplyRecord",
    "ReplyState",
    "StartGuard",
    "cancel_requested",
    "on_loop_thread",
    "resume_stepped",
    "uncancel",
]
