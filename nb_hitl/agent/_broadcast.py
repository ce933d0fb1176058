"""What the other participants of a ``MsgHub`` observe of a reply.

The observed form of a reply comes from that reply's own record (``ReplyRecord``, by its id),
never from walking back through the speaker's memory, so retries, steering and continuations
cannot leak one reply's text into another's:

- Every message the speaker records of its own during a reply (a model turn, the partial
  answer an interrupt kept) is noted in the reply's record as it is recorded (``said``): the
  agent calls ``note_said`` with the reply's id as it records one. Steering messages, tool
  results and the interrupted marker are not the speaker's words and are not noted.
- A reply that finished is observed as the message it returned, less any tool blocks (a tool
  call and its result belong to the speaker's own history).
- An interrupted reply is observed as the text it said so far (every model turn of it, joined
  by a blank line), marked ``metadata["_is_interrupted"]``; never a half tool call, never an
  earlier reply's text or marker. A reply that said nothing is observed as its marker's text.
- A reply that *continues* the interrupted reply before it (``agent.resume()``: its messages
  or its result carry ``metadata["continued_by"]``, or ``ReplyRecord.continues`` is set) is
  observed as what it added: a message that repeats the partial answer first (the joined
  answer, ``metadata["partial_chars"]`` marking the seam) contributes only what follows the
  seam, so the others hold each word exactly once, interrupted again or not. Its observed form
  points at the observed message it continues (``metadata["continues"]``); the speaker's own
  ids (``continued_from``...) are left out, the others do not hold those messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from nb_hitl.message import MetaKey, Msg, TextBlock

from ._lifecycle import ACTIVE_STATES, ReplyRecord


class Participant(Protocol):
    """What broadcasting uses of an agent (``AgentBase`` has it all; it is not imported here,
    as the base agent owns a ``Subscribers``)."""

    name: str
    memory: Any

    @property
    def is_replying(self) -> bool: ...

    @property
    def _reply(self) -> ReplyRecord | None: ...

    async def observe(self, msg: Msg | list[Msg] | None) -> None: ...


_TOOL_BLOCKS = ("tool_use", "tool_result")
_KEPT = (MetaKey.IS_INTERRUPTED, MetaKey.INTERRUPTED_AT, MetaKey.INTERRUPTED_BY, MetaKey.PIPELINE)


def reply_record(speaker: Participant, msg: Msg) -> ReplyRecord | None:
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


def is_continuation(record: ReplyRecord) -> bool:
    """Whether the reply continues the interrupted reply before it (``agent.resume()``)."""
    if record.continues:
        return True
    msgs = [*record.said, *([record.result] if record.result is not None else [])]
    return any(MetaKey.CONTINUED_BY in m.metadata for m in msgs)


def _added(msg: Msg, partial: str) -> str:
    """What ``msg`` adds to the partial answer it continues: the text after its seam
    (``metadata["partial_chars"]``), or after a repeat of ``partial``; else all of it."""
    chars = msg.metadata.get(MetaKey.PARTIAL_CHARS)
    if isinstance(chars, int) and not isinstance(chars, bool) and chars >= 0:
        return "".join(b.text for b in msg.get_content_blocks("text"))[chars:].strip()
    text = said_text(msg)
    if partial and text.startswith(partial):
        return text[len(partial) :].strip()
    return text


def _continuing(record: ReplyRecord | None) -> tuple[bool, str, Msg | None]:
    """For a continuation: True, the partial text it continues (when the interrupted reply is
    the one before it on this agent) and what the others were given of that reply."""
    if record is None or not is_continuation(record):
        return False, "", None
    before = record.previous
    if before is None or before.result is None or not before.result.is_interrupted:
        return True, "", None
    msgs = [*record.said, *([record.result] if record.result is not None else [])]
    named = {
        m.metadata[MetaKey.CONTINUES]
        for m in msgs
        if isinstance(m.metadata.get(MetaKey.CONTINUES), str)
    }
    if named and before.result.id not in named:  # it continues another reply (another branch)
        return True, "", None
    partial = said_text(before.said[-1]) if before.said else ""
    return True, partial, before.observed


def _link(metadata: dict[str, Any], continued: Msg | None) -> None:
    """Point a continuation's observed form at the observed message it continues (the
    speaker's own ids, of messages the others do not hold, are left out)."""
    for key in (MetaKey.CONTINUES, MetaKey.CONTINUED_FROM, MetaKey.PARTIAL_CHARS):
        metadata.pop(key, None)
    if continued is not None:
        metadata[MetaKey.CONTINUES] = continued.id


