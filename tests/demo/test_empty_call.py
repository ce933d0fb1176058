"""The seed's example on the demo model: ``agent()`` with no message, ``sleep(1)``, ``interrupt()``.

The demo model answers an empty call with an introduction that streams for about 4 s at its
default 25 tokens per second (0.4 s before), so the interrupt finds the reply running; "Please
continue" and ``agent.resume()`` then finish that introduction.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.demo import demo_toolkit
from nb_hitl.demo.model._responder import INTRODUCTION, PICK_UP
from nb_hitl.testing import assert_history_valid

SEED = """
import asyncio

from nb_hitl import Msg, ReActAgent, ScriptedModel


async def main():
    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel.demo(),
    )
    agent.set_console_output_enabled(False)
    task = asyncio.create_task(agent())
    await asyncio.sleep(1)
    await agent.interrupt()
    msg = await task
    print("interrupted:", msg.metadata.get("_is_interrupted"))
    msg = await agent(Msg("user", "Please continue where you left off.", "user"))
    print("resumed:", msg.get_text_content()[: len("Picking up where I left off:")])


asyncio.run(main())
"""


def make_agent(**kwargs: object) -> ReActAgent:
    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel.demo(),
        **kwargs,  # type: ignore[arg-type]
    )
    agent.set_console_output_enabled(False)
    return agent


async def test_an_empty_call_is_still_running_after_one_second_and_continues() -> None:
    agent = make_agent(toolkit=demo_toolkit())
    task = asyncio.create_task(agent())
    await asyncio.sleep(1)
    assert agent.is_replying
    await agent.interrupt()
    interrupted = await task
    assert interrupted.metadata["_is_interrupted"]
    partial = agent.memory.messages[0]
    said = partial.get_text_content() or ""
    assert said and INTRODUCTION.startswith(said) and said != INTRODUCTION
    resumed = await agent(Msg("user", "Please continue where you left off.", "user"))
    text = resumed.get_text_content() or ""
    assert text.startswith(PICK_UP) and text.endswith(INTRODUCTION[-40:])
    assert_history_valid(agent.memory.messages)


async def test_resume_continues_an_interrupted_introduction_mid_sentence() -> None:
    agent = make_agent()
    task = asyncio.create_task(agent())
    await asyncio.sleep(1)
    await agent.interrupt()
    await task
    said = agent.memory.messages[0].get_text_content() or ""
    assert said and said != INTRODUCTION
    resumed = await agent.resume()  # the same answer, from the last character said
    assert resumed.get_text_content() == INTRODUCTION


def test_the_seeds_script_shows_the_interruption_and_the_resume(tmp_path: Path) -> None:
    script = tmp_path / "seed.py"
    script.write_text(SEED)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert out.splitlines() == ["interrupted: True", "resumed: Picking up where I left off:"]
