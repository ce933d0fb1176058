"""MsgHub: the participants of a conversation observe each other's replies."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from nb_hitl.agent import AgentBase
from nb_hitl.message import Msg


class MsgHub:
    """An async context manager that broadcasts every participant's reply to the others.

    ``async with MsgHub([alice, bob, carol], announcement=topic) as hub:`` gives ``topic`` to
    everyone (``observe()``), then each ``await alice()`` inside the block is observed by
    ``bob`` and ``carol`` once it returns. An interrupted reply is observed as the text that
    reply said so far (every model turn of it, never an earlier reply's), marked
    ``metadata["_is_interrupted"]``, never a half tool call; tool calls and results stay in the
    speaker's own memory (``nb_hitl.agent._broadcast`` says how).

    Args:
        participants: the agents taking part.
        announcement: message(s) every participant observes on entering.
        enable_auto_broadcast: broadcast replies automatically (else only ``broadcast()``).
        name: the hub's name (default a random one).
    """

    def __init__(
        self,
        participants: Sequence[AgentBase],
        announcement: list[Msg] | Msg | None = None,
        enable_auto_broadcast: bool = True,
        name: str | None = None,
    ) -> None:
        for agent in participants:
            _check_agent(agent)
        self.name = name or f"msghub-{uuid.uuid4().hex[:8]}"
        self.participants: list[AgentBase] = list(participants)
        self.announcement = announcement
        self.enable_auto_broadcast = enable_auto_broadcast
        self.is_open = False
        """True inside ``async with hub`` (between entering and ``close()``)."""

    async def __aenter__(self) -> MsgHub:
        self.is_open = True
        self._subscribe()
        if self.announcement is not None:
            await self.broadcast(self.announcement)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Leave the hub (what leaving ``async with`` does): replies are no longer broadcast."""
        self.is_open = False
        for agent in self.participants:
            agent.remove_subscribers(self.name)

    def _subscribe(self) -> None:
        for agent in self.participants:
            if self.enable_auto_broadcast:
                agent.reset_subscribers(self.name, self.participants)
            else:
                agent.remove_subscribers(self.name)

    def add(self, new_participant: list[AgentBase] | AgentBase) -> None:
        """Add participant(s); they observe later replies and are observed."""
        for agent in new_participant if isinstance(new_participant, list) else [new_participant]:
            _check_agent(agent)
            if agent not in self.participants:
                self.participants.append(agent)
        self._subscribe()

    def delete(self, participant: list[AgentBase] | AgentBase) -> None:
        """Remove participant(s): they no longer observe or are observed."""
        for agent in participant if isinstance(participant, list) else [participant]:
            if agent in self.participants:
                self.participants.remove(agent)
                agent.remove_subscribers(self.name)
        self._subscribe()

    async def broadcast(self, msg: list[Msg] | Msg) -> None:
        """Every participant observes ``msg`` (waiting for one that is replying)."""
        for agent in list(self.participants):
            await agent.wait_idle()
            await agent.observe(msg)

    def set_auto_broadcast(self, enable: bool) -> None:
        """Turn the automatic broadcast of replies on or off."""
        self.enable_auto_broadcast = enable
        self._subscribe()

    def __repr__(self) -> str:
        names = ", ".join(a.name for a in self.participants)
        return f"MsgHub(name={self.name!r}, participants=[{names}])"


def _check_agent(agent: Any) -> None:
    if not isinstance(agent, AgentBase):
        raise TypeError(
            f"MsgHub participants must be agents (AgentBase), got {type(agent).__name__}; "
            "e.g. MsgHub([alice, bob])."
        )


__all__ = ["MsgHub"]
