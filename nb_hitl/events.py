"""Typed events the agent core emits: the only thing UIs read.

Subscribe with ``agent.subscribe(handler)`` (sync or async handler) or iterate
``async for event in agent.events()``. Delivery is asynchronous and per subscriber: the agent
only appends to each subscriber's queue, so a slow or failing handler never slows or breaks
the reply. A subscriber that falls far behind loses the oldest ``MessageUpdated`` events
(each one carries the whole message so far, so the newest is enough to redraw).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import Any, ClassVar

from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock

logger = logging.getLogger("nb_hitl.events")


# Events are frozen dataclasses whose repr, ==, hash and frozenness ``Event`` implements once,
# with dataclass's own behaviour: generated per class (``frozen=True`` execs a ``__setattr__``
# and a ``__delattr__`` for each), they cost ~0.3 ms each at import (28 classes, ~8 ms of every
# ``from nb_hitl import ReActAgent``).
@dataclass(repr=False, eq=False)
class Event:
    """Base of all events; ``kind`` names the event type."""

    kind: ClassVar[str] = "event"
    agent_name: str
    reply_id: str | None

    def __setattr__(self, name: str, value: Any) -> None:
        # What ``frozen=True`` allows: the generated ``__init__`` sets each field once.
        # (``kind``, the one class variable, is in ``__dataclass_fields__`` too.)
        if name in self.__dict__ or name not in self.__dataclass_fields__ or name == "kind":
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        self.__dict__[name] = value

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.compare)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Event):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())


@dataclass(repr=False, eq=False)
class ReplyStarted(Event):
    """A reply task started answering ``msg`` (None: replying to what memory holds)."""

    kind: ClassVar[str] = "reply_started"
    msg: Msg | None = None


@dataclass(repr=False, eq=False)
class MessageAdded(Event):
    """A message was committed to memory (user input, tool results, final replies)."""

    kind: ClassVar[str] = "message_added"
    msg: Msg | None = None


@dataclass(repr=False, eq=False)
class MessageUpdated(Event):
    """The live assistant message grew; ``msg`` holds everything so far, ``delta`` the new text."""

    kind: ClassVar[str] = "message_updated"
    msg: Msg | None = None
    delta: str = ""
    tokens: int = 0
    """Streamed output pieces so far in this model call."""


@dataclass(repr=False, eq=False)
class ToolCallStarted(Event):
    """A tool call began running."""

    kind: ClassVar[str] = "tool_call_started"
    tool_use: ToolUseBlock | None = None


@dataclass(repr=False, eq=False)
class ToolResultReady(Event):
    """A tool call produced its (final or interrupted) result."""

    kind: ClassVar[str] = "tool_result"
    result: ToolResultBlock | None = None


@dataclass(repr=False, eq=False)
class Interrupted(Event):
    """The reply was interrupted; ``msg`` is the message ``handle_interrupt()`` returned."""

    kind: ClassVar[str] = "interrupted"
    msg: Msg | None = None
    where: str = ""


@dataclass(repr=False, eq=False)
class Steered(Event):
    """A steering message (``agent.steer(msg)``) was taken in: recorded in memory ``where``
    (``"reply start"`` or ``"step boundary"``), and the reply goes on with it."""

    kind: ClassVar[str] = "steered"
    msg: Msg | None = None
    where: str = ""


@dataclass(repr=False, eq=False)
class Resumed(Event):
    """A reply started that continues the interrupted reply ``interrupted_id`` (``agent.resume()``).

    ``continued_by`` says how: ``"assistant_prefix"`` or ``"prompt"`` (the partial text is
    continued mid-sentence; ``partial_id`` is the partial message), ``"tools"`` (tool calls the
    interrupt left unrun run now), ``"next_step"`` (nothing partial to continue: the reply goes
    on with its next step). ``note`` explains a fallback (a server that refused the prefix).
    """

    kind: ClassVar[str] = "resumed"
    interrupted_id: str = ""
    continued_by: str = ""
    partial_id: str | None = None
    note: str = ""


@dataclass(repr=False, eq=False)
class StopRequested(Event):
    """``agent.stop_after_step()`` (or ``interrupt(when="step")``) was accepted: the model call
    or tool batch in flight finishes, then the reply ends at its next step boundary."""

    kind: ClassVar[str] = "stop_requested"
    where: str = ""
    """Where the reply was when the stop was asked for."""


@dataclass(repr=False, eq=False)
class StoppedAfterStep(Event):
    """The reply ended at a step boundary, as ``stop_after_step()`` asked; ``msg`` is the
    message it returned (``metadata["stopped_after_step"]``), followed by ``ReplyFinished``."""

    kind: ClassVar[str] = "stopped_after_step"
    msg: Msg | None = None


@dataclass(repr=False, eq=False)
class BranchCreated(Event):
    """A branch of the conversation was made (``fork``, ``edit_and_resend``, ``regenerate``)
    and checked out: memory now holds it. ``fork_point`` is the last message it shares with
    ``parent`` (None: nothing shared)."""

    kind: ClassVar[str] = "branch_created"
    branch_id: str = ""
    name: str = ""
    parent: str | None = None
    fork_point: str | None = None


@dataclass(repr=False, eq=False)
class BranchCheckedOut(Event):
    """Memory switched to branch ``branch_id`` (``agent.checkout``); redraw the transcript."""

    kind: ClassVar[str] = "branch_checked_out"
    branch_id: str = ""
    name: str = ""
    previous: str | None = None


@dataclass(repr=False, eq=False)
class ReplyFinished(Event):
    """The reply task ended; ``msg`` is what ``agent()`` returned (interrupted or not)."""

    kind: ClassVar[str] = "reply_finished"
    msg: Msg | None = None
    interrupted: bool = False


@dataclass(repr=False, eq=False)
class ErrorOccurred(Event):
    """The reply failed with an exception (it is re-raised to the caller of ``agent()``)."""

    kind: ClassVar[str] = "error"
    error_type: str = ""
    message: str = ""
    msg: Msg | None = None


@dataclass(repr=False, eq=False)
class ApprovalRequested(Event):
    """A tool call waits for a person's decision before it runs (the reply is parked)."""

    kind: ClassVar[str] = "approval_requested"
    tool_use: ToolUseBlock | None = None


