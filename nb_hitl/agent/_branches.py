"""Rewind and fork: the conversation from an earlier message becomes a new branch.

``agent.edit_and_resend(msg_id, new_content)`` re-sends an earlier user message with new text
and ``agent.regenerate(msg_id)`` answers the question of an earlier answer again; both fork
first (``agent.fork(at_msg_id)``): memory keeps the messages *before* ``at_msg_id`` and the
conversation goes on from there on a new branch. The previous branch is kept whole and can be
checked out again (``agent.checkout(branch)``); ``agent.branches`` lists them all.

- **Memory is the checked-out branch.** The memory object stays the same (widgets keep their
  listeners); checking out swaps its content in one ``restore()`` (messages, marks, summary).
  Messages before the fork point are shared by the branches, unchanged.
- **Compression follows the branch.** Each branch keeps its summary, marks and undo history.
  A fork before messages that a compression folded into the summary undoes that compression
  on the new branch (the summary in effect before it comes back); if its undo history is gone
  (a loaded session), the fork is refused rather than keep a summary of messages the branch
  does not have.
- **Sessions save every branch** (``state_dict()["branches"]``), so they survive a kernel
  restart; the checked-out branch is the saved memory itself.
- Branch operations refuse while a reply runs (``AgentBusyError``) and leave everything as it
  was on bad input (``BranchError``): an unknown branch or message, a fork that would cut a
  tool call from its result, calls parked on an approval.
- ``BranchCreated`` and ``BranchCheckedOut`` events tell UIs to redraw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Protocol

from nb_hitl.events import BranchCheckedOut, BranchCreated, Event
from nb_hitl.exceptions import AgentBusyError, BranchError
from nb_hitl.memory import COMPRESSED, InMemoryMemory
from nb_hitl.message import MetaKey, Msg

MAIN = "main"
"""The id (and name) of the branch every conversation starts on."""

Snapshot = tuple[list[Msg], dict[str, set[str]], str]


@dataclass(frozen=True)
class BranchInfo:
    """One branch of the conversation (``agent.branches``)."""

    id: str
    """Stable id (``"main"`` for the first)."""
    name: str
    """A label to show (``"main"``, ``"edit 1"``, ``"regenerate 2"``...)."""
    parent: str | None
    """The branch it was forked from (None for ``main``)."""
    fork_point: str | None
    """The last message it shares with ``parent`` (None: forked before the first message)."""
    created: str
    """When it was made (ISO 8601, UTC)."""
    head: str | None
    """Its last message (None when empty)."""
    size: int
    """How many messages it holds."""
    active: bool
    """Whether it is checked out (memory holds it)."""


@dataclass
class _Branch:
    id: str
    name: str
    parent: str | None
    fork_point: str | None
    created: str
    snapshot: Snapshot | None = None
    """Memory content while another branch is checked out (None while checked out)."""
    undo: list[Any] = field(default_factory=list)
    """Its compression undo history."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class BranchHost(Protocol):
    """What the branch table uses of its agent."""

    name: str
    memory: InMemoryMemory

    @property
    def approvals(self) -> Any: ...

    @property
    def compressor(self) -> Any: ...

    @property
    def is_replying(self) -> bool: ...

    def _emit(self, event: Event) -> None: ...

    async def _flush_memory(self) -> None: ...

    async def __call__(self, *args: Any, **kwargs: Any) -> Msg: ...


