"""StoredMemory: an ``InMemoryMemory`` written through to a database, atomically.

The agent, its compression and the widgets work on the in-memory view, synchronously, as with
``InMemoryMemory``. Every change is then written to the store by a background flush, which
turns the difference since the last write (messages added, replaced or deleted, marks, the
summary) into one transaction. So a compression, which changes memory in one step, is one
transaction, and an interrupt can never leave half of a change stored: the write runs in a task
of its own, shielded, and the agent awaits ``flush()`` when each reply ends (finished or
interrupted), after which the store holds exactly what the agent holds. A change is found by
comparing each message's JSON with what was last stored, so a message changed in place (its
metadata set after it was stored) is written again; that comparison costs about the JSON of
every held message per write (``bench/stored_memory_flush.py``: a few ms at 500 messages).

AgentScope's async methods (``add``, ``get_memory``, ``delete``...) read and write through the
store, as AgentScope's database memories do: ``get_memory()`` and ``size()`` first write what is
pending, then read the store again (so they see other writers, and keys expired by a TTL).
On first use the store's content is read; messages held before that are appended to it.

Nothing that looks like a secret is stored: string values of 8+ characters whose key is a
secret-looking name (``api_key``, ``password``, ``auth_token``... in metadata or tool-call
arguments; ``nb_hitl._secret_names.is_secret_name``, the rule sessions use) are written as
``"[redacted]"``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nb_hitl._secret_names import is_secret_name
from nb_hitl.message import Msg

from ._in_memory import InMemoryMemory

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Changes", "StoredMemory", "redact_row"]

logger = logging.getLogger("nb_hitl.memory")
REDACTED = "[redacted]"


def redact_row(value: Any, name: str = "") -> Any:
    """``value`` (a message dict) with secret-looking fields replaced by ``"[redacted]"``."""
    if isinstance(value, dict):
        return {k: redact_row(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_row(v, name) for v in value]
    if isinstance(value, str) and len(value) >= 8 and name and is_secret_name(name):
        return REDACTED
    return value


@dataclass
class Changes:
    """What one write must store: the difference from the last write, and the whole state."""

    messages: list[Msg]
    """Every message held, in order."""
    marks: dict[str, frozenset[str]]
    summary: str
    upserts: list[tuple[Msg, frozenset[str], bool]]
    """Messages to write: (message, its marks, new to the store)."""
    deletes: list[str]
    """Ids to remove from the store."""
    reorder: bool
    """The order of kept messages changed: rewrite every position."""
    summary_changed: bool
    fingerprints: dict[str, str]
    """Each message's content as this write saw it (what the next write compares with)."""

    def row(self, msg: Msg) -> dict[str, Any]:
        """The stored form of ``msg``: AgentScope's ``to_dict()``, secrets redacted."""
        row: dict[str, Any] = redact_row(msg.to_dict())
        return row