def observed_form(speaker: Participant, msg: Msg, record: ReplyRecord | None = None) -> Msg:
    """The message the other participants observe of ``speaker``'s reply ``msg``.

    Args:
        speaker: the agent that replied.
        msg: what its reply returned.
        record: that reply's record (default: found by ``msg`` among the speaker's latest).
    """
    record = record if record is not None else reply_record(speaker, msg)
    continuation, partial, continued = _continuing(record)
    if msg.is_interrupted:
        said = record.said if record is not None else []
        texts = [_added(m, partial) if continuation else said_text(m) for m in said]
        text = "\n\n".join(t for t in texts if t)
        metadata: dict[str, Any] = {k: msg.metadata[k] for k in _KEPT if k in msg.metadata}
        metadata[MetaKey.PARTIAL] = bool(text)
        if continuation:
            _link(metadata, continued)
        return Msg(msg.name, text or (msg.get_text_content() or ""), msg.role, metadata=metadata)
    blocks = msg.get_content_blocks()
    has_tools = not isinstance(msg.content, str) and any(b.type in _TOOL_BLOCKS for b in blocks)
    if not has_tools and not continuation:
        return msg
    kept: list[Any] = [b for b in blocks if b.type not in _TOOL_BLOCKS]
    metadata = dict(msg.metadata)
    if continuation:
        first = next((i for i, b in enumerate(kept) if isinstance(b, TextBlock)), None)
        if first is not None:
            added = _added(msg, partial)
            kept = [b for b in kept if not isinstance(b, TextBlock)]
            if added:
                kept.insert(min(first, len(kept)), TextBlock(text=added))
        _link(metadata, continued)
    return Msg(msg.name, kept, msg.role, metadata=metadata)


async def wait_idle(agent: Participant) -> None:
    """Wait until ``agent`` has no reply running (observe() refuses a replying agent)."""
    while agent.is_replying:
        ctx = agent._reply
        task = ctx.task if ctx is not None else None
        if task is None or task.done():
            await asyncio.sleep(0)
        else:
            await asyncio.wait({task})


class Subscribers:
    """The participants that observe one agent's replies, per hub (``agent.subscribers``).

    AgentScope's subscriber API (``reset_subscribers`` / ``remove_subscribers`` on the agent)
    keeps its lists here; a ``MsgHub`` sets them. ``note_said`` keeps the reply record's
    ``said`` list (what the others observe of an interrupted reply), ``broadcast`` gives a
    finished reply to every subscriber.
    """

    def __init__(self, speaker: Participant) -> None:
        self._speaker = speaker
        self._by_hub: dict[str, list[Participant]] = {}
        """Per hub name, the agents that observe the speaker's replies."""

    def __bool__(self) -> bool:
        return bool(self._by_hub)

    def reset(self, msghub_name: str, subscribers: Sequence[Participant]) -> None:
        """For hub ``msghub_name``, make ``subscribers`` (but the speaker) observe its replies."""
        self._by_hub[msghub_name] = [a for a in subscribers if a is not self._speaker]

    def remove(self, msghub_name: str) -> None:
        """Stop giving the speaker's replies to the participants of hub ``msghub_name``."""
        self._by_hub.pop(msghub_name, None)

    def hubs(self) -> dict[str, list[Participant]]:
        """A copy of the subscribers, by hub name."""
        return {name: list(agents) for name, agents in self._by_hub.items()}

    def note_said(self, reply_id: str | None, msg: Msg | None) -> None:
        """Note a message reply ``reply_id`` recorded of its own in that reply's record, if
        it is the running reply."""
        speaker = self._speaker
        ctx = speaker._reply
        if (
            ctx is None
            or msg is None
            or reply_id != ctx.id
            or ctx.state not in ACTIVE_STATES
            or msg.name != speaker.name
            or msg.role != "assistant"
            or msg.is_interrupted
            or msg.metadata.get(MetaKey.STEERED)
            or msg.id in _ids(ctx.msg)
            or any(m.id == msg.id for m in ctx.said)
        ):
            return
        ctx.said.append(msg)

    async def broadcast(self, msg: Msg) -> None:
        """Give a finished reply to every subscriber, hub by hub (``observed_form``)."""
        speaker = self._speaker
        record = reply_record(speaker, msg)
        shown = observed_form(speaker, msg, record)
        if record is not None:
            record.observed = shown
        for subscribers in list(self._by_hub.values()):
            for agent in list(subscribers):
                if agent is not speaker:
                    await wait_idle(agent)
                    await agent.observe(shown)


__all__ = [
    "Participant",
    "Subscribers",
    "is_continuation",
    "observed_form",
    "reply_record",
    "said_text",
    "wait_idle",
]
