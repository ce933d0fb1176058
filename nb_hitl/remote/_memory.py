"""A remote agent's memory: the server's history mirrored, and kept valid after a failure.

A ``RemoteAgent`` owns one ``MirroredMemory`` (``agent.mirror``). ``reconcile`` makes memory
the server's messages (``MESSAGES_SNAPSHOT``, the history endpoint) in the server's order, ids
kept, while messages only this client made stay after their predecessor; ``keep_partial`` and
``close_open_calls`` keep the text so far and give every tool call a result when a run is
stopped or fails, so the next run sends a valid history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from nb_hitl.events import MessageAdded
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock

from ._convert import from_agui, same_content

if TYPE_CHECKING:
    from nb_hitl.events import Event
    from nb_hitl.memory import InMemoryMemory

    from ._run import RunMapper

LOCAL = "_remote_local"
"""Metadata flag of a message only this client made (the interrupted message, a closed call)."""


class MirrorHost(Protocol):
    """What the mirror uses of its agent: names, memory, the run in flight, its events."""

    name: str
    user_name: str
    memory: InMemoryMemory
    _mapper: RunMapper | None

    @property
    def reply_id(self) -> str | None: ...

    def emit(self, event: Event) -> None: ...


class MirroredMemory:
    """The agent's memory kept as the server's (``agent.mirror``).

    Args:
        host: the ``RemoteAgent`` (``MirrorHost``).
    """

    def __init__(self, host: MirrorHost) -> None:
        self._host = host

    def commit(self, msg: Msg) -> None:
        """Record ``msg`` (replacing the message of its id, if any) and say so."""
        host = self._host
        if host.memory.get(msg.id) is not None:
            host.memory.replace(msg)
        else:
            host.memory.add_sync(msg)
        host.emit(MessageAdded(host.name, host.reply_id, msg))

    def call_in_memory(self, call_id: str) -> ToolUseBlock | None:
        """The tool call ``call_id`` of memory (the latest), or None."""
        for msg in reversed(self._host.memory.messages):
            for block in msg.get_content_blocks("tool_use"):
                if block.id == call_id:
                    return block
        return None

    def reconcile(self, messages: list[Any], drop_local: bool = False) -> None:
        """Make memory the server's ``messages`` (AG-UI models), keeping what only this client
        made after its predecessor (``drop_local``: drop the client's own stand-ins)."""
        host = self._host
        memory = host.memory
        server = [m for m in (from_agui(x, host.name, host.user_name) for x in messages) if m]
        ids = {m.id for m in server}
        anchored: dict[str | None, list[Msg]] = {}
        anchor: str | None = None
        mapper = host._mapper
        live = mapper.live.id if mapper and mapper.live else None
        for msg in memory.messages:
            if msg.id in ids:
                anchor = msg.id
            elif not (drop_local and msg.metadata.get(LOCAL)) and msg.id != live:
                anchored.setdefault(anchor, []).append(msg)
        merged: list[Msg] = list(anchored.get(None, []))
        new: list[Msg] = []
        for msg in server:
            old = memory.get(msg.id)
            if old is not None and same_content(old, msg):
                old.metadata.update(
                    {k: v for k, v in msg.metadata.items() if k not in old.metadata}
                )
                msg = old
            else:
                new.append(msg)
            merged.append(msg)
            merged.extend(anchored.get(msg.id, []))
        if [m.id for m in merged] != [m.id for m in memory.messages] or new:
            _messages, marks, summary = memory.snapshot()
            memory.restore(merged, marks, summary)
        for msg in new:
            host.emit(MessageAdded(host.name, host.reply_id, msg))

    def keep_partial(self, error: str | None) -> Msg | None:
        """Record the run's text so far as a partial message (the run in flight is over)."""
        host = self._host
        mapper, host._mapper = host._mapper, None
        live = mapper.live if mapper is not None else None
        if mapper is not None:
            mapper.live = None
        if live is None:
            return None
        kept = [
            b
            for b in live.get_content_blocks()
            if not (b.type == "text" and not b.text)
            and not (isinstance(b, ToolUseBlock) and b.raw_input is not None)
        ]
        if not kept:
            return None
        live.content = kept
        live.metadata[MetaKey.PARTIAL] = True
        if error:
            live.metadata[MetaKey.ERROR] = error
        self.commit(live)
        return live

    def close_open_calls(self, text: str, interrupted: bool) -> None:
        """Give every tool call of memory without a result one saying ``text``."""
        messages = self._host.memory.messages
        answered = {b.id for m in messages for b in m.get_content_blocks("tool_result")}
        for msg in list(messages):
            for call in msg.get_content_blocks("tool_use"):
                if call.id not in answered:
                    block = ToolResultBlock(
                        id=call.id,
                        name=call.name,
                        output=text,
                        is_error=not interrupted,
                        is_interrupted=interrupted,
                    )
                    self.commit(Msg("system", [block], "system", metadata={LOCAL: True}))
                    answered.add(call.id)


__all__ = ["LOCAL", "MirrorHost", "MirroredMemory"]
