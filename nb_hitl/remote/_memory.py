"""A remote agent's memory: the server's history mirrored, and kept valid after a failure.

``_reconcile`` makes memory the server's messages (``MESSAGES_SNAPSHOT``, the history
endpoint) in the server's order, ids kept, while messages only this client made stay after
their predecessor; ``_keep_partial`` and ``_close_open_calls`` keep the text so far and give
every tool call a result when a run is stopped or fails, so the next run sends a valid history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_hitl.events import MessageAdded
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock

from ._convert import from_agui, same_content

if TYPE_CHECKING:
    from nb_hitl.events import Event
    from nb_hitl.memory import InMemoryMemory

    from ._run import RunMapper

LOCAL = "_remote_local"
"""Metadata flag of a message only this client made (the interrupted message, a closed call)."""


class RemoteMemoryMixin:
    """Memory that mirrors the server's (mixed into ``RemoteAgent``)."""

    name: str
    user_name: str
    memory: InMemoryMemory
    _mapper: RunMapper | None
    reply_id: str | None

    if TYPE_CHECKING:

        def emit(self, event: Event) -> None: ...

    def _commit_sync(self, msg: Msg) -> None:
        if self.memory.get(msg.id) is not None:
            self.memory.replace(msg)
        else:
            self.memory.add_sync(msg)
        self.emit(MessageAdded(self.name, self.reply_id, msg))

    def _call_in_memory(self, call_id: str) -> ToolUseBlock | None:
        for msg in reversed(self.memory.messages):
            for block in msg.get_content_blocks("tool_use"):
                if block.id == call_id:
                    return block
        return None

    def _reconcile(self, messages: list[Any], drop_local: bool = False) -> None:
        """Make memory the server's ``messages`` (AG-UI models), keeping what only this client
        made after its predecessor (``drop_local``: drop the client's own stand-ins)."""
        server = [m for m in (from_agui(x, self.name, self.user_name) for x in messages) if m]
        ids = {m.id for m in server}
        anchored: dict[str | None, list[Msg]] = {}
        anchor: str | None = None
        live = self._mapper.live.id if self._mapper and self._mapper.live else None
        for msg in self.memory.messages:
            if msg.id in ids:
                anchor = msg.id
            elif not (drop_local and msg.metadata.get(LOCAL)) and msg.id != live:
                anchored.setdefault(anchor, []).append(msg)
        merged: list[Msg] = list(anchored.get(None, []))
        new: list[Msg] = []
        for msg in server:
            old = self.memory.get(msg.id)
            if old is not None and same_content(old, msg):
                old.metadata.update(
                    {k: v for k, v in msg.metadata.items() if k not in old.metadata}
                )
                msg = old
            else:
                new.append(msg)
            merged.append(msg)
            merged.extend(anchored.get(msg.id, []))
        if [m.id for m in merged] != [m.id for m in self.memory.messages] or new:
            _messages, marks, summary = self.memory.snapshot()
            self.memory.restore(merged, marks, summary)
        for msg in new:
            self.emit(MessageAdded(self.name, self.reply_id, msg))

    def _keep_partial(self, error: str | None) -> Msg | None:
        mapper, self._mapper = self._mapper, None
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
        self._commit_sync(live)
        return live

    def _close_open_calls(self, text: str, interrupted: bool) -> None:
        answered = {b.id for m in self.memory.messages for b in m.get_content_blocks("tool_result")}
        for msg in list(self.memory.messages):
            for call in msg.get_content_blocks("tool_use"):
                if call.id not in answered:
                    block = ToolResultBlock(
                        id=call.id,
                        name=call.name,
                        output=text,
                        is_error=not interrupted,
                        is_interrupted=interrupted,
                    )
                    self._commit_sync(Msg("system", [block], "system", metadata={LOCAL: True}))
                    answered.add(call.id)


__all__ = ["LOCAL", "RemoteMemoryMixin"]