@dataclass(repr=False, eq=False)
class ApprovalDecided(Event):
    """A waiting tool call was decided, or closed without a decision.

    ``decision`` is ``"approved"``, ``"edited"`` (approved with new ``arguments``),
    ``"denied"`` (with ``reason``), ``"interrupted"`` (closed by an interrupt) or
    ``"discarded"`` (a new message was sent instead of deciding).
    """

    kind: ClassVar[str] = "approval_decided"
    call_id: str = ""
    tool_name: str = ""
    decision: str = ""
    arguments: dict[str, Any] | None = None
    reason: str = ""


@dataclass(repr=False, eq=False)
class QuestionAsked(Event):
    """The reply waits for the person to answer questions (``ask_user``); it is parked.

    ``questions`` are ``Question`` objects; answer with ``agent.answer(question_id, ...)``.
    """

    kind: ClassVar[str] = "question_asked"
    question_id: str = ""
    questions: tuple[Any, ...] = ()
    call_id: str = ""


@dataclass(repr=False, eq=False)
class QuestionAnswered(Event):
    """Questions were answered (``answers``: question -> answer), or closed unanswered
    (``outcome`` ``"interrupted"``)."""

    kind: ClassVar[str] = "question_answered"
    question_id: str = ""
    answers: dict[str, Any] | None = None
    outcome: str = "answered"


@dataclass(repr=False, eq=False)
class CompressionStarted(Event):
    """Memory compression began summarising ``compress_ids`` (``trigger``: auto or manual)."""

    kind: ClassVar[str] = "compression_started"
    compress_ids: tuple[str, ...] = ()
    tokens_before: int = 0
    trigger: str = "auto"


@dataclass(repr=False, eq=False)
class CompressionFinished(Event):
    """Memory compression marked ``compressed_ids`` and stored ``summary`` in memory."""

    kind: ClassVar[str] = "compression_finished"
    compressed_ids: tuple[str, ...] = ()
    tokens_before: int = 0
    tokens_after: int = 0
    summary: str = ""


@dataclass(repr=False, eq=False)
class CompressionFailed(Event):
    """Memory compression was skipped or interrupted; memory is as it was before it."""

    kind: ClassVar[str] = "compression_failed"
    reason: str = ""


@dataclass(repr=False, eq=False)
class CompressionUndone(Event):
    """The last compression was undone: ``restored_ids`` are back in the prompt."""

    kind: ClassVar[str] = "compression_undone"
    restored_ids: tuple[str, ...] = ()
    summary: str = ""
    """The summary in effect again (the one before the undone compression)."""


@dataclass(repr=False, eq=False)
class CompressionConfigChanged(Event):
    """The agent's compression settings changed (a new ``compression_config``, or a field of
    it set): every view of them (inspector, explorer, status line) follows this event."""

    kind: ClassVar[str] = "compression_config_changed"
    trigger_threshold: int | None = None
    """The threshold now in effect (None: no config, compression only on demand)."""
    keep_recent: int = 3
    """Latest messages kept verbatim."""
    enable: bool = False
    """Whether automatic compression is on."""


@dataclass(repr=False, eq=False)
class PermissionsChanged(Event):
    """The agent's permission mode or rules changed (code, a decision, a settings file read
    again): a panel redraws its mode and rule list from this event."""

    kind: ClassVar[str] = "permissions_changed"
    mode: str = "ask"
    """The mode now in effect."""
    rules: tuple[dict[str, Any], ...] = ()
    """The active rules in the order tried, each ``{"id", "behavior", "text", "args",
    "kind", "scope", "source", "source_path", "note", "description"}``: revoke one with
    ``agent.permissions.revoke(rule["id"])``."""
    file_error: str = ""
    """Why a settings file cannot be read (``""`` when every one can)."""


