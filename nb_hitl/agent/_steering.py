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

The queue is the ``SteeringInbox`` part (``agent.steering``); ``ReActAgent`` keeps the
``steer`` methods, records what the inbox hands over and emits the events.

Queued messages are part of the agent's state (``state_dict()["steering"]``), so a session
saved while one waits (an idle agent, or a reply parked on an approval) brings it back on
load, and the next reply, or the resumed one, takes it in as if nothing had happened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nb_hitl.message import MetaKey, Msg


class SteeringInbox:
    """The steering messages queued for a reply and not yet recorded (``agent.steering``).

    The agent's ``steer()`` puts messages in; its reply takes them in at a step boundary
    (``take``) and records them. The inbox knows nothing of memory or events: the agent
    passes in what is recorded already.
    """

    def __init__(self, queued: list[Msg] | None = None) -> None:
        self._queue: list[Msg] = list(queued or [])

    @property
    def pending(self) -> list[Msg]:
        """The queued messages, oldest first (a copy)."""
        return list(self._queue)

    def __len__(self) -> int:
        return len(self._queue)

    def copy(self) -> SteeringInbox:
        """An inbox holding the same messages (a session load restores it on failure)."""
        return SteeringInbox(self._queue)

    def put(self, msg: Msg, recorded: Callable[[str], bool]) -> None:
        """Queue ``msg`` unless it is queued already or ``recorded(msg.id)``: never twice."""
        if not recorded(msg.id) and all(m.id != msg.id for m in self._queue):
            self._queue.append(msg)

    def take(self, where: str, recorded: Callable[[str], bool]) -> list[Msg]:
        """Empty the inbox: its messages not ``recorded`` meanwhile, marked as steered at
        ``where`` (``MetaKey.STEERED``, ``MetaKey.STEERED_AT``), for the agent to record."""
        taken: list[Msg] = []
        while self._queue:
            msg = self._queue.pop(0)
            if recorded(msg.id):
                continue  # recorded meanwhile (e.g. sent with agent(msg) too)
            msg.metadata[MetaKey.STEERED] = True
            msg.metadata[MetaKey.STEERED_AT] = where
            taken.append(msg)
        return taken

    def drop(self, msgs: list[Msg]) -> None:
        """Forget queued messages that are being recorded another way (e.g. ``agent(msg)``)."""
        ids = {m.id for m in msgs}
        self._queue = [m for m in self._queue if m.id not in ids]

    def state(self) -> list[dict[str, Any]]:
        """The queue as JSON-able dicts (``state_dict()["steering"]``)."""
        return [m.to_dict() for m in self._queue]


def steer_message(msg: Any) -> Msg:
    """``steer()``'s argument as a message: a ``Msg``, or a ``str`` said by the user."""
    if isinstance(msg, str):
        return Msg("user", msg, "user")
    if not isinstance(msg, Msg):
        raise TypeError(
            f"steer() takes a Msg or a str, got {type(msg).__name__}; "
            "e.g. agent.steer(Msg('user', 'use the staging database', 'user'))."
        )
    return msg


def parse_queue(raw: Any) -> list[Msg]:
    """The saved queue ``state_dict()["steering"]`` as messages (``[]`` for None).

    Raises:
        ValueError: ``raw`` is not a list of messages.
    """
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


__all__ = ["SteeringInbox", "parse_queue", "steer_message"]
