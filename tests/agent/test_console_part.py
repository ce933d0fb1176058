"""The ``Console`` part alone: the switch, the message queue, printing only what is new."""

from __future__ import annotations

import asyncio

import pytest

from nb_hitl.agent._console import Console
from nb_hitl.message import Msg, TextBlock


def test_a_stream_prints_only_what_each_chunk_adds(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console()
    msg = Msg("bot", [TextBlock(text="Hel")], "assistant")
    console.write(msg, last=False)
    msg.content = [TextBlock(text="Hello")]
    console.write(msg, last=True)
    assert capsys.readouterr().out == "bot: Hello\n"


async def test_the_queue_gets_a_copy_of_every_message_even_with_the_console_off() -> None:
    console = Console()
    console.enabled = False
    assert not console.active
    queue: asyncio.Queue[object] = asyncio.Queue()
    console.set_queue_enabled(True, queue)
    assert console.active and console.queue is queue
    msg = Msg("bot", "hi", "assistant")
    await console.show(msg, last=True)
    copied, last, speech = queue.get_nowait()  # type: ignore[misc]
    assert copied is not msg and copied.id == msg.id and last is True and speech is None
    console.set_queue_enabled(False)
    assert console.queue is None and not console.queue_enabled


def test_enabling_the_queue_again_keeps_it() -> None:
    console = Console()
    console.set_queue_enabled(True)
    first = console.queue
    console.set_queue_enabled(True)
    assert console.queue is first and first is not None and first.maxsize == 100


async def test_a_class_print_hook_registered_later_is_seen_at_once() -> None:
    from nb_hitl.agent import ReActAgent
    from nb_hitl.model import ScriptedModel

    class Quiet(ReActAgent):
        pass

    agent = Quiet("q", "sys", ScriptedModel(["hi"]))
    agent.set_console_output_enabled(False)
    assert not agent._print_wanted()  # asked (and cached) before the hook exists
    seen: list[str] = []
    Quiet.register_class_hook("post_print", "see", lambda _a, kw, _out: seen.append("x"))
    try:
        assert agent._print_wanted()
        await agent(Msg("user", "hello", "user"))
        assert seen
    finally:
        Quiet.clear_class_hooks()
    assert not agent._print_wanted()