class BranchTable:
    """The branches of one agent's conversation (``agent.branch_table``; module docstring).

    ``ReActAgent`` keeps ``branches``, ``branch``, ``checkout``, ``fork``, ``edit_and_resend``,
    ``regenerate`` and ``branches_state`` as delegations.
    """

    def __init__(self, host: BranchHost) -> None:
        self._host = host
        self._table_or_none: dict[str, _Branch] | None = None
        self.active: str = MAIN
        """The id of the checked-out branch."""

    # -- reading -------------------------------------------------------------------------------
    def _table(self) -> dict[str, _Branch]:
        if self._table_or_none is None:  # made on first use: most agents never fork
            self._table_or_none = {MAIN: _Branch(MAIN, MAIN, None, None, _now())}
            self.active = MAIN
        return self._table_or_none

    def _info(self, branch: _Branch) -> BranchInfo:
        active = branch.id == self.active
        messages = (
            self._host.memory.messages if active else branch.snapshot[0] if branch.snapshot else []
        )
        return BranchInfo(
            id=branch.id,
            name=branch.name,
            parent=branch.parent,
            fork_point=branch.fork_point,
            created=branch.created,
            head=messages[-1].id if messages else None,
            size=len(messages),
            active=active,
        )

    @property
    def branches(self) -> list[BranchInfo]:
        """Every branch of the conversation, oldest first (the checked-out one ``active``)."""
        return [self._info(b) for b in self._table().values()]

    def stored_histories(self) -> list[list[Msg]]:
        """The messages of every branch not checked out (the checked-out one is memory)."""
        table = self._table_or_none or {}
        return [b.snapshot[0] for b in table.values() if b.snapshot is not None]

    @property
    def branch(self) -> BranchInfo:
        """The checked-out branch."""
        return self._info(self._table()[self.active])

    # -- switching -----------------------------------------------------------------------------
    def _check_idle(self, doing: str) -> None:
        if self._host.is_replying:
            raise AgentBusyError(self._host.name)
        if self._host.approvals.has_parked_calls:
            raise BranchError(
                f"Cannot {doing}: tool calls of this branch are parked waiting for approval. "
                "Decide them and `await agent.resume_pending()`, or send a message, first."
            )

    def _undo_list(self) -> list[Any]:
        return self._host.compressor.undo

    def _switch(self, target: _Branch) -> None:
        table = self._table()
        current = table[self.active]
        undo = self._undo_list()
        current.snapshot = self._host.memory.snapshot()
        current.undo = list(undo)
        snapshot, target.snapshot = target.snapshot, None
        self.active = target.id
        undo[:] = target.undo
        target.undo = []
        assert snapshot is not None
        self._host.memory.restore(*snapshot)

    def checkout(self, branch: str | BranchInfo) -> BranchInfo:
        """Switch memory to ``branch`` (an id, a name, or a ``BranchInfo``); returns it.

        Raises:
            AgentBusyError: a reply is running.
            BranchError: no such branch, or calls are parked on an approval.
        """
        self._check_idle("switch branches")
        target = self._find(branch)
        if target.id != self.active:
            previous = self.active
            self._switch(target)
            self._host._emit(
                BranchCheckedOut(self._host.name, None, target.id, target.name, previous)
            )
        return self.branch

    def _find(self, branch: str | BranchInfo) -> _Branch:
        key = branch.id if isinstance(branch, BranchInfo) else branch
        table = self._table()
        if isinstance(key, str):
            if key in table:
                return table[key]
            named = [b for b in table.values() if b.name == key]
            if len(named) == 1:
                return named[0]
        known = ", ".join(f"{b.id!r} ({b.name})" for b in table.values())
        raise BranchError(f"No branch {key!r}; the branches are {known}.")

    # -- forking -------------------------------------------------------------------------------
    def fork(
        self, at_msg_id: str, new_msg: Msg | str | None = None, *, name: str | None = None
    ) -> BranchInfo:
        """Start a new branch holding the messages before ``at_msg_id`` and check it out.

        Args:
            at_msg_id: the first message the new branch does not have.
            new_msg: recorded on the new branch right away (a ``str`` is a user message); it
                is not answered (``await agent()`` does that).
            name: a label (default ``"branch N"``).

        Raises:
            AgentBusyError: a reply is running.
            BranchError: ``at_msg_id`` is not in memory, the fork would separate a tool call
                from its result, or the summary covers messages the branch would not have
                and the compression cannot be undone.
        """
        self._check_idle("fork")
        msgs = self._host.memory.messages
        index = next((i for i, m in enumerate(msgs) if m.id == at_msg_id), None)
        if index is None:
            raise BranchError(
                f"No message {at_msg_id!r} on branch {self.branch.name!r}; fork at the id of "
                "a message in agent.memory.messages."
            )
        kept = msgs[:index]
        _check_no_open_call(kept)
        _messages, marks, summary = self._host.memory.snapshot()
        undo = list(self._undo_list())
        cut = {m.id for m in msgs[index:]}
        summary, undo, restored = _compression_before(cut, marks, summary, undo)
        if isinstance(new_msg, str):
            new_msg = Msg("user", new_msg, "user")
        table = self._table()
        branch = _Branch(
            id=_new_branch_id(table),
            name=name or f"branch {len(table)}",
            parent=self.active,
            fork_point=kept[-1].id if kept else None,
            created=_now(),
        )
        kept_marks = {k: v for k, v in marks.items() if k not in cut}
        for msg_id in restored & set(kept_marks):  # back in the prompt on this branch
            kept_marks[msg_id] = kept_marks[msg_id] - {COMPRESSED}
        branch.snapshot = (
            [*kept, *([new_msg] if new_msg is not None else [])],
            kept_marks,
            summary,
        )
        branch.undo = undo
        table[branch.id] = branch
        self._switch(branch)
        self._host._emit(
            BranchCreated(
                self._host.name, None, branch.id, branch.name, branch.parent, branch.fork_point
            )
        )
        return self.branch

    async def edit_and_resend(self, msg_id: str, new_content: Any, **kwargs: Any) -> Msg:
        """Re-send the earlier user message ``msg_id`` with ``new_content`` on a new branch.

        The new branch holds what came before that message, then the edited one (a new id,
        ``metadata["edited_from"]``), answered as a normal reply (interruptible as any).

        Returns:
            The reply (``await agent(edited)``); ``kwargs`` go to it.

        Raises:
            AgentBusyError, BranchError: as ``fork``; ``msg_id`` must be a user message.
        """
        self._check_idle("edit and re-send")
        old = self._host.memory.get(msg_id)
        if old is None or old.role != "user":
            raise BranchError(
                f"edit_and_resend takes the id of a user message on this branch, got {msg_id!r}"
                "; to answer an answer's question again, use regenerate(msg_id)."
            )
        edited = Msg(old.name, new_content, old.role, metadata={MetaKey.EDITED_FROM: old.id})
        self.fork(msg_id, name=f"edit {len(self._table())}")
        return await self._host(edited, **kwargs)

    async def regenerate(self, msg_id: str, **kwargs: Any) -> Msg:
        """Answer the question of the earlier answer ``msg_id`` again, on a new branch.

        The new branch holds the conversation up to that answer's question (the last user
        message before it that was not steering or a resume instruction); the reply to it is
        run again. Its message has ``metadata["regenerates"] = msg_id``.

        Raises:
            AgentBusyError, BranchError: as ``fork``; ``msg_id`` must be an answer (not a user
                message) with a question before it.
        """
        self._check_idle("regenerate")
        msgs = self._host.memory.messages
        index = next((i for i, m in enumerate(msgs) if m.id == msg_id), None)
        if index is None or msgs[index].role == "user":
            raise BranchError(
                f"regenerate takes the id of an answer on this branch, got {msg_id!r}; to "
                "change a question, use edit_and_resend(msg_id, new_content)."
            )
        question = next(
            (
                i
                for i in range(index - 1, -1, -1)
                if msgs[i].role == "user"
                and not msgs[i].metadata.get(MetaKey.STEERED)
                and not msgs[i].metadata.get(MetaKey.RESUME_INSTRUCTION)
            ),
            None,
        )
        if question is None:
            raise BranchError(f"The answer {msg_id!r} has no question before it to answer again.")
        self.fork(msgs[question + 1].id, name=f"regenerate {len(self._table())}")
        result = await self._host(None, **kwargs)
        result.metadata[MetaKey.REGENERATES] = msg_id
        if self._host.memory.get(result.id) is result:
            self._host.memory.replace(result)
            await self._host._flush_memory()  # a database memory stores the tag before we return
        return result

    # -- state -----------------------------------------------------------------------------
    def branches_state(self) -> dict[str, Any]:
        """JSON-able branches: the inactive ones with their memory (the active one's is the
        agent's own ``memory``)."""
        out = []
        for b in self._table().values():
            entry: dict[str, Any] = {
                "id": b.id,
                "name": b.name,
                "parent": b.parent,
                "fork_point": b.fork_point,
                "created": b.created,
            }
            if b.snapshot is not None:
                holder = InMemoryMemory()
                holder.restore(*b.snapshot)
                entry["memory"] = holder.state_dict()
            out.append(entry)
        return {"active": self.active, "items": out}

    def copy(self) -> BranchTable:
        """A table holding the same branches (a session load puts it back on failure)."""
        other = BranchTable(self._host)
        other._table_or_none, other.active = self._table_or_none, self.active
        return other

    @staticmethod
    def parse(raw: Any) -> tuple[dict[str, _Branch] | None, str]:
        """Saved branches (``state_dict()["branches"]``) as a table and the active id.

        Raises:
            ValueError: ``raw`` is malformed.
        """
        return _parse_branches(raw)

    def load(self, table: dict[str, _Branch] | None, active: str) -> None:
        """Become ``parse()``'s output (the agent's memory is the active branch already)."""
        self._table_or_none, self.active = table, active