class StoredMemory(InMemoryMemory):
    """Base of the database memories: subclasses implement ``_read`` and ``_write``."""

    def __init__(self) -> None:
        super().__init__()
        self._synced: dict[str, tuple[str, frozenset[str]]] = {}
        """What the store holds: each message's fingerprint (its JSON) and marks."""
        self._synced_order: list[str] = []
        self._synced_summary = ""
        self._synced_version = 0
        self._loaded = False
        self._quiet = False
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._flusher: asyncio.Task[None] | None = None

    async def close(self) -> None:
        """Write what is pending and release the store's connection (each store says which)."""
        await self.flush()

    async def __aenter__(self) -> Self:
        """``async with AsyncSQLAlchemyMemory(...) as memory:``: the memory itself."""
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Close the memory (``close()``), also when the block raised."""
        await self.close()

    # -- what a store implements ---------------------------------------------------------------
    async def _read(self) -> tuple[list[Msg], dict[str, set[str]], str]:
        """The stored messages in order, their marks and the summary."""
        raise NotImplementedError

    async def _write(self, changes: Changes) -> None:
        """Store ``changes`` in one transaction (all or nothing)."""
        raise NotImplementedError

    # -- change tracking -------------------------------------------------------------------------
    def _changed(self) -> None:
        super()._changed()
        if self._quiet:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a plain script): written at the next await
            return
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush_in_background(), name="memory flush")

    async def _flush_in_background(self) -> None:
        try:
            await self.flush()
        except Exception as exc:  # kept in memory; written at the next change or flush()
            logger.warning("%s: could not write to the store (%s); will retry.", self, exc)

    def _get_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    def _diff(self) -> Changes | None:
        messages = list(self._messages)
        marks = {m.id: frozenset(self._marks.get(m.id, ())) for m in messages}
        held = set(marks)
        # Compared by content, not identity: a message changed in place after it was stored
        # (metadata set by regenerate(), resume, a post_reply hook) is written again.
        fingerprints = {m.id: m.model_dump_json() for m in messages}
        upserts = []
        for m in messages:
            synced = self._synced.get(m.id)
            if synced is None or synced != (fingerprints[m.id], marks[m.id]):
                upserts.append((m, marks[m.id], synced is None))
        deletes = [i for i in self._synced_order if i not in held]
        kept = [m.id for m in messages if m.id in self._synced]
        reorder = kept != [i for i in self._synced_order if i in held]
        summary_changed = self._compressed_summary != self._synced_summary
        if not (upserts or deletes or reorder or summary_changed):
            return None
        return Changes(
            messages,
            marks,
            self._compressed_summary,
            upserts,
            deletes,
            reorder,
            summary_changed,
            fingerprints,
        )

    def _mark_synced(self, changes: Changes, version: int) -> None:
        self._synced = {
            m.id: (changes.fingerprints[m.id], changes.marks[m.id]) for m in changes.messages
        }
        self._synced_order = [m.id for m in changes.messages]
        self._synced_summary = changes.summary
        self._synced_version = version

    async def _write_and_mark(self, changes: Changes, version: int) -> None:
        # Only under the lock, from _flush_locked / _reload_locked.
        await self._write(changes)
        self._mark_synced(changes, version)

    async def _load_once(self) -> None:
        """Read the store the first time; messages held before are appended to its content."""
        if self._loaded:
            return
        messages, marks, summary = await self._read()
        self._loaded = True
        self._synced = {
            m.id: (m.model_dump_json(), frozenset(marks.get(m.id, ()))) for m in messages
        }
        self._synced_order = [m.id for m in messages]
        self._synced_summary = summary
        known = set(self._synced_order)
        local = [m for m in self._messages if m.id not in known]
        merged_marks = {**marks, **{m.id: set(self._marks.get(m.id, ())) for m in local}}
        self._quiet = True
        try:
            self.restore([*messages, *local], merged_marks, self._compressed_summary or summary)
        finally:
            self._quiet = False

    # -- public ----------------------------------------------------------------------------------
    async def flush(self) -> None:
        """Write every pending change to the store; on return the store holds what memory
        holds. The write runs in a task of its own, holding the store's lock: a caller
        cancelled meanwhile does not stop it half-way.

        Raises:
            Exception: the store's error (the change stays pending and is retried).
        """
        await _shielded(self._flush_locked())

    async def _flush_locked(self) -> None:
        async with self._get_lock():
            await self._load_once()
            while True:
                changes = self._diff()
                if changes is None:
                    self._synced_version = self.version
                    return
                await self._write_and_mark(changes, self.version)

    async def reload(self) -> None:
        """Write what is pending, then replace memory by what the store holds now (if memory
        keeps changing while the store is read, what memory holds is kept: it is newer)."""
        await _shielded(self._reload_locked())

    async def _reload_locked(self) -> None:
        async with self._get_lock():
            await self._load_once()
            for _ in range(5):
                changes = self._diff()
                if changes is not None:
                    await self._write_and_mark(changes, self.version)
                before = self.version
                messages, marks, summary = await self._read()
                if self.version != before:
                    continue  # changed during the read: write that, then read again
                self._quiet = True
                try:
                    self.restore(messages, marks, summary)
                finally:
                    self._quiet = False
                self._synced = {
                    m.id: (m.model_dump_json(), frozenset(marks.get(m.id, ()))) for m in messages
                }
                self._synced_order = [m.id for m in messages]
                self._synced_summary = summary
                self._synced_version = self.version
                return

    async def _loaded_first(self) -> None:
        """Read the store if this object has not yet (before a change that needs its rows)."""
        if not self._loaded:
            await _shielded(self._load_locked())

    async def _load_locked(self) -> None:
        async with self._get_lock():
            await self._load_once()

    # -- AgentScope's async API, through the store ---------------------------------------------
    # Each change is made to memory before anything is awaited (so an interrupt cannot land
    # between the caller's call and the change, as with InMemoryMemory), then written.
    async def add(
        self,
        memories: Msg | Iterable[Msg] | None,
        marks: str | Iterable[str] | None = None,
        allow_duplicates: bool = False,
        **kwargs: Any,
    ) -> None:
        """Add as ``InMemoryMemory.add`` does, then write it to the store."""
        self.add_sync(memories, marks, allow_duplicates=allow_duplicates)
        await self.flush()

    async def get_memory(
        self,
        mark: str | None = None,
        exclude_mark: str | None = None,
        prepend_summary: bool = True,
        **kwargs: Any,
    ) -> list[Msg]:
        """The stored messages (read again), filtered as ``InMemoryMemory.get_memory``."""
        await self.reload()
        return await super().get_memory(mark, exclude_mark, prepend_summary, **kwargs)

    async def size(self) -> int:
        """How many messages the store holds now."""
        await self.reload()
        return len(self._messages)

    async def delete(self, msg_ids: str | Iterable[str] | int, **kwargs: Any) -> int:
        """Delete by id (see ``InMemoryMemory.delete``), in the store too."""
        await self._loaded_first()
        removed = self.delete_sync(msg_ids)
        await self.flush()
        return removed

    async def delete_by_mark(self, mark: str | Iterable[str], **kwargs: Any) -> int:
        """Delete every message carrying ``mark`` (or any of several), in the store too."""
        await self._loaded_first()
        removed = await super().delete_by_mark(mark, **kwargs)
        await self.flush()
        return removed

    async def clear(self) -> None:
        """Remove every message, mark and the summary, in the store too."""
        await self._loaded_first()
        await super().clear()
        await self.flush()

    async def update_messages_mark(
        self,
        new_mark: str | None,
        old_mark: str | None = None,
        msg_ids: Iterable[str] | None = None,
    ) -> int:
        """Add, replace or remove a mark (see ``InMemoryMemory``), in the store too."""
        await self._loaded_first()
        changed = self.update_marks_sync(new_mark, old_mark, msg_ids)
        await self.flush()
        return changed

    async def update_compressed_summary(self, summary: str) -> None:
        """Replace the compressed summary, in the store too."""
        await super().update_compressed_summary(summary)
        await self.flush()

    # -- state: the messages live in the store ---------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{"_compressed_summary": ...}``, as AgentScope's database memories: the messages
        are in the store, not in a session file."""
        return {"_compressed_summary": self._compressed_summary}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        """Take the summary from a state dict (written to the store at the next flush).

        Raises:
            TypeError: ``state`` is not a dict, or its summary is not a string.
            KeyError: ``strict`` and the dict has no ``_compressed_summary``.
        """
        if not isinstance(state, dict):
            raise TypeError(f"A memory state must be a dict, got {type(state).__name__}.")
        if "_compressed_summary" not in state:
            if strict:
                raise KeyError("_compressed_summary")
            return
        summary = state["_compressed_summary"]
        if not isinstance(summary, str):
            raise TypeError(f"_compressed_summary must be a string, got {type(summary).__name__}.")
        self.summary = summary


async def _shielded(work: Any) -> None:
    """Run ``work`` in a task of its own and wait for it; if the caller is cancelled, the task
    still runs to its end (its error, if any, is logged: nobody else would see it)."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(_log_failure)
    await asyncio.shield(task)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.debug("memory store task ended with %r", task.exception())
