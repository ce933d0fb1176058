"""Runs across workers that share a Redis: a per-thread run lock, and stops broadcast to all.

With a ``RedisSession`` store several workers (``--workers N``, or server processes) serve
the same threads. ``RunLocks`` makes sure only one run streams on a thread at a time among
them all, and lets any worker's stop route stop a run that streams on another worker:

- **the run lock**: a run takes ``{prefix}run_lock:{thread}`` with ``SET key value NX PX
  ttl`` before it starts (the value is a random token and the run id). While the run lasts
  the lock's ttl is renewed every third of it; the run gives it back when it ends with a
  compare-and-delete (a Lua script: only the lock it holds). A worker killed mid-run renews
  nothing, so its lock expires after ``ttl`` seconds and the thread takes runs again.
- **the stop broadcast**: a stop route that finds the run on no worker of its own publishes
  ``{"thread": ..., "runId": ...}`` on ``{prefix}stop``. Every worker listens there; the one
  whose run it is calls ``request_stop`` (``agent.interrupt()``), as its own stop route would.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

__all__ = ["RunLease", "RunLocks"]

logger = logging.getLogger("nb_hitl.serve")

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


class RunLease:
    """The run lock a run holds on a thread; renewed until ``release()``."""

    def __init__(self, locks: RunLocks, thread_id: str, run_id: str, value: str) -> None:
        self.locks = locks
        self.thread_id = thread_id
        self.run_id = run_id
        self.value = value
        self.released = False
        self._renewer: asyncio.Task[None] | None = None

    def start_renewing(self) -> None:
        self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        every = self.locks.ttl / 3
        while True:
            await asyncio.sleep(every)
            try:
                kept = await self.locks.renew_script(
                    keys=[self.locks.key(self.thread_id)],
                    args=[self.value, int(self.locks.ttl * 1000)],
                )
            except Exception as exc:  # Redis away for a moment: try again next time
                logger.warning("could not renew the run lock of %s: %r", self.thread_id, exc)
                continue
            if not kept:
                logger.warning(
                    "run %s lost its lock on thread %s (it expired)", self.run_id, self.thread_id
                )
                return

    async def release(self) -> None:
        """Give the lock back (only if it is still ours); safe to call twice."""
        if self.released:
            return
        self.released = True
        if self._renewer is not None:
            self._renewer.cancel()
        self.locks.leases.pop(self.thread_id, None)
        try:
            await self.locks.release_script(
                keys=[self.locks.key(self.thread_id)], args=[self.value]
            )
        except Exception as exc:  # it expires by itself after ttl
            logger.warning("could not release the run lock of %s: %r", self.thread_id, exc)


class RunLocks:
    """The run locks and stop channel of one server prefix in a shared Redis.

    Args:
        client: a ``redis.asyncio.Redis`` client (``decode_responses=True``).
        prefix: put before the lock keys and the channel name (the session's key prefix).
        ttl: seconds a lock outlives the last renewal (how long a killed worker's lock lasts).
    """

    def __init__(self, client: Any, prefix: str, ttl: float = 30.0) -> None:
        if ttl <= 0:
            raise ValueError(f"The run lock ttl must be above 0 seconds, got {ttl}.")
        self.client = client
        self.prefix = prefix
        self.ttl = float(ttl)
        self.channel = f"{prefix}stop"
        self.release_script = client.register_script(_RELEASE)
        self.renew_script = client.register_script(_RENEW)
        self.leases: dict[str, RunLease] = {}
        """The locks this worker holds, by thread id."""
        self.early_stops: set[tuple[str, str]] = set()
        """Stops that came for a run of ours not registered yet (thread id, run id)."""
        self.on_stop: Callable[[str, str | None], bool] | None = None
        """Called with (thread id, run id) for each broadcast stop; True: it was ours."""
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._started = asyncio.Lock()

    def key(self, thread_id: str) -> str:
        return f"{self.prefix}run_lock:{thread_id}"

    async def acquire(self, thread_id: str, run_id: str) -> RunLease | None:
        """The thread's run lock for ``run_id``, or None when another run holds it."""
        await self.listen()  # stops for this run must reach us from the start
        value = json.dumps({"token": uuid.uuid4().hex, "runId": run_id})
        taken = await self.client.set(self.key(thread_id), value, nx=True, px=self._ms)
        if not taken:
            return None
        lease = RunLease(self, thread_id, run_id, value)
        self.leases[thread_id] = lease
        lease.start_renewing()
        return lease

    @property
    def _ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    async def holder(self, thread_id: str) -> str | None:
        """The run id holding the thread's lock (on any worker), or None."""
        value = await self.client.get(self.key(thread_id))
        if value is None:
            return None
        try:
            return str(json.loads(value).get("runId") or "?")
        except (ValueError, AttributeError):
            return "?"

    async def broadcast_stop(self, thread_id: str, run_id: str) -> int:
        """Ask every worker to stop ``run_id`` on the thread; the number that heard it."""
        message = json.dumps({"thread": thread_id, "runId": run_id})
        return int(await self.client.publish(self.channel, message))

    def take_early_stop(self, thread_id: str, run_id: str) -> bool:
        """Whether a stop for this run came before it was registered (then it is used up)."""
        try:
            self.early_stops.remove((thread_id, run_id))
        except KeyError:
            return False
        return True

    # -- listening ---------------------------------------------------------------------------
    async def listen(self) -> None:
        """Subscribe to the stop channel (once), confirmed by Redis before this returns."""
        async with self._started:
            if self._listener is not None and not self._listener.done():
                return
            pubsub = self.client.pubsub()
            await pubsub.subscribe(self.channel)
            for _ in range(50):  # the confirmation: from now on every stop reaches us
                message = await pubsub.get_message(timeout=0.1)
                if message is not None and message.get("type") == "subscribe":
                    break
            self._pubsub = pubsub
            self._listener = asyncio.get_running_loop().create_task(self._listen(pubsub))

    async def _listen(self, pubsub: Any) -> None:
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection broke: subscribe again
                logger.warning("the stop channel broke (%r); subscribing again", exc)
                await asyncio.sleep(1.0)
                try:
                    await pubsub.subscribe(self.channel)
                except Exception as again:  # still away: the next get_message fails and retries
                    logger.debug("subscribing to the stop channel again failed: %r", again)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                data = json.loads(message["data"])
                thread_id, run_id = str(data["thread"]), data.get("runId")
            except (ValueError, KeyError, TypeError):
                continue
            self._stop(thread_id, run_id if isinstance(run_id, str) else None)

    def _stop(self, thread_id: str, run_id: str | None) -> None:
        if self.on_stop is not None and self.on_stop(thread_id, run_id):
            return
        lease = self.leases.get(thread_id)
        if lease is not None and run_id in (None, lease.run_id):
            self.early_stops.add((thread_id, lease.run_id))  # ours, still starting

    async def aclose(self) -> None:
        """Give back every lock this worker holds and stop listening."""
        for lease in list(self.leases.values()):
            await lease.release()
        if self._listener is not None:
            self._listener.cancel()
            (ended,) = await asyncio.gather(self._listener, return_exceptions=True)
            if isinstance(ended, Exception):  # not the cancel: a bug in the listener
                logger.warning("the stop channel listener had failed: %r", ended)
        if self._pubsub is not None:
            try:
                await self._pubsub.aclose()
            except Exception as exc:  # the connection is gone anyway: nothing left to close
                logger.debug("closing the stop channel failed: %r", exc)


def run_locks_for(session: Any, ttl: float) -> RunLocks | None:
    """``RunLocks`` over the session's Redis when it is a ``RedisSession``, else None."""
    from nb_hitl.session import RedisSession

    if not isinstance(session, RedisSession):
        return None
    return RunLocks(session.get_client(), session.key_prefix, ttl)
