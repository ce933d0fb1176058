"""``%stop`` reaches agents wherever they reply: on the kernel's loop or on another thread's."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.extension import AgentMagics


class ReplyInThread:
    """An agent replying on its own event loop in another thread (a token every 1000 s)."""

    def __init__(self, name: str) -> None:
        self.agent = ReActAgent(name, "sys", ScriptedModel(["a b c d"], tokens_per_second=0.001))
        self.agent.set_console_output_enabled(False)  # stdout holds what the magic says only
        self.started = threading.Event()
        self.result: list[Any] = []
        self.thread = threading.Thread(target=asyncio.run, args=(self._reply(),), daemon=True)

    async def _reply(self) -> None:
        task = asyncio.create_task(self.agent(Msg("User", "go", "user")))
        await asyncio.sleep(0)  # the task's first step registers the reply
        if self.agent.is_replying:
            self.started.set()
        self.result.append(await task)

    def __enter__(self) -> ReplyInThread:
        self.thread.start()
        assert self.started.wait(30), "the reply never started"
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.agent.is_replying:
            self.agent.interrupt_threadsafe().result(30)
        self.thread.join(30)


async def test_stop_without_a_name_interrupts_a_reply_on_another_threads_loop(
    capsys: Any,
) -> None:
    # Run on a loop of its own, as a magic runs on the kernel's loop.
    with ReplyInThread("Threaded") as run:
        AgentMagics(shell=None).stop("")
        assert capsys.readouterr().out.strip() == "Stopping Threaded."
        run.thread.join(30)  # the reply loop sleeps ~1000 s per token: only the hop wakes it
        assert not run.thread.is_alive()
        [reply] = run.result
        assert reply.is_interrupted and reply.metadata["interrupted_by"] == "interrupt"


async def test_stop_by_name_interrupts_a_reply_on_another_threads_loop(capsys: Any) -> None:
    with ReplyInThread("Elsewhere") as run:
        AgentMagics(shell=None).stop("Elsewhere")
        assert capsys.readouterr().out.strip() == "Stopping Elsewhere."
        run.thread.join(30)
        assert not run.thread.is_alive()
        [reply] = run.result
        assert reply.is_interrupted and reply.metadata["interrupted_by"] == "interrupt"
