"""InMemoryMemory: the agent's ordered message list, with marks and a compressed-summary slot."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from nb_hitl.message import Msg

COMPRESSED = "compressed"
"""Mark of messages folded into the summary (kept, not deleted, so undo can restore them)."""
PINNED = "pinned"
"""Mark of messages that compression never touches."""


class InMemoryMemory:
    """Ordered messages plus marks (labels on message ids) and a compressed summary.

    The async methods mirror AgentScope 1.x (``await memory.add(msg)``); they do no I/O, so
    sync twins (``messages``, ``marks_of``...) serve widgets and pure planning functions.
    """

    def __init__(self) -> None:
        self._messages: list[Msg] = []
        self._marks: dict[str, set[str]] = {}
        self._summary: str = ""
        self.version = 0
        """Increases on every change; caches and widgets compare it to know when to redraw."""
        self._listeners: list[Callable[[InMemoryMemory], None]] = []

    # -- change notification -----------------------------------------------------------------
    def add_listener(self, callback: Callable[[InMemoryMemory], None]) -> Callable[[], None]:
        """Call ``callback(memory)`` after each change; returns a function that removes it.

        Callbacks must be quick (set a flag, schedule a redraw); their exceptions are ignored.
        """
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _changed(self) -> None:
        self.version += 1
        for cb in list(self._listeners):
            try:
                cb(self)
            except Exception:  # a listener must never break the agent
                pass

    # -- AgentScope-style async API ------------------------------------------------------------
    async def add(self, memories: Msg | Iterable[Msg] | None, marks: Iterable[str] = ()) -> None:
        """Append a message, a list of messages, or nothing (``None``)."""
        self.add_sync(memories, marks)

    async def get_memory(
        self,
        mark: str | None = None,
        exclude_mark: str | None = None,
    ) -> list[Msg]:
        """Messages in order, optionally only those with ``mark`` or without ``exclude_mark``."""
        return self.select(mark=mark, exclude_mark=exclude_mark)

    async def delete(self, msg_ids: str | Iterable[str] | int) -> int:
        """Delete messages by id (or one by index); returns how many were removed."""
        return self.delete_sync(msg_ids)

    async def clear(self) -> None:
        """Remove every message, mark and the summary."""
        self._messages.clear()
        self._marks.clear()
        self._summary = ""
        self._changed()

    async def size(self) -> int:
        """Number of messages held (compressed ones included)."""
        return len(self._messages)

    async def update_messages_mark(
        self,
        new_mark: str | None,
        old_mark: str | None = None,
        msg_ids: Iterable[str] | None = None,
    ) -> int:
        """Add ``new_mark`` (or remove ``old_mark`` when ``new_mark`` is None) on messages."""
        return self.update_marks_sync(new_mark, old_mark, msg_ids)

    async def update_compressed_summary(self, summary: str) -> None:
        """Replace the compressed summary."""
        self.summary = summary

    async def get_compressed_summary(self) -> str:
        """The current compressed summary ("" when none)."""
        return self._summary

    # -- sync twins ------------------------------------------------------------------------
    def add_sync(self, memories: Msg | Iterable[Msg] | None, marks: Iterable[str] = ()) -> None:
        """Append without awaiting (see ``add``)."""
        if memories is None:
            return
        items = [memories] if isinstance(memories, Msg) else list(memories)
        for m in items:
            if not isinstance(m, Msg):
                raise TypeError(f"memory.add takes Msg objects, got {type(m).__name__}.")
        known = {m.id for m in self._messages}
        for m in items:
            if m.id in known:
                raise ValueError(
                    f"Message {m.id} is already in memory; add a new Msg (or model_copy it with "
                    "a new id) instead of adding the same object twice."
                )
            known.add(m.id)
        mark_set = set(marks)
        self._messages.extend(items)
        if mark_set:
            for m in items:
                self._marks.setdefault(m.id, set()).update(mark_set)
        self._changed()

    def delete_sync(self, msg_ids: str | Iterable[str] | int) -> int:
        """Delete without awaiting (see ``delete``)."""
        if isinstance(msg_ids, int):
            victim = self._messages[msg_ids]
            ids = {victim.id}
        else:
            ids = {msg_ids} if isinstance(msg_ids, str) else set(msg_ids)
        before = len(self._messages)
        self._messages = [m for m in self._messages if m.id not in ids]
        for i in ids:
            self._marks.pop(i, None)
        removed = before - len(self._messages)
        if removed:
            self._changed()
        return removed

    def update_marks_sync(
        self,
        new_mark: str | None,
        old_mark: str | None = None,
        msg_ids: Iterable[str] | None = None,
    ) -> int:
        """Mark update without awaiting (see ``update_messages_mark``)."""
        targets = [m.id for m in self._messages] if msg_ids is None else list(msg_ids)
        changed = 0
        for i in targets:
            marks = self._marks.get(i, set())
            if old_mark is not None and old_mark not in marks:
                continue
            new = set(marks)
            if old_mark is not None:
                new.discard(old_mark)
            if new_mark is not None:
                new.add(new_mark)
            if new != marks:
                changed += 1
                if new:
                    self._marks[i] = new
                else:
                    self._marks.pop(i, None)
        if changed:
            self._changed()
        return changed

    @property
    def messages(self) -> list[Msg]:
        """A copy of the message list (every message, compressed included)."""
        return list(self._messages)

    @property
    def summary(self) -> str:
        """The compressed summary ("" when none)."""
        return self._summary

    @summary.setter
    def summary(self, value: str) -> None:
        self._summary = value
        self._changed()

    def select(self, mark: str | None = None, exclude_mark: str | None = None) -> list[Msg]:
        """Sync filter by mark (see ``get_memory``)."""
        out = []
        for m in self._messages:
            marks = self._marks.get(m.id, ())
            if mark is not None and mark not in marks:
                continue
            if exclude_mark is not None and exclude_mark in marks:
                continue
            out.append(m)
        return out

    def marks_of(self, msg_id: str) -> frozenset[str]:
        """The marks on one message."""
        return frozenset(self._marks.get(msg_id, ()))

    def get(self, msg_id: str) -> Msg | None:
        """The message with ``msg_id``, if held."""
        for m in self._messages:
            if m.id == msg_id:
                return m
        return None

    def replace(self, msg: Msg) -> None:
        """Replace the held message that has ``msg.id`` (e.g. a partial message growing)."""
        for i, m in enumerate(self._messages):
            if m.id == msg.id:
                self._messages[i] = msg
                self._changed()
                return
        raise KeyError(f"No message {msg.id} in memory.")

    def restore(self, messages: list[Msg], marks: dict[str, set[str]], summary: str) -> None:
        """Replace the whole content at once (used by atomic compression and undo)."""
        self._messages = list(messages)
        self._marks = {k: set(v) for k, v in marks.items() if v}
        self._summary = summary
        self._changed()

    def snapshot(self) -> tuple[list[Msg], dict[str, set[str]], str]:
        """A copy of messages, marks and summary that ``restore`` accepts."""
        return list(self._messages), {k: set(v) for k, v in self._marks.items()}, self._summary

    def __len__(self) -> int:
        return len(self._messages)

    # -- state ----------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able state: messages, marks and summary."""
        return {
            "messages": [m.to_dict() for m in self._messages],
            "marks": {k: sorted(v) for k, v in self._marks.items() if v},
            "summary": self._summary,
        }

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Replace the content with ``state`` from ``state_dict()``; all or nothing."""
        messages = [Msg.from_dict(d) for d in state.get("messages", [])]
        ids = [m.id for m in messages]
        if len(set(ids)) != len(ids):
            raise ValueError("Memory state holds the same message id twice.")
        marks = {k: set(v) for k, v in state.get("marks", {}).items()}
        if strict and set(marks) - set(ids):
            raise ValueError("Memory state has marks for messages it does not hold.")
        self.restore(messages, marks, str(state.get("summary", "")))

    def __repr__(self) -> str:
        return f"InMemoryMemory({len(self._messages)} messages, summary={bool(self._summary)})"
