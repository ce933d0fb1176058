"""What the other participants of a ``MsgHub`` observe of a reply.

The observed form of a reply comes from that reply's own record (``ReplyRecord``, by its id),
never from walking back through the speaker's memory, so retries, steering and continuations
cannot leak one reply's text into another's:

- Every message the speaker records of its own during a reply (a model turn, the partial
  answer an interrupt kept) is noted in the reply's record as it is recorded (``said``), from
  the ``MessageAdded`` event that carries the reply's id. Steering messages, tool results and
  the interrupted marker are not the speaker's words and are not noted.
- A reply that finished is observed as the message it returned, less any tool blocks (a tool
  call and its result belong to the speaker's own history).
- An interrupted reply is observed as the text it said so far (every model turn of it, joined
  by a blank line), marked ``metadata["_is_interrupted"]``; never a half tool call, never an
  earlier reply's text or marker. A reply that said nothing is observed as its marker's text.
- A reply that *continues* the interrupted reply before it (``ReplyRecord.continues``, or a
  message of it carrying ``metadata["continued_by"]``) is observed as what it added: a message
  that repeats the interrupted partial text first (the joined answer) contributes only what
  follows it, so the others hold each word exactly once. Its observed form says which observed
  message it continues (``metadata["continues"]``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from nb_hitl.message import Msg, TextBlock

from ._lifecycle import ACTIVE_STATES, ReplyRecord

if TYPE_CHECKING:
    from nb_hitl.events import MessageAdded

    from ._base import AgentBase

_TOOL_BLOCKS = ("tool_use", "tool_result")
_KEPT = ("_is_interrupted", "interrupted_at", "interrupted_by", "pipeline")


def reply_record(speaker: AgentBase, msg: Msg) -> ReplyRecord | None:
    """The record of ``speaker``'s reply that returned ``msg`` (its latest or the one before)."""
    latest = speaker._reply
    for record in (latest, latest.previous if latest is not None else None):
        if record is not None and record.result is msg:
            return record
    return None


def _ids(incoming: Any) -> set[str]:
    msgs = incoming if isinstance(incoming, list) else [incoming]
    return {m.id for m in msgs if isinstance(m, Msg)}


def said_text(msg: Msg) -> str:
    """The text of one of the speaker's own messages, as the others observe it."""
    return "\n".join(b.text for b in msg.get_content_blocks("text")).strip()


def _continued(record: ReplyRecord) -> tuple[str, Msg | None]:
    """For a continuation: the partial text it continues and what the others were given of
    the continued reply; ``("", None)`` for any other reply."""
    before = record.previous
    if before is None or before.result is None or not before.result.is_interrupted:
        return "", None
    marked = record.continues or any("continued_by" in m.metadata for m in record.said)
    if not marked:
        return "", None
    return (said_text(before.said[-1]) if before.said else ""), before.observed


def _added(text: str, partial: str) -> str:
    if partial and text.startswith(partial):
        return text[len(partial) :].strip()
    return text


def observed_form(speaker: AgentBase, msg: Msg, record: ReplyRecord | None = None) -> Msg:
    """The message the other participants observe of ``speaker``'s reply ``msg``.

    Args:
        speaker: the agent that replied.
        msg: what its reply returned.
        record: that reply's record (default: found by ``msg`` among the speaker's latest).
    """
    record = record if record is not None else reply_record(speaker, msg)
    partial, continued = _continued(record) if record is not None else ("", None)
    if msg.is_interrupted:
        texts = [said_text(m) for m in record.said] if record is not None else []
        if texts and partial:
            texts[0] = _added(texts[0], partial)
        text = "\n\n".join(t for t in texts if t)
        metadata: dict[str, Any] = {k: msg.metadata[k] for k in _KEPT if k in msg.metadata}
        metadata["_partial"] = bool(text)
        if continued is not None:
            metadata["continues"] = continued.id
        return Msg(msg.name, text or (msg.get_text_content() or ""), msg.role, metadata=metadata)
    blocks = msg.get_content_blocks()
    has_tools = not isinstance(msg.content, str) and any(b.type in _TOOL_BLOCKS for b in blocks)
    if not has_tools and not partial:
        return msg
    kept = [b for b in blocks if b.type not in _TOOL_BLOCKS]
    metadata = dict(msg.metadata)
    if partial:
        first = next((i for i, b in enumerate(kept) if isinstance(b, TextBlock)), None)
        if first is not None:
            block = kept[first]
            assert isinstance(block, TextBlock)
            kept[first] = block.model_copy(update={"text": _added(block.text.strip(), partial)})
        if continued is not None:
            metadata["continues"] = continued.id
    return Msg(msg.name, kept, msg.role, metadata=metadata)


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

    name: str
    _reply: ReplyRecord | None
    _subscribers: dict[str, list[AgentBase]]
    """Per hub name, the agents that observe this agent's replies."""

    def reset_subscribers(self, msghub_name: str, subscribers: list[AgentBase]) -> None:
        """For hub ``msghub_name``, make ``subscribers`` (but this agent) observe its replies."""
        self._subscribers[msghub_name] = [a for a in subscribers if a is not self]

    def remove_subscribers(self, msghub_name: str) -> None:
        """Stop giving this agent's replies to the participants of hub ``msghub_name``."""
        self._subscribers.pop(msghub_name, None)

    def _record_said(self, event: MessageAdded) -> None:
        """Note a message the running reply records of its own in that reply's record."""
        ctx, msg = self._reply, event.msg
        if (
            ctx is None
            or msg is None
            or event.reply_id != ctx.id
            or ctx.state not in ACTIVE_STATES
            or msg.name != self.name
            or msg.role != "assistant"
            or msg.is_interrupted
            or msg.metadata.get("_steered")
            or msg.id in _ids(ctx.msg)
            or any(m.id == msg.id for m in ctx.said)
        ):
            return
        ctx.said.append(msg)

    async def _broadcast_to_subscribers(self, msg: Msg) -> None:
        """Give a finished reply to every subscriber, hub by hub (``observed_form``)."""
        speaker: AgentBase = self  # type: ignore[assignment]
        record = reply_record(speaker, msg)
        shown = observed_form(speaker, msg, record)
        if record is not None:
            record.observed = shown
        for subscribers in list(self._subscribers.values()):
            for agent in list(subscribers):
                if agent is not self:
                    await wait_idle(agent)
                    await agent.observe(shown)


__all__ = ["HubMixin", "observed_form", "reply_record", "said_text", "wait_idle"]
