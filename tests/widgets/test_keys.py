"""Keyboard shortcuts (the ``KeyBindings`` anywidget) and a chat made while a reply runs.

Headless: a key press reaches the kernel as the chat's action ``keys`` (the chat's page
draws the keys: ``{name: "press", args: {action, text}}``), fed here to the chat's own message
handler exactly as its comm delivers it; a ``KeyBindings`` shown on its own still takes its
anywidget message (``{action, text}``). The real keys are pressed in Chromium in
``tests/browser/test_keyboard_in_jupyterlab.py``.
"""

from __future__ import annotations

import asyncio

from widget_helpers import until

from nb_hitl._render import CSS
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import AgentPanel, ChatWidget
from nb_hitl.widgets._keys import INACTIVE_TEXT, STOPPING_CLASS, KeyBindings

LONG = " ".join(f"word{i}" for i in range(400))


def slow_agent(script: list, tps: float = 60.0) -> ReActAgent:
    return ReActAgent(
        "Friday", "You are a test agent.", ScriptedModel(script, tokens_per_second=tps)
    )


def key_message(keys: KeyBindings, action: str, text: str = "") -> None:
    """What the front end sends when a bound key is pressed: the chat's action ``keys``."""
    host, part = keys._host or (None, "")
    assert host is not None and part == "keys", "the chat draws its keys"
    press = {"name": "press", "args": {"action": action, "text": text}}
    host.page_message({"t": "action", "name": part, "args": press})


async def test_ctrl_enter_sends_the_typed_text_and_escape_stops() -> None:
    agent = slow_agent([LONG, "ok"])
    chat = ChatWidget(agent)
    chat.input.value = "tell me a story"
    key_message(chat.shortcuts, "send", "tell me a story")
    assert chat.input.value == ""
    await until(lambda: chat.state == "running" and agent.is_replying)
    await until(lambda: agent._where == "streaming")
    key_message(chat.shortcuts, "stop")
    await until(lambda: chat.state == "idle" and not agent.is_replying)
    last = agent.memory.messages[-1]
    assert last.is_interrupted and last.metadata["interrupted_by"] == "interrupt"
    assert agent.memory.messages[0].get_text_content() == "tell me a story"


async def test_key_messages_that_mean_nothing_change_nothing() -> None:
    agent = slow_agent(["ok"])
    chat = ChatWidget(agent)
    key_message(chat.shortcuts, "send", "   ")  # empty: nothing sent, the note says why
    assert chat.state == "idle" and "Nothing sent" in chat._note.value
    key_message(chat.shortcuts, "stop")  # nothing running
    chat.shortcuts._handle_custom_msg({"action": 3}, [])  # malformed (the anywidget's path)
    chat.shortcuts._handle_custom_msg({"action": "unknown"}, [])
    for bad in ({"action": 3}, {"action": "unknown"}, {"text": 5}, {"action": "send", "text": 5}):
        chat.page_message({"t": "action", "name": "keys", "args": {"name": "press", "args": bad}})
    chat.page_message({"t": "action", "name": "keys", "args": {"name": "nope"}})
    assert chat.state == "idle" and agent.memory.messages == []


async def test_a_key_bindings_shown_on_its_own_still_takes_its_anywidget_message() -> None:
    from nb_hitl.widgets._loop import LoopBridge

    keys = KeyBindings("nb-hitl-chat", [], LoopBridge())
    pressed: list[str] = []
    keys.on_action("send", pressed.append)
    keys._handle_custom_msg({"action": "send", "text": "hi"}, [])
    assert pressed == ["hi"] and keys.comm is not None  # an anywidget of its own
    assert keys.scope == "nb-hitl-chat" and keys.view_state["scope"] == "nb-hitl-chat"
    keys.close()


def test_tooltips_name_the_shortcuts_and_bindings_are_declared() -> None:
    panel = AgentPanel(slow_agent(["ok"]), session=None)
    chat = panel.chat
    assert "Ctrl+Enter" in chat.send_button.tooltip
    assert "Esc" in chat.stop_button.tooltip
    # The inspector's Pin (Enter in its box) is the page's: js/test/inspector.test.js.
    keys = {
        (b["key"], bool(b.get("mod")), bool(b.get("shift"))): b for b in chat.shortcuts.bindings
    }
    assert keys[("Enter", True, False)]["action"] == "send"
    assert keys[("Escape", False, False)]["action"] == "stop"
    assert keys[("Escape", False, True)]["action"] == "stop_after_step"
    assert "Shift+Esc" in chat.step_stop.button.tooltip
    assert "nb-hitl-input" in chat.input._dom_classes
    assert chat.shortcuts.inactive_text == INACTIVE_TEXT
    assert chat.view_state["keys"]["bindings"] == chat.shortcuts.bindings  # the chat draws them
    assert chat.shortcuts.comm is None  # no comm of its own


async def test_the_front_end_stop_guess_targets_this_chats_live_row_and_stop_button() -> None:
    agent = slow_agent([LONG])
    chat = ChatWidget(agent)
    keys = chat.shortcuts
    assert keys.stop_action == "stop" and keys.stop_button == ".nb-hitl-stop"
    assert "nb-hitl-stop" in chat.stop_button._dom_classes
    interrupted_rule = next(r for r in CSS.split("}") if "nb-hitl-interrupted" in r)
    assert f".{STOPPING_CLASS}" in interrupted_rule.split("{")[0]  # drawn as interrupted
    chat.send("tell me a story")
    await until(lambda: bool(chat.live.views))
    (row,) = chat.live.views.values()
    assert f".{keys.stopping_rows.lstrip('.')}" == keys.stopping_rows
    assert keys.stopping_rows.lstrip(".") in row._dom_classes
    assert chat.stop()
    await until(lambda: chat.state == "idle")
    finished = chat.transcript.get(row.key).drawn  # drawn finished in its place: no guess
    assert keys.stopping_rows.lstrip(".") not in finished._dom_classes
    assert keys.stopping_rows.lstrip(".") not in finished.value
    await asyncio.sleep(0)


async def test_a_chat_made_while_a_reply_runs_follows_and_stops_it() -> None:
    agent = slow_agent([LONG, "ok"])
    first = ChatWidget(agent)
    first.send("tell me a story")
    await until(lambda: agent._where == "streaming")
    second = ChatWidget(agent)  # the cell re-run mid-reply
    assert first.detached and first.stop_button.disabled
    assert second.state == "running" and not second.stop_button.disabled
    assert second.continue_button.disabled
    # Its live row appears with the next streamed piece.
    await until(lambda: "word" in second.transcript.view.drawn_html())
    assert second.stop()
    await until(lambda: not agent.is_replying and second.state == "idle")
    assert agent.memory.messages[-1].is_interrupted
    assert not second.continue_button.disabled and second.stop_button.disabled
    await asyncio.sleep(0)