def _check_no_open_call(kept: list[Msg]) -> None:
    answered = {b.id for m in kept for b in m.get_content_blocks("tool_result")}
    for m in kept:
        for call in m.get_content_blocks("tool_use"):
            if call.id not in answered:
                raise BranchError(
                    f"Cannot fork there: it would separate the tool call {call.name!r} from its "
                    "result. Fork at the assistant message that made the call, or at a user "
                    "message."
                )


def _compression_before(
    cut: set[str], marks: dict[str, set[str]], summary: str, undo: list[Any]
) -> tuple[str, list[Any], set[str]]:
    """The summary and undo history of a branch without the ``cut`` messages, and the ids
    whose compression that undoes."""
    if not any(COMPRESSED in marks.get(i, ()) for i in cut):
        return summary, undo, set()
    for k, entry in enumerate(undo):
        if cut & set(entry.ids):
            restored = {i for later in undo[k:] for i in later.ids}
            return entry.previous_summary, undo[:k], restored
    raise BranchError(
        "Cannot fork there: the summary already covers messages after that point and the "
        "compression cannot be undone any more (its undo history is gone, e.g. after loading "
        "a session). Fork at a later message."
    )


def _new_branch_id(table: dict[str, _Branch]) -> str:
    n = len(table)
    while f"b{n}" in table:
        n += 1
    return f"b{n}"