@dataclass(repr=False, eq=False)
class Notice(Event):
    """Something to tell the person that is not part of the conversation, e.g. a remote
    server's events that were skipped as malformed; a UI shows ``text`` as plain text."""

    kind: ClassVar[str] = "notice"
    text: str = ""
    level: str = "warning"
    """``"info"`` or ``"warning"``."""


@dataclass(repr=False, eq=False)
class RemoteConnected(Event):
    """A remote agent heard from its server what it can do: ``agent.capabilities`` and
    ``agent.unsupported`` now hold the server's answer (a UI redraws what it said before)."""

    kind: ClassVar[str] = "remote_connected"
    capabilities: tuple[str, ...] = ()
    """What the server can do besides runs (``stop``, ``steer``, ``continue``, ...)."""


Handler = Callable[[Event], Any]


@dataclass(eq=False)
class Subscription:
    """One subscriber's queue; ``close()`` unsubscribes."""

    handler: Handler
    bus: EventBus
    max_pending: int = 10_000
    pending: deque[Event] = field(default_factory=deque)
    scheduled: bool = False
    failures: int = 0
    dropped: int = 0
    task: asyncio.Task[None] | None = None

    def close(self) -> None:
        """Stop receiving events."""
        self.bus.unsubscribe(self)


class EventBus:
    """Fan-out of events to subscribers, never blocking the emitter."""

    def __init__(self) -> None:
        self.subscriptions: list[Subscription] = []
        """The subscriptions, in order (read only: ``subscribe`` and ``close`` change it).
        Empty means nobody listens, and an emitter may skip building its events."""

    def subscribe(self, handler: Handler, *, max_pending: int = 10_000) -> Subscription:
        """Deliver every later event to ``handler`` (a function or coroutine function)."""
        sub = Subscription(handler=handler, bus=self, max_pending=max_pending)
        self.subscriptions.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove a subscription (idempotent)."""
        if sub in self.subscriptions:
            self.subscriptions.remove(sub)
        sub.pending.clear()

    def emit(self, event: Event) -> None:
        """Queue ``event`` for every subscriber."""
        if not self.subscriptions:  # most agents outside a notebook: nobody listens
            return
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        for sub in list(self.subscriptions):
            sub.pending.append(event)
            if len(sub.pending) > sub.max_pending:
                self._shed(sub)
            if loop is None:
                self._drain_sync(sub)
            elif not sub.scheduled:
                sub.scheduled = True
                if inspect.iscoroutinefunction(sub.handler):
                    sub.task = loop.create_task(self._drain_async(sub))
                else:
                    loop.call_soon(self._drain_sync, sub)

    @staticmethod
    def _shed(sub: Subscription) -> None:
        for i, ev in enumerate(sub.pending):
            if isinstance(ev, MessageUpdated):
                del sub.pending[i]
                sub.dropped += 1
                return
        sub.pending.popleft()
        sub.dropped += 1

    @staticmethod
    def _report(sub: Subscription, exc: BaseException) -> None:
        sub.failures += 1
        if sub.failures <= 3:
            logger.warning("event handler %r failed: %r", sub.handler, exc)

    def _drain_sync(self, sub: Subscription) -> None:
        sub.scheduled = False
        while sub.pending:
            event = sub.pending.popleft()
            try:
                sub.handler(event)
            except Exception as exc:  # a handler's bug never reaches the reply: logged, counted
                self._report(sub, exc)

    async def _drain_async(self, sub: Subscription) -> None:
        try:
            while sub.pending:
                event = sub.pending.popleft()
                try:
                    await sub.handler(event)
                except Exception as exc:  # as in _drain_sync: logged, counted
                    self._report(sub, exc)
        finally:
            sub.scheduled = False

    async def stream(self, max_pending: int = 10_000) -> AsyncIterator[Event]:
        """Iterate over events as they come (until the iterator is closed)."""
        queue: asyncio.Queue[Event] = asyncio.Queue()
        sub = self.subscribe(queue.put_nowait, max_pending=max_pending)
        try:
            while True:
                yield await queue.get()
        finally:
            sub.close()


__all__ = [
    "ApprovalDecided",
    "ApprovalRequested",
    "BranchCheckedOut",
    "BranchCreated",
    "CompressionConfigChanged",
    "CompressionFailed",
    "CompressionFinished",
    "CompressionStarted",
    "CompressionUndone",
    "ErrorOccurred",
    "Event",
    "EventBus",
    "Interrupted",
    "MessageAdded",
    "MessageUpdated",
    "Notice",
    "PermissionsChanged",
    "QuestionAnswered",
    "QuestionAsked",
    "RemoteConnected",
    "ReplyFinished",
    "ReplyStarted",
    "Resumed",
    "Steered",
    "StopRequested",
    "StoppedAfterStep",
    "Subscription",
    "ToolCallStarted",
    "ToolResultReady",
]
