"""UserAgent: a person's turn in a loop, awaited without blocking the event loop.

    user = UserAgent("User", QueueInput())      # or TerminalInput(), or a widget's input source
    msg = None
    while True:
        msg = await user(msg)
        msg = await agent(msg)

Interrupting a UserAgent that waits returns an interrupted ``Msg`` like any agent.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from nb_hitl.exceptions import NbHitlError
from nb_hitl.message import Msg

from ._base import AgentBase


@runtime_checkable
class InputSource(Protocol):
    """Where a UserAgent's input comes from: an awaitable returning text or a ``Msg``."""

    async def __call__(self, prompt: Msg | None) -> str | Msg: ...


class QueueInput:
    """Input fed programmatically (pipelines, tests): ``put(text)`` from the loop's thread,
    ``put_threadsafe(text)`` from any other."""

    def __init__(self, items: Iterable[str | Msg] = ()) -> None:
        self._queue: asyncio.Queue[str | Msg] | None = None
        self._early: list[str | Msg] = list(items)
        self._loop: asyncio.AbstractEventLoop | None = None

    def _q(self) -> asyncio.Queue[str | Msg]:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._loop = asyncio.get_running_loop()
            for item in self._early:
                self._queue.put_nowait(item)
            self._early.clear()
        return self._queue

    def put(self, item: str | Msg) -> None:
        """Queue one input (call on the event loop's thread, or before the loop runs)."""
        if self._queue is None:
            self._early.append(item)
        else:
            self._queue.put_nowait(item)

    def put_threadsafe(self, item: str | Msg) -> None:
        """Queue one input from any thread."""
        if self._queue is None or self._loop is None:
            self._early.append(item)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    @property
    def waiting(self) -> int:
        """Inputs queued and not yet consumed."""
        return len(self._early) if self._queue is None else self._queue.qsize()

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        return await self._q().get()


class ScriptedInput:
    """Plays a fixed list of inputs; a clear error when it runs out."""

    def __init__(self, items: Iterable[str | Msg]) -> None:
        self.items = list(items)
        self._next = 0

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        if self._next >= len(self.items):
            raise NbHitlError(
                f"ScriptedInput has no input left after {len(self.items)} item(s); add more "
                "items or use QueueInput to feed input as you go."
            )
        item = self.items[self._next]
        self._next += 1
        await asyncio.sleep(0)
        return item


class TerminalInput:
    """Reads a line from stdin in a worker thread, so the event loop keeps running.

    If the wait is interrupted, the thread stays blocked on stdin until a line arrives; that
    line is then discarded.
    """

    def __init__(self, prompt: str = "You: ") -> None:
        self.prompt = prompt

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        def read() -> str:
            sys.stdout.write(self.prompt)
            sys.stdout.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError("stdin closed")
            return line.rstrip("\n")

        return await asyncio.get_running_loop().run_in_executor(None, read)


class UserAgent(AgentBase):
    """An agent that speaks for a person: its reply is whatever the input source yields."""

    def __init__(self, name: str, input_source: InputSource | None = None) -> None:
        super().__init__(name, interrupt_text="[Interrupted] Stopped waiting for user input.")
        self.input_source: InputSource = input_source or TerminalInput()

    async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """Wait for the person's next input and return it as a user message."""
        self._where = "waiting for input"
        item = await self.input_source(msg)
        if isinstance(item, Msg):
            return item
        return Msg(self.name, str(item), "user")

    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """The interrupted message of a person's turn (role ``user``)."""
        return self._interrupted_msg(role="user")
