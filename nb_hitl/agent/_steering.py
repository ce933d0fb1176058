"""Steering: give a running reply new input without cancelling anything.

``agent.steer(msg)`` queues ``msg``. The running reply takes it in at its next step boundary
(after the current model turn and its tool batch, before the next reasoning step): ``msg`` is
recorded in memory there, a ``Steered`` event says where, and the reply goes on with it in its
prompt. Nothing is cancelled: the model turn or tool batch in flight finishes normally.

- A reply that ends before a boundary (a final answer, an interrupt) leaves the message queued:
  the next reply records it at its start, before its own incoming message, so it is answered
  then. It is never lost and never recorded twice.
- With no reply running it is simply the next reply's input (``await agent()`` answers it).
- While the reply is parked on an approval it stays queued until the decided calls have run,
  then the boundary takes it in.

Recorded steering messages carry ``metadata["_steered"] = True`` and ``metadata["steered_at"]``
(where they were taken in), so transcripts can show them where they landed.

Queued messages are part of the agent's state (``state_dict()["steering"]``), so a session
saved while one waits (an idle agent, or a reply parked on an approval) brings it back on
load, and the next reply, or the resumed one, takes it in as if nothing had happened.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from nb_hitl.events import MessageAdded, Steered
from nb_hitl.message import MetaKey, Msg

from ._base import AgentBase
from ._lifecycle import ACTIVE_STATES


class SteeringMixin(AgentBase):
    """The steering queue and its API; ``ReActAgent`` takes it in at its step boundaries."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._steer_queue: list[Msg] = []

    @property
    def pending_steering(self) -> list[Msg]:
        """Steering messages queued and not yet recorded in memory (oldest first)."""
        return list(self._steer_queue)

    def _check_steer(self, msg: Any) -> Msg:
        if isinstance(msg, str):
            return Msg("user", msg, "user")
        if not isinstance(msg, Msg):
            raise TypeError(
                f"steer() takes a Msg or a str, got {type(msg).__name__}; "
                "e.g. agent.steer(Msg('user', 'use the staging database', 'user'))."
            )
        return msg

    def _queue_steer(self, msg: Msg) -> bool:
        if any(m.id == msg.id for m in self._steer_queue) or (
            self.memory is not None and self.memory.get(msg.id) is not None
        ):
            return self._steer_running()  # already queued or recorded: never twice
        self._steer_queue.append(msg)
        return self._steer_running()

    def _steer_running(self) -> bool:
        ctx = self._reply
        return ctx is not None and ctx.state in ("starting", "running")

    async def steer(self, msg: Msg | str) -> bool:
        """Queue ``msg`` for the running reply, which takes it in at its next step boundary.

        Args:
            msg: a ``Msg`` (usually ``role="user"``) or its text.

        Returns:
            ``True`` when a reply is running (it, or the next reply if it ends first, will
            answer ``msg``); ``False`` when none is: ``msg`` waits for the next reply.
        """
        return self.steer_nowait(msg)

    def steer_nowait(self, msg: Msg | str) -> bool:
        """``steer()`` for sync callbacks running on the agent's event loop thread."""
        return self._queue_steer(self._check_steer(msg))

    def steer_threadsafe(self, msg: Msg | str) -> concurrent.futures.Future[bool]:
        """Steer from any thread (e.g. a widget callback); returns a future of the result."""
        m = self._check_steer(msg)
        out: concurrent.futures.Future[bool] = concurrent.futures.Future()
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running() or _on_loop(loop):
            out.set_result(self._queue_steer(m))  # no loop to hop onto, or already on it
            return out

        def on_loop() -> None:
            if out.set_running_or_notify_cancel():
                out.set_result(self._queue_steer(m))

        try:
            loop.call_soon_threadsafe(on_loop)
        except RuntimeError:  # the loop closed meanwhile
            if not out.done():
                out.set_result(self._queue_steer(m))
        return out

    # -- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The agent's state plus the steering messages still queued (``"steering"``)."""
        state = super().state_dict()
        state["steering"] = [m.to_dict() for m in self._steer_queue]
        return state

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Restore ``state_dict()`` output; the queue becomes the saved one (empty if none).

        Raises:
            ValueError: ``state["steering"]`` is not a list of messages (nothing changed).
        """
        queue = _parse_queue(state.get("steering") if isinstance(state, dict) else None)
        super().load_state_dict(state, strict=strict)
        memory = self.memory
        self._steer_queue = [
            m for m in queue if memory is None or memory.get(m.id) is None
        ]  # one recorded meanwhile is never taken in twice

    def _take_steering(self, where: str) -> list[Msg]:
        """Record the queued steering messages in memory now, synchronously (the reply calls
        this at a step boundary, or at its start); emits ``MessageAdded`` and ``Steered``."""
        taken: list[Msg] = []
        ctx = self._reply
        reply_id = ctx.id if ctx is not None and ctx.state in ACTIVE_STATES else None
        while self._steer_queue:
            msg = self._steer_queue.pop(0)
            if self.memory.get(msg.id) is not None:
                continue  # recorded meanwhile (e.g. sent with agent(msg) too)
            msg.metadata[MetaKey.STEERED] = True
            msg.metadata[MetaKey.STEERED_AT] = where
            self.memory.add_sync(msg)
            self._emit(MessageAdded(self.name, reply_id, msg))
            self._emit(Steered(self.name, reply_id, msg, where))
            taken.append(msg)
        return taken

    def _drop_queued(self, msgs: list[Msg]) -> None:
        """Forget queued steering that is being recorded another way (e.g. ``agent(msg)``)."""
        ids = {m.id for m in msgs}
        self._steer_queue = [m for m in self._steer_queue if m.id not in ids]


def _parse_queue(raw: Any) -> list[Msg]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError(
            f"agent state: steering must be a list of messages, not {type(raw).__name__}"
        )
    queue: list[Msg] = []
    for i, item in enumerate(raw):
        try:
            queue.append(item if isinstance(item, Msg) else Msg.from_dict(item))
        except Exception as exc:
            raise ValueError(f"agent state: steering[{i}] is not a message ({exc})") from None
    return queue


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


__all__ = ["SteeringMixin"]
