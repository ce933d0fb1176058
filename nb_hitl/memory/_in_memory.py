"""InMemoryMemory: the agent's ordered message list, with marks and a compressed-summary slot."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from nb_hitl.message import Msg

from ._base import MemoryBase
from ._state import new_id as _new_id
from ._state import parse_state

logger = logging.getLogger("nb_hitl.memory")

COMPRESSED = "compressed"
"""Mark of messages folded into the summary (kept, not deleted, so undo can restore them)."""
PINNED = "pinned"
"""Mark of messages that compression never touches."""


def _mark_list(marks: str | Iterable[str] | None, label: str) -> list[str]:
    """``None`` -> no mark, a string -> one mark, else an iterable of strings."""
    if marks is None:
        return []
    if isinstance(marks, str):
        return [marks]
    try:
        out = list(marks)
    except TypeError:
        out = [marks]  # type: ignore[list-item]
    bad = [m for m in out if not isinstance(m, str)]
    if bad:
        raise TypeError(
            f"{label} must be a string, a list of strings or None; got {type(bad[0]).__name__}."
        )
    return out


class InMemoryMemory(MemoryBase):
    """Ordered messages plus marks (labels on message ids) and a compressed summary.

    The async methods mirror AgentScope 1.x (``await memory.add(msg)``); they do no I/O, so
    sync twins (``messages``, ``marks_of``...) serve widgets and pure planning functions.

    Messages are looked up by id in an index kept beside the list (``add`` and ``get`` cost
    the same with 10 or 10,000 messages held); like the rest of nb_hitl it takes a held
    ``Msg`` as immutable, its ``id`` included (change a message with ``replace()``).
    """

    def __init__(self) -> None:
        super().__init__()  # the compressed summary: ``self._compressed_summary``
        self._messages: list[Msg] = []
        self._by_id: dict[str, Msg] = {}
        """The held messages by id (the first one, should a restored list hold an id twice)."""
        self._marks: dict[str, set[str]] = {}
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
                logger.exception("a memory listener failed (ignored)")

    # -- AgentScope-style async API ------------------------------------------------------------
    async def add(
        self,
        memories: Msg | Iterable[Msg] | None,
        marks: str | Iterable[str] | None = None,
        allow_duplicates: bool = False,
        **kwargs: Any,
    ) -> None:
        """Append a message, a list of messages, or nothing (``None``), as AgentScope 1.x does.

        Args:
            memories: the message(s) to append.
            marks: one mark (a string is ONE mark) or several, put on every added message.
            allow_duplicates: a message whose id memory already holds is skipped silently
                unless this is ``True``. Differs on purpose: AgentScope then stores a second
                entry with the same id; nb_hitl stores a copy with a fresh id, because marks,
                ``replace()``, sessions and the widgets key on unique ids.
            **kwargs: accepted for AgentScope signature compatibility and ignored.

        Messages are stored as given, not deep-copied (AgentScope copies): nb_hitl treats a
        ``Msg`` in memory as immutable (change one with ``replace()``), and the widgets and the
        token counter's cache rely on that identity.

        Raises:
            TypeError: an item is not a ``Msg`` or a mark is not a string (nothing is added).
        """
        self.add_sync(memories, marks, allow_duplicates=allow_duplicates)

    async def get_memory(
        self,
        mark: str | None = None,
        exclude_mark: str | None = None,
        prepend_summary: bool = True,
        **kwargs: Any,
    ) -> list[Msg]:
        """Messages in order, optionally only those with ``mark`` or without ``exclude_mark``.

        With a compressed summary and ``prepend_summary`` (the default, as AgentScope), a
        ``Msg("user", summary, "user")`` comes first. ``select()`` is the sync form without it.

        Raises:
            TypeError: ``mark`` or ``exclude_mark`` is neither a string nor ``None``.
        """
        for label, value in (("mark", mark), ("exclude_mark", exclude_mark)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{label} must be a string or None, got {type(value).__name__}.")
        found = self.select(mark=mark, exclude_mark=exclude_mark)
        if prepend_summary and self._compressed_summary:
            return [Msg("user", self._compressed_summary, "user"), *found]
        return found

    async def delete(self, msg_ids: str | Iterable[str] | int, **kwargs: Any) -> int:
        """Delete messages by id (or one by index); returns how many were removed.

        Unknown ids are ignored. A string is one id (AgentScope tests ``id in msg_ids``, which
        on a string would match substrings).
        """
        return self.delete_sync(msg_ids)

    async def delete_by_mark(self, mark: str | Iterable[str], **kwargs: Any) -> int:
        """Delete every message carrying ``mark`` (or any of several); returns how many.

        Raises:
            TypeError: a mark is not a string.
        """
        wanted = set(_mark_list(mark, "mark"))
        doomed = [m.id for m in self._messages if wanted & self._marks.get(m.id, set())]
        return self.delete_sync(doomed) if doomed else 0

    async def clear(self) -> None:
        """Remove every message, mark and the summary."""
        self._messages.clear()
        self._by_id.clear()
        self._marks.clear()
        self._compressed_summary = ""
        self._changed()

    async def size(self) -> int:
        """Number of messages held (compressed ones included; the summary is not a message)."""
        return len(self._messages)

    async def update_messages_mark(
        self,
        new_mark: str | None,
        old_mark: str | None = None,
        msg_ids: Iterable[str] | None = None,
    ) -> int:
        """Add, replace or remove a mark, as AgentScope 1.x does.

        ``msg_ids`` limits the change to those messages, ``old_mark`` to messages carrying it
        (which lose it); ``new_mark`` is added, or with ``None`` only ``old_mark`` is removed.

        Returns:
            How many messages' marks changed (AgentScope leaves out a message that loses
            ``old_mark`` but already had ``new_mark``; nb_hitl counts it, since it changed).
        """
        return self.update_marks_sync(new_mark, old_mark, msg_ids)

    async def update_compressed_summary(self, summary: str) -> None:
        """Replace the compressed summary (``""`` removes it)."""
        if not isinstance(summary, str):
            raise TypeError(f"The summary must be a string, got {type(summary).__name__}.")
        self.summary = summary

    async def get_compressed_summary(self) -> str:
        """The current compressed summary ("" when none)."""
        return self._compressed_summary

    # -- sync twins ------------------------------------------------------------------------
    def add_sync(
        self,
        memories: Msg | Iterable[Msg] | None,
        marks: str | Iterable[str] | None = None,
        allow_duplicates: bool = False,
    ) -> None:
        """Append without awaiting (see ``add``)."""
        if memories is None:
            return
        items = [memories] if isinstance(memories, Msg) else list(memories)
        for m in items:
            if not isinstance(m, Msg):
                raise TypeError(f"memory.add takes Msg objects, got {type(m).__name__}.")
        mark_set = set(_mark_list(marks, "marks"))
        known = self._by_id
        added: list[Msg] = []
        for m in items:
            if m.id in known:
                if not allow_duplicates:
                    continue
                m = m.model_copy(update={"id": _new_id()})
            known[m.id] = m
            added.append(m)
        if not added:
            return
        self._messages.extend(added)
        if mark_set:
            for m in added:
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
            self._by_id.pop(i, None)
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
        return self._compressed_summary

    @summary.setter
    def summary(self, value: str) -> None:
        self._compressed_summary = value
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
        return self._by_id.get(msg_id)

    def replace(self, msg: Msg) -> None:
        """Replace the held message that has ``msg.id`` (e.g. a partial message growing)."""
        held = self._by_id.get(msg.id)
        if held is not None:
            for i, m in enumerate(self._messages):
                if m is held:
                    self._messages[i] = msg
                    self._by_id[msg.id] = msg
                    self._changed()
                    return
        raise KeyError(f"No message {msg.id} in memory.")

    def restore(self, messages: list[Msg], marks: dict[str, set[str]], summary: str) -> None:
        """Replace the whole content at once (used by atomic compression and undo)."""
        self._messages = list(messages)
        self._by_id = {}
        for m in reversed(self._messages):  # the first of an id twice wins, as in a scan
            self._by_id[m.id] = m
        self._marks = {k: set(v) for k, v in marks.items() if v}
        self._compressed_summary = summary
        self._changed()

    def snapshot(self) -> tuple[list[Msg], dict[str, set[str]], str]:
        """A copy of messages, marks and summary that ``restore`` accepts."""
        marks = {k: set(v) for k, v in self._marks.items()}
        return list(self._messages), marks, self._compressed_summary

    def __len__(self) -> int:
        return len(self._messages)

    # -- state ----------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """JSON-able state in AgentScope 1.x's shape.

        ``{"_compressed_summary": str, "content": [[msg_dict, [marks...]], ...]}``, marks sorted.
        """
        return {
            "_compressed_summary": self._compressed_summary,
            "content": [[m.to_dict(), sorted(self._marks.get(m.id, ()))] for m in self._messages],
        }

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Replace the content with a state dict; all or nothing.

        Takes ``state_dict()`` output (AgentScope's shape) and the older nb_hitl shape
        (``messages`` / ``marks`` / ``summary``) that session files before it hold.

        Raises:
            KeyError: ``strict`` and the dict has no message list (``content``).
            ValueError: a malformed entry, an invalid message, or one message id twice
                (memory is unchanged).
            TypeError: ``state`` is not a dict.
        """
        messages, marks, summary = parse_state(state, strict)
        self.restore(messages, marks, summary)

    def __repr__(self) -> str:
        summary = bool(self._compressed_summary)
        return f"InMemoryMemory({len(self._messages)} messages, summary={summary})"
