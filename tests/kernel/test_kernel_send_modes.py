"""The chat's send modes in a real ipykernel 7, with the picker and Send on subshells.

JupyterLab may handle comm messages on subshell threads: choosing Steer and sending from
there must still steer the reply on the main loop (taken in after the tool, nothing cancelled).
"""

from __future__ import annotations

import json

import pytest
from kernel_harness import KernelHarness, chat_text, comm_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import asyncio, json, threading
from nb_hitl import ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.widgets import ChatWidget
gate = asyncio.Event()

async def fetch(url: str) -> str:
    '''Fetch a page.

    Args:
        url: the address.
    '''
    await gate.wait()
    return f"page at {url}"

toolkit = Toolkit()
toolkit.register_tool_function(fetch)
agent = ReActAgent("Friday", "Test.", ScriptedModel([
    ScriptedTurn(text="Fetching.", tool_calls=[ScriptedToolCall("fetch", {"url": "a"})]),
    "Done, with your note.",
], tokens_per_second=200), toolkit=toolkit)
import nb_hitl.widgets._status as status_line
status_line.REFRESH_HZ = 0.01  # no figures redrawn meanwhile: the controls publish when told
chat = ChatWidget(agent)
click_threads = []
chat.on_msg(lambda w, c, b: click_threads.append(threading.get_ident()))
print(json.dumps({"controls": chat.model_id + "/controls"}))
"""


def test_steer_picked_and_sent_on_subshells_takes_the_message_in(kernel7: KernelHarness) -> None:
    ids = json.loads(kernel7.execute(SETUP).strip().splitlines()[-1])
    controls = ids["controls"]
    kernel7.act(controls, "send", {"text": "fetch page a"})
    kernel7.wait_comm(lambda m: "running tool fetch" in comm_text(m), timeout=30)
    # The controls' comm now handled on a subshell: the picker's choice, then Send (with the
    # text typed, as the page sends it) come in on that thread.
    subshell = kernel7.subshell_for(controls, "tooltip", "Chat controls")
    kernel7.act(controls, "mode", {"value": "steer"}, subshell)
    kernel7.wait_comm(lambda m: '"label": "Steer"' in comm_text(m), timeout=20)
    # That answer went out from the main thread, and ipykernel hands a comm's next message to
    # the thread of its last publish (see subshell_for): route the comm back to the subshell.
    kernel7.sync(controls, {"tooltip": "Send"}, subshell)
    kernel7.act(controls, "send", {"text": "also note the date"}, subshell)
    kernel7.wait_comm(lambda m: "Steering: your message is taken in" in comm_text(m), timeout=20)
    out = kernel7.execute(
        "print(json.dumps([chat.state, [m.get_text_content() for m in agent.pending_steering],"
        " click_threads[-1] != threading.main_thread().ident]))"
    )
    assert json.loads(out) == ["running", ["also note the date"], True]
    kernel7.execute("gate.set()")
    kernel7.wait_comm(lambda m: "Done, with your note." in chat_text(m), timeout=30)
    out = kernel7.execute(
        "for _ in range(200):\n"
        "    if chat.state == 'idle': break\n"
        "    await asyncio.sleep(0.05)\n"
        "m = agent.memory.messages\n"
        "print(json.dumps([[x.role for x in m], m[3].get_text_content(),"
        " m[3].metadata.get('steered_at'), any(x.is_interrupted for x in m), chat.state]))"
    )
    assert json.loads(out) == [
        ["user", "assistant", "system", "user", "assistant"],
        "also note the date",
        "step boundary",
        False,
        "idle",
    ]
