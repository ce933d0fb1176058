"""What the other participants of a ``MsgHub`` observe of a reply.

A reply that finished is observed as it is, less any tool blocks (a tool call and its result
belong to the speaker's own history). An interrupted reply is observed as the speaker's
partial text, marked ``metadata["_is_interrupted"]``; never a half tool call.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from nb_hitl.message import Msg

if TYPE_CHECKING:
    from ._base import AgentBase

_TOOL_BLOCKS = ("tool_use", "tool_result")


def observed_form(speaker: AgentBase, msg: Msg) -> Msg:
    """The message the other participants observe for ``speaker``'s reply ``msg``."""
    if msg.is_interrupted:
        text = _reply_text(speaker, msg)
        metadata: dict[str, Any] = {
            k: msg.metadata[k]
            for k in ("_is_interrupted", "interrupted_at", "interrupted_by", "pipeline")
            if k in msg.metadata
        }
        metadata["_partial"] = bool(text)
        shown = text if text else (msg.get_text_content() or "")
        return Msg(msg.name, shown, msg.role, metadata=metadata)
    blocks = msg.get_content_blocks()
    if isinstance(msg.content, str) or not any(b.type in _TOOL_BLOCKS for b in blocks):
        return msg
    kept = [b for b in blocks if b.type not in _TOOL_BLOCKS]
    return Msg(msg.name, kept, msg.role, metadata=dict(msg.metadata))


def _reply_text(speaker: AgentBase, marker: Msg) -> str:
    """The text the speaker wrote in the reply that ``marker`` (its interrupted message) ends:
    its own assistant messages right before it, tool results skipped, tool calls left out."""
    memory = speaker.memory
    if memory is None:
        return ""
    msgs = list(memory.messages)
    end = next((i for i, m in enumerate(msgs) if m.id == marker.id), None)
    if end is None:
        return ""
    texts: list[str] = []
    for m in reversed(msgs[:end]):
        blocks = m.get_content_blocks()
        if (
            not isinstance(m.content, str)
            and blocks
            and all(b.type == "tool_result" for b in blocks)
        ):
            continue
        if m.name != speaker.name or m.role != "assistant":
            break
        text = "\n".join(b.text for b in m.get_content_blocks("text")).strip()
        if text:
            texts.append(text)
    return "\n\n".join(reversed(texts))


async def wait_idle(agent: AgentBase) -> None:
    """Wait until ``agent`` has no reply running (observe() refuses a replying agent)."""
    while agent.is_replying:
        ctx = agent._reply
        task = ctx.task if ctx is not None else None
        if task is None or task.done():
            await asyncio.sleep(0)
        else:
            await asyncio.wait({task})


class HubMixin:
    """AgentScope's subscriber API on agents: a ``MsgHub`` makes its participants observe
    each other's replies through it."""

    _subscribers: dict[str, list[AgentBase]]
    """Per hub name, the agents that observe this agent's replies."""

    def reset_subscribers(self, msghub_name: str, subscribers: list[AgentBase]) -> None:
        """For hub ``msghub_name``, make ``subscribers`` (but this agent) observe its replies."""
        self._subscribers[msghub_name] = [a for a in subscribers if a is not self]

    def remove_subscribers(self, msghub_name: str) -> None:
        """Stop giving this agent's replies to the participants of hub ``msghub_name``."""
        self._subscribers.pop(msghub_name, None)

    async def _broadcast_to_subscribers(self, msg: Msg) -> None:
        """Give a finished reply to every subscriber, hub by hub (``observed_form``)."""
        speaker: AgentBase = self  # type: ignore[assignment]
        shown = observed_form(speaker, msg)
        for subscribers in list(self._subscribers.values()):
            for agent in list(subscribers):
                if agent is not self:
                    await wait_idle(agent)
                    await agent.observe(shown)


__all__ = ["HubMixin", "observed_form", "wait_idle"]
