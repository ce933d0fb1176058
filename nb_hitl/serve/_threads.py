"""One agent per thread id, kept across runs and saved in a session store after each run.

A ``ThreadSlot`` holds a thread's agent, the reply task (which outlives a run when the reply is
parked on an approval or a question), the run streaming now, and the version of the thread's
saved state. ``Threads`` finds or makes the slot of a thread id: the factory builds a new agent
and the session store (``JSONSession`` by default, ``RedisSession`` or any ``SessionBase`` for
several workers) fills it. Each saved state carries a version number (``ServeRecord``); before a
run the store's version is read, and a slot whose agent is older than the store (another worker
ran the thread since) is dropped and loaded again, so any worker can take the next run.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Union

from nb_hitl.exceptions import ServeError, SessionError
from nb_hitl.message import Msg

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.session import SessionBase

logger = logging.getLogger("nb_hitl.serve")

__all__ = ["RunLike", "ServeRecord", "ThreadSlot", "Threads", "check_thread_id", "settle"]

THREAD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")


def check_thread_id(thread_id: str) -> str:
    """``thread_id`` if it is a plain id (letters, digits, ``._:@-``, up to 128), else 422."""
    if not isinstance(thread_id, str) or not THREAD_ID.match(thread_id):
        raise ServeError(
            422,
            "bad_thread_id",
            f"Thread id {str(thread_id)[:80]!r} is not allowed: use 1-128 letters, digits or "
            "'._:@-', starting with a letter or digit (a UUID works).",
        )
    return thread_id


class RunLike(Protocol):
    """What a slot knows of the run streaming on it (``ActiveRun``)."""

    run_id: str
    finished: bool

    def request_stop(self, why: str = "stop") -> bool: ...


@dataclass
class ServeRecord:
    """What the server saves next to a thread's agent: a version and the pending interrupts."""

    version: int = 0
    """Bumped by every save; a worker whose agent is older loads the thread again."""
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    """The AG-UI interrupts (JSON) the thread's reply waits on, if it is parked."""
    saved_at: float = 0.0

    def state_dict(self) -> dict[str, Any]:
        return {"version": self.version, "interrupts": self.interrupts, "saved_at": self.saved_at}

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        self.version = int(state.get("version", 0))
        self.interrupts = list(state.get("interrupts", []))
        self.saved_at = float(state.get("saved_at", 0.0))


@dataclass(eq=False)
class ThreadSlot:
    """A thread's agent and what runs on it now."""

    thread_id: str
    agent: AgentBase
    record: ServeRecord = field(default_factory=ServeRecord)
    reply: asyncio.Task[Msg] | None = None
    """The ``agent(...)`` call: done, running, or parked across runs."""
    run: RunLike | None = None
    """The run streaming now (None between runs)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def parked(self) -> bool:
        """Whether a live reply waits on approvals or questions (the last run ended on them)."""
        return self.reply is not None and not self.reply.done() and self.run is None

    @property
    def busy(self) -> bool:
        """Whether a run streams on this thread now."""
        return self.run is not None and not self.run.finished


AgentFactory = Callable[..., Any]
PermissionsFile = Union[str, "os.PathLike[str]", Callable[[str], Any]]
"""A served agent's own permission rules file: a path, or ``f(thread_id) -> path``."""


