"""Tools run in the background (``async_execution=True``), as in AgentScope 1.x (experimental).

The call answers at once with a task id; ``view_task``, ``wait_task`` and ``cancel_task`` (which
can themselves be registered as tools) report on it. A finished task's result is its last
response (nb_hitl's streamed chunks are cumulative; AgentScope concatenates every chunk).

nb_hitl also records which reply started each task (``background_owner``, set by the agent
while it runs a tool): interrupting that reply cancels its tasks (``cancel_owned``), whose
results then say they were interrupted, except tasks of tools registered with
``outlive_reply=True``. ``toolkit.background_tasks`` lists the running ones (the panel's
Stop buttons), and ``watch_background(listener)`` hears each start and end. A ``Toolkit`` owns
one ``BackgroundTasks`` (``toolkit.background``) and keeps these names as one-line delegations.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass

from nb_hitl.message import TextBlock

from ._response import ToolResponse

logger = logging.getLogger("nb_hitl.tool")

background_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "nb_hitl_background_owner", default=None
)
"""The reply (its id) running a tool now: background tasks it starts belong to it."""


@dataclass(frozen=True)
class BackgroundTask:
    """A running background tool task."""

    task_id: str
    """Pass it to ``cancel_task`` / ``stop_background``."""
    tool_name: str
    """The tool it runs."""
    started_at: float
    """When it started (seconds since the epoch)."""
    owner: str | None
    """The id of the reply that started it (None: started outside a reply)."""
    outlive_reply: bool
    """It keeps running when its reply is interrupted."""


def _text(text: str, **kwargs: bool) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)], **kwargs)


def _cancelled() -> ToolResponse:
    return _text(
        "<system-info>The tool call has been cancelled by the user.</system-info>",
        is_interrupted=True,
    )


class BackgroundTasks:
    """Background execution for a ``Toolkit``: a strong reference to every task it starts."""

    def __init__(self) -> None:
        self._async_tasks: dict[str, asyncio.Task[None]] = {}
        self._async_results: dict[str, ToolResponse] = {}
        self._async_info: dict[str, BackgroundTask] = {}
        self._background_listeners: list[Callable[[], None]] = []

    @property
    def running(self) -> list[BackgroundTask]:
        """The background tasks still running, oldest first."""
        return [self._async_info[t] for t in list(self._async_tasks) if t in self._async_info]

    def __len__(self) -> int:
        """How many background tasks are running (so ``if toolkit.background:`` is cheap)."""
        return len(self._async_tasks)

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` (on the loop) when a background task starts or ends; returns
        a function that stops watching."""
        self._background_listeners.append(listener)

        def unwatch() -> None:
            if listener in self._background_listeners:
                self._background_listeners.remove(listener)

        return unwatch

    def _background_changed(self) -> None:
        for listener in list(self._background_listeners):
            try:
                listener()
            except Exception:  # a broken view must never break a tool
                logger.exception("a background-task listener failed (ignored)")

    def stop(self, task_id: str) -> bool:
        """Cancel one running background task now (its result says it was cancelled);
        False when it is not running."""
        task = self._async_tasks.get(task_id)
        if task is None:
            return False
        task.cancel()
        return True

    async def cancel_owned(self, owner: str | None, wait: float = 5.0) -> list[str]:
        """Cancel the running tasks started by reply ``owner`` (except ``outlive_reply``
        ones) and wait up to ``wait`` seconds for them to end; their ids."""
        ids = [i.task_id for i in self.running if i.owner == owner and not i.outlive_reply]
        tasks = [self._async_tasks[t] for t in ids if t in self._async_tasks]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=wait)
        return ids

    def start(
        self,
        tool_name: str,
        responses: Callable[[], AsyncGenerator[ToolResponse, None]],
        outlive_reply: bool = False,
    ) -> ToolResponse:
        task_id = uuid.uuid4().hex[:22]

        async def run() -> None:
            final = _text("")
            try:
                async for chunk in responses():
                    final = chunk
            except asyncio.CancelledError:
                final = _cancelled()
            except Exception as exc:  # reported to the model, never lost
                final = _text(f"Error during async execution: {exc}", is_error=True)
            finally:
                self._async_results[task_id] = final
                self._async_tasks.pop(task_id, None)

        def ended(task: asyncio.Task[None]) -> None:
            # A task cancelled before its first step never enters run(): record it here.
            if task.cancelled():
                self._async_results.setdefault(task_id, _cancelled())
                self._async_tasks.pop(task_id, None)
            self._async_info.pop(task_id, None)
            self._background_changed()

        task = asyncio.get_running_loop().create_task(run())
        task.add_done_callback(ended)
        self._async_tasks[task_id] = task
        self._async_info[task_id] = BackgroundTask(
            task_id, tool_name, time.time(), background_owner.get(), outlive_reply
        )
        self._background_changed()
        return _text(
            f"<system-reminder>Tool '{tool_name}' is executing asynchronously. "
            f"Task ID: {task_id}. Use view_task('{task_id}') to check its status, "
            f"wait_task('{task_id}') to wait for it, or cancel_task('{task_id}') to cancel it."
            "</system-reminder>"
        )

    def _unknown(self, task_id: str) -> ToolResponse | None:
        if task_id in self._async_tasks or task_id in self._async_results:
            return None
        return _text(f"InvalidTaskIdError: Cannot find async task with ID {task_id}.")

    async def view_task(self, task_id: str) -> ToolResponse:
        """The status of a task; a finished one returns its result (``Toolkit.view_task``)."""
        if (unknown := self._unknown(task_id)) is not None:
            return unknown
        if task_id in self._async_tasks:
            return _text(f"Task {task_id} is still running.")
        return self._async_results.pop(task_id)

    async def wait_task(self, task_id: str, timeout: float = 10) -> ToolResponse:
        """Wait up to ``timeout`` seconds for a task's result (``Toolkit.wait_task``)."""
        if (unknown := self._unknown(task_id)) is not None:
            return unknown
        task = self._async_tasks.get(task_id)
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=timeout)
            except asyncio.TimeoutError:
                return _text(f"Task {task_id} is still running after waiting {timeout} seconds.")
        return self._async_results.pop(task_id)

    async def cancel_task(self, task_id: str) -> ToolResponse:
        """Cancel a task (``Toolkit.cancel_task``)."""
        if (unknown := self._unknown(task_id)) is not None:
            return unknown
        task = self._async_tasks.pop(task_id, None)
        if task is None:
            return _text(f"Task {task_id} has already completed and cannot be cancelled.")
        task.cancel()
        return _text(f"Task {task_id} has been cancelled.")


__all__ = ["BackgroundTask", "BackgroundTasks", "background_owner"]