def _parse_branches(raw: Any) -> tuple[dict[str, _Branch] | None, str]:
    if raw is None:
        return None, MAIN
    if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
        raise ValueError("agent state: branches must be {'active': id, 'items': [...]}")
    table: dict[str, _Branch] = {}
    for i, item in enumerate(raw["items"]):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise ValueError(f"agent state: branches.items[{i}] has no id")
        try:
            snapshot: Snapshot | None = None
            if item.get("memory") is not None:
                holder = InMemoryMemory()
                holder.load_state_dict(item["memory"])
                snapshot = holder.snapshot()
            table[item["id"]] = _Branch(
                id=item["id"],
                name=str(item.get("name") or item["id"]),
                parent=item.get("parent"),
                fork_point=item.get("fork_point"),
                created=str(item.get("created") or ""),
                snapshot=snapshot,
            )
        except (TypeError, ValueError, KeyError) as exc:
            raise ValueError(f"agent state: branches.items[{i}]: {exc}") from None
    active = raw.get("active")
    if active not in table or table[active].snapshot is not None:
        raise ValueError("agent state: branches.active must name the one branch without memory")
    if sum(b.snapshot is None for b in table.values()) != 1:
        raise ValueError("agent state: exactly one branch (the active one) has no memory")
    return table, str(active)


__all__ = ["MAIN", "BranchHost", "BranchInfo", "BranchTable"]
