"""Tools run in the background (``async_execution=True``), as in AgentScope 1.x (experimental).

The call answers at once with a task id; ``view_task``, ``wait_task`` and ``cancel_task`` (which
can themselves be registered as tools) report on it. A finished task's result is its last
response (nb_hitl's streamed chunks are cumulative; AgentScope concatenates every chunk).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Callable

from nb_hitl.message import TextBlock

from ._response import ToolResponse


def _text(text: str, **kwargs: bool) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)], **kwargs)


def _cancelled() -> ToolResponse:
    return _text(
        "<system-info>The tool call has been cancelled by the user.</system-info>",
        is_interrupted=True,
    )


class BackgroundTasksMixin:
    """Background execution for ``Toolkit``: a strong reference to every task it starts."""

    _async_tasks: dict[str, asyncio.Task[None]]
    _async_results: dict[str, ToolResponse]

    def _start_background(
        self, tool_name: str, responses: Callable[[], AsyncGenerator[ToolResponse, None]]
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

        def cancelled_before_it_ran(task: asyncio.Task[None]) -> None:
            # A task cancelled before its first step never enters run(): record it here.
            if task.cancelled():
                self._async_results.setdefault(task_id, _cancelled())
                self._async_tasks.pop(task_id, None)

        task = asyncio.get_running_loop().create_task(run())
        task.add_done_callback(cancelled_before_it_ran)
        self._async_tasks[task_id] = task
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
        """View the status of a background tool task; a finished one returns its result.

        Args:
            task_id: The ID of the background task.
        """
        if (unknown := self._unknown(task_id)) is not None:
            return unknown
        if task_id in self._async_tasks:
            return _text(f"Task {task_id} is still running.")
        return self._async_results.pop(task_id)

    async def wait_task(self, task_id: str, timeout: float = 10) -> ToolResponse:
        """Wait for a background tool task to finish and return its result.

        Keep the timeout short and check again later rather than waiting long.

        Args:
            task_id: The ID of the background task.
            timeout: The longest time to wait, in seconds.
        """
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
        """Cancel a background tool task.

        Args:
            task_id: The ID of the background task.
        """
        if (unknown := self._unknown(task_id)) is not None:
            return unknown
        task = self._async_tasks.pop(task_id, None)
        if task is None:
            return _text(f"Task {task_id} has already completed and cannot be cancelled.")
        task.cancel()
        return _text(f"Task {task_id} has been cancelled.")
