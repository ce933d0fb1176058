"""LoopBridge: callbacks run on the captured loop's thread; task failures are retrieved."""

from __future__ import annotations

import asyncio
import threading

from widget_helpers import until

from nb_hitl.widgets import LoopBridge


async def test_call_from_another_thread_runs_on_the_loop_thread() -> None:
    bridge = LoopBridge()
    ran_on: list[int] = []
    t = threading.Thread(target=bridge.call, args=(lambda: ran_on.append(threading.get_ident()),))
    t.start()
    t.join()
    assert ran_on == []  # hopped: it waits for the loop
    await until(lambda: ran_on)
    assert ran_on == [threading.get_ident()]


async def test_call_on_the_loop_thread_runs_at_once() -> None:
    bridge = LoopBridge()
    ran: list[int] = []
    bridge.call(ran.append, 1)
    assert ran == [1]


async def test_failing_callback_and_task_are_reported_not_raised() -> None:
    bridge = LoopBridge()
    errors: list[BaseException] = []
    bridge.on_error = errors.append

    def boom() -> None:
        raise ValueError("callback broke")

    async def task_boom() -> None:
        await asyncio.sleep(0)
        raise RuntimeError("task broke")

    bridge.call(boom)  # a widget callback must never raise into the comm handler
    task = bridge.spawn(task_boom(), name="failing")
    assert task in bridge.tasks  # held by a strong reference while it runs
    await until(lambda: len(errors) == 2)
    assert [type(e) for e in errors] == [ValueError, RuntimeError]
    assert task not in bridge.tasks and task.done()
