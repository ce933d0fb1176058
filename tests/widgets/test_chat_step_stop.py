"""The chat's "After step" button (Shift+Escape): the step in flight finishes, the reply ends
cleanly, the status line says so, and Continue goes on with the next step."""

from __future__ import annotations

import asyncio

from widget_helpers import all_html, until

from nb_hitl.agent import ReActAgent, UserAgent
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._step_stop import STOPPED_AFTER_STEP, STOPPING_AFTER_STEP


def gated_agent(gate: asyncio.Event) -> ReActAgent:
    tk = Toolkit()

    async def fetch(url: str) -> str:
        """Fetch.

        Args:
            url: the address.
        """
        await gate.wait()
        return f"page at {url}"

    tk.register_tool_function(fetch)
    script = [
        ScriptedTurn(text="Fetching.", tool_calls=[ScriptedToolCall("fetch", {"url": "a"})]),
        "Here is what the page says.",
    ]
    return ReActAgent("Friday", "s", ScriptedModel(script, tokens_per_second=1e6), toolkit=tk)


async def test_after_this_step_lets_the_tool_finish_and_ends_cleanly() -> None:
    gate = asyncio.Event()
    agent = gated_agent(gate)
    chat = ChatWidget(agent)
    button = chat.step_stop.button
    assert button.disabled and "Shift+Esc" in button.tooltip
    chat.send("fetch a")
    await until(lambda: bool(agent._open_calls) and not button.disabled, what="tool running")
    button.click()
    assert button.disabled and STOPPING_AFTER_STEP in chat.status.text()
    assert chat.state == "running" and agent.is_replying  # nothing was cancelled
    gate.set()
    await until(lambda: chat.state == "idle", what="stopped after the step")
    last = agent.memory.messages[-1]
    assert last.metadata["stopped_after_step"] is True and not last.metadata.get("_is_interrupted")
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert [r.output_text() for r in results] == ["page at a"]  # the tool ran to the end
    assert STOPPED_AFTER_STEP in chat.status.text()
    assert "[Stopped]" in all_html(chat.rows[-1])
    assert not chat.continue_button.disabled
    chat.continue_button.click()
    await until(lambda: "Here is what the page says." in all_html(chat), what="went on")
    await until(lambda: chat.state == "idle")
    assert agent.memory.messages[-1].metadata["continued_by"] == "next_step"


async def test_shift_escape_is_bound_and_the_key_does_what_the_button_does() -> None:
    gate = asyncio.Event()
    agent = gated_agent(gate)
    chat = ChatWidget(agent)
    bindings = chat.shortcuts.bindings
    shift_esc = [b for b in bindings if b["key"] == "Escape" and b.get("shift")]
    assert [b["action"] for b in shift_esc] == ["stop_after_step"]
    chat.send("fetch a")
    await until(lambda: bool(agent._open_calls), what="tool running")
    chat.shortcuts.press("stop_after_step")
    await until(lambda: agent.stop_pending, what="stop requested")
    assert STOPPING_AFTER_STEP in chat.status.text()
    chat.stop()  # Stop still stops at once while the graceful stop is pending
    await until(lambda: chat.state == "idle")
    assert agent.memory.messages[-1].metadata.get("_is_interrupted") is True


async def test_no_reply_running_or_no_steps_means_nothing_to_stop() -> None:
    agent = gated_agent(asyncio.Event())
    chat = ChatWidget(agent)
    assert chat.stop_after_step() is False
    user_chat = ChatWidget(UserAgent("User"))
    assert user_chat.step_stop.button.layout.display == "none"  # a UserAgent has no steps
    assert user_chat.stop_after_step() is False