class Threads:
    """The server's threads: find, make, load, save and forget slots.

    Args:
        make_agent: the factory (given the thread id when it has a ``thread_id`` or a
            required first parameter).
        session: where thread states are saved (None: kept in this process only).
        single: an agent instance served as the only thread (``serve(agent)``).
        max_idle: idle threads kept in memory beyond which the least recent saved ones are
            dropped (they load again from the store when asked for).
        permissions_file: each agent's own permission rules file, instead of the user's
            (``$NB_HITL_CONFIG_DIR``) one: a path, or ``f(thread_id) -> path``.
    """

    def __init__(
        self,
        make_agent: AgentFactory | None,
        session: SessionBase | None,
        single: AgentBase | None = None,
        max_idle: int = 1000,
        permissions_file: PermissionsFile | None = None,
    ) -> None:
        self.make_agent = make_agent
        self.permissions_file = permissions_file
        self.session = session
        self.single = single
        self.single_thread: str | None = None
        self.max_idle = max_idle
        self.slots: OrderedDict[str, ThreadSlot] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self.background: set[asyncio.Task[Any]] = set()
        """Tasks the server started on its own (stops after a disconnect), held strongly."""

    def lock(self, thread_id: str) -> asyncio.Lock:
        """The lock that orders loading, starting and saving on ``thread_id``."""
        return self._locks.setdefault(thread_id, asyncio.Lock())

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run ``coro`` in a task the server holds until it is done (its errors are retrieved)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self._forget_task)
        return task

    def _forget_task(self, task: asyncio.Task[Any]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.warning("server task failed: %r", task.exception())

    # -- finding -----------------------------------------------------------------------------
    async def stored_version(self, thread_id: str) -> ServeRecord | None:
        """The thread's saved record (None: no store, or nothing saved yet)."""
        if self.session is None:
            return None
        probe = ServeRecord()
        try:
            await self.session.load_session_state(thread_id, serve=probe)
        except SessionError as exc:
            raise ServeError(500, "session_unreadable", f"{exc}") from exc
        return probe if probe.version else None

    async def slot(self, thread_id: str) -> ThreadSlot:
        """The thread's slot, up to date with the store (call under ``lock(thread_id)``)."""
        check_thread_id(thread_id)
        stored = await self.stored_version(thread_id)
        slot = self.slots.get(thread_id)
        if slot is not None:
            current = stored.version if stored else slot.record.version
            if current == slot.record.version or slot.busy:
                self.slots.move_to_end(thread_id)
                return slot
            self._drop(slot)  # another worker ran this thread since: ours is stale
        slot = ThreadSlot(thread_id, self._new_agent(thread_id))
        if stored is not None and self.session is not None:
            try:
                await self.session.load_session_state(
                    thread_id, agent=slot.agent, serve=slot.record
                )
            except SessionError as exc:
                raise ServeError(
                    500,
                    "session_unloadable",
                    f"The saved state of thread {thread_id!r} does not fit the agent the "
                    f"factory builds: {exc}",
                ) from exc
        self.slots[thread_id] = slot
        self._evict()
        return slot

    def _new_agent(self, thread_id: str) -> AgentBase:
        if self.single is not None:
            if self.single_thread not in (None, thread_id):
                raise ServeError(
                    409,
                    "single_thread",
                    f"This server serves one agent instance, bound to thread "
                    f"{self.single_thread!r}. Use that thread id, or serve a factory "
                    "(serve(make_agent)) to give every thread an agent of its own.",
                )
            self.single_thread = thread_id
            agent = self.single
        else:
            assert self.make_agent is not None
            agent = _call_factory(self.make_agent, thread_id)
            if inspect.isawaitable(agent):
                raise ServeError(
                    500,
                    "bad_factory",
                    "The agent factory returned an awaitable; give a plain function that "
                    "returns an agent.",
                )
        self._own_rules(agent, thread_id)
        quiet = getattr(agent, "set_console_output_enabled", None)
        if callable(quiet):
            quiet(False)  # a server prints nothing per token
        return agent

    def _own_rules(self, agent: AgentBase, thread_id: str) -> None:
        from nb_hitl.agent import PermissionPolicy

        where = self.permissions_file
        policy = getattr(agent, "permissions", None)
        if where is None or not isinstance(policy, PermissionPolicy):
            return
        policy.use_rules_file(where(thread_id) if callable(where) else where)

    def _drop(self, slot: ThreadSlot) -> None:
        """Forget a stale slot; a parked reply of it is cancelled (its agent is discarded
        unsaved: the store has the newer state)."""
        self.slots.pop(slot.thread_id, None)
        if slot.reply is not None and not slot.reply.done():
            self.spawn(_discard(slot.agent, slot.reply))

    def _evict(self) -> None:
        if self.session is None or self.single is not None:
            return  # nowhere to load them back from
        idle = [s for s in self.slots.values() if not s.busy and s.reply is None]
        for slot in idle[: max(0, len(self.slots) - self.max_idle)]:
            self.slots.pop(slot.thread_id, None)

    # -- saving ------------------------------------------------------------------------------
    async def save(self, slot: ThreadSlot, interrupts: list[dict[str, Any]]) -> None:
        """Save the thread's agent with a new version (nothing without a store).

        Raises:
            SessionError: the store refused (a secret in the state, an unreachable server).
        """
        slot.record.interrupts = interrupts
        if self.session is None:
            slot.record.version += 1
            return
        record = ServeRecord(slot.record.version + 1, interrupts, time.time())
        await self.session.save_session_state(slot.thread_id, agent=slot.agent, serve=record)
        slot.record = record


def _call_factory(factory: AgentFactory, thread_id: str) -> Any:
    """``factory(thread_id=...)`` when it has a ``thread_id`` parameter, ``factory(thread_id)``
    when its first parameter is required, else ``factory()`` (defaults are left alone)."""
    params = list(inspect.signature(factory).parameters.values())
    if any(p.name == "thread_id" for p in params):
        return factory(thread_id=thread_id)
    first = params[0] if params else None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if first is not None and first.kind in positional and first.default is first.empty:
        return factory(thread_id)
    return factory()


async def _discard(agent: AgentBase, reply: asyncio.Task[Any]) -> None:
    """End a stale agent's parked reply; its outcome is dropped with the agent."""
    await agent.interrupt()
    await settle(reply, f"the stale reply of {agent.name}")


async def settle(reply: asyncio.Future[Any], what: str) -> None:
    """Wait for a reply that was stopped and whose outcome nobody reads any more.

    Its failure was already reported to the run that drove it (a ``RUN_ERROR``) and memory
    stays valid, so it is logged at debug level here, not raised again.
    """
    try:
        await reply
    except Exception:
        logger.debug("%s failed after it was stopped", what, exc_info=True)
