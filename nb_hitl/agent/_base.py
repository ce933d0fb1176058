"""AgentBase: a reply that runs as a task of its own and can be interrupted anywhere.

The AgentScope 1.x model, without its defects. Each reply follows one explicit lifecycle,
held in a ``ReplyRecord`` record with its own id (the task that runs it: ``_reply_task.py``)::

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
import uuid
from collections.abc import AsyncIterator
from typing import Any

from nb_hitl.events import Event, EventBus, Handler, MessageAdded, StopRequested, Subscription
from nb_hitl.exceptions import AgentBusyError
from nb_hitl.message import MetaKey, Msg
from nb_hitl.module import StateModule

from ._broadcast import HubMixin
from ._console import ConsoleMixin
from ._lifecycle import ACTIVE_STATES, ReplyRecord
from ._live import register
from ._reply_task import ReplyTaskMixin

DEFAULT_INTERRUPT_TEXT = "[Interrupted] The agent was interrupted by the user."


class AgentBase(StateModule, ConsoleMixin, ReplyTaskMixin, HubMixin):
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
        self._subscribers = {}
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

    def _interrupted_msg(self, role: str = "assistant", **extra: Any) -> Msg:
        metadata: dict[str, Any] = {
            MetaKey.IS_INTERRUPTED: True,
            MetaKey.INTERRUPTED_AT: self._where,
            MetaKey.INTERRUPTED_BY: self._reply.cause if self._reply is not None else "interrupt",
        }
        metadata.update(extra)
        return Msg(self.name, self.interrupt_text, role, metadata=metadata)  # type: ignore[arg-type]

    # -- the lifecycle -------------------------------------------------------------------------
    @property
    def is_replying(self) -> bool:
        """True from ``agent(msg)`` until its reply has finished (normally or interrupted)."""
        return self._reply is not None and self._reply.state in ACTIVE_STATES

    @property
    def reply_state(self) -> str:
        """``idle``, ``starting``, ``running``, ``interrupting`` or ``finished``."""
        return "idle" if self._reply is None else self._reply.state

    @property
    def _reply_id(self) -> str | None:
        return self._reply.id if self._reply is not None else None

    async def __call__(self, *args: Any, **kwargs: Any) -> Msg:
        """Reply in a task of the agent's own: ``reply(*args, **kwargs)``, as given.

        ``agent(msg)`` replies to ``msg`` (recorded in memory first), ``agent()`` to what
        memory holds; a ``reply`` written without a message parameter (AgentScope allows
        ``async def reply(self)``) is called without one. In a ``MsgHub`` the reply is then
        observed by the other participants.
        """
        result = await self._call_reply(*args, **kwargs)
        if self._subscribers:
            await self._broadcast_to_subscribers(result)
        return result

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
        if _check_when(when) == "step":
            return self._request_stop(self._reply, msg)
        return self._interrupt_reply(self._reply, msg, cause)

    def interrupt_threadsafe(
        self, msg: Msg | None = None, *, cause: str = "interrupt", when: str = "now"
    ) -> concurrent.futures.Future[bool]:
        """Interrupt from any thread (e.g. a widget callback); returns a future of the result.

        It interrupts the reply running when it is called: if that reply finished before the
        request reached the event loop, a newer reply is left alone and the result is False.
        """
        step = _check_when(when) == "step"
        if step and not self.supports_stop_after_step:
            self._request_stop(None, None)  # raises TypeError here, in the caller's thread
        loop = self._loop
        ctx = self._reply
        out: concurrent.futures.Future[bool] = concurrent.futures.Future()
        if loop is None or loop.is_closed() or ctx is None or ctx.state not in ACTIVE_STATES:
            out.set_result(False)
            return out

        def on_loop() -> None:
            if out.set_running_or_notify_cancel():
                try:
                    done = self._request_stop(ctx, msg) if step else None
                    out.set_result(
                        done if done is not None else self._interrupt_reply(ctx, msg, cause)
                    )
                except BaseException as exc:  # pragma: no cover - defensive
                    out.set_exception(exc)

        try:
            loop.call_soon_threadsafe(on_loop)
        except RuntimeError:  # the loop closed meanwhile
            out.set_result(False)
        return out

    async def stop_after_step(self, msg: Msg | None = None) -> bool:
        """End the running reply cleanly at its next step boundary; ``False`` if none runs.

        Nothing is cancelled: the model call or tool batch in flight finishes, then the reply
        ends with a complete history and returns a message marked
        ``metadata["stopped_after_step"]`` (not ``_is_interrupted``); ``resume()`` goes on from
        there. A ``StopRequested`` event is emitted at once (a UI shows "stopping after this
        step..."); an ``interrupt()`` meanwhile still stops it at once. A reply that finishes
        by itself first just finishes. ``msg``, if given, is recorded after the reply.

        Raises:
            TypeError: this agent has no step boundaries (``supports_stop_after_step``).
        """
        return self.interrupt_nowait(msg, when="step")

    def stop_after_step_nowait(self, msg: Msg | None = None) -> bool:
        """``stop_after_step()`` for sync callbacks running on the agent's event loop thread."""
        return self.interrupt_nowait(msg, when="step")

    def stop_after_step_threadsafe(self, msg: Msg | None = None) -> concurrent.futures.Future[bool]:
        """``stop_after_step()`` from any thread; returns a future of the result."""
        return self.interrupt_threadsafe(msg, when="step")

    @property
    def stop_pending(self) -> bool:
        """True while a ``stop_after_step()`` waits for the running reply's next step boundary."""
        ctx = self._reply
        return ctx is not None and ctx.stop_after_step and ctx.state in ("starting", "running")

    def _request_stop(self, ctx: ReplyRecord | None, msg: Msg | None) -> bool:
        if not self.supports_stop_after_step:
            raise TypeError(
                f"{type(self).__name__} has no step boundaries to stop at; use "
                "`await agent.interrupt()` to stop it now."
            )
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

    # -- events -------------------------------------------------------------------------------
    def subscribe(self, handler: Handler, *, max_pending: int = 10_000) -> Subscription:
        """Call ``handler(event)`` for every later event (see ``nb_hitl.events``)."""
        return self._bus.subscribe(handler, max_pending=max_pending)

    def events(self) -> AsyncIterator[Event]:
        """Iterate over this agent's events as they come."""
        return self._bus.stream()

    def _emit(self, event: Event) -> None:
        if isinstance(event, MessageAdded):
            self._record_said(event)
        self._bus.emit(event)

    # -- observing ------------------------------------------------------------------------------
    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        """Record ``msg`` (one message, several, or none) in memory without replying."""
        if self.is_replying:
            raise AgentBusyError(self.name)
        if self.memory is None:
            return
        for m in [msg] if isinstance(msg, Msg) else list(msg or []):
            await self.memory.add(m)
            self._emit(MessageAdded(self.name, None, m))

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
        from nb_hitl.session._schema import check_agent_settings

        check_agent_settings(state)
        super().load_state_dict(state, strict=strict)
        name = state.get("name")
        if isinstance(name, str) and name.strip():
            self.name = name
        self.interrupt_text = state.get("interrupt_text", self.interrupt_text)

    def __repr__(self) -> str:
        status = "replying" if self.is_replying else "idle"
        return f"{type(self).__name__}(name={self.name!r}, {status})"


def _check_when(when: str) -> str:
    if when not in ("now", "step"):
        raise ValueError(
            f"when must be 'now' (interrupt at once) or 'step' (stop after the current step), "
            f"got {when!r}."
        )
    return when
