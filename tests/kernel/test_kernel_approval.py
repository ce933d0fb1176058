"""Approval cards in a real ipykernel: clicks and edits arrive as comm messages.

On ipykernel 6.x and 7.x the parked reply leaves the kernel idle, so clicks land; on 7.x a
click delivered on a subshell (JupyterLab's commsOverSubshells) hops to the main loop, where
the parked reply wakes up.
"""

from __future__ import annotations

import json

import pytest
from kernel_harness import KernelHarness, comm_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import asyncio, json
from nb_hitl import ReActAgent, ScriptedModel, Toolkit
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.widgets import AgentPanel

ran = []

def deploy(env: str, version: str) -> str:
    '''Deploy a version.

    Args:
        env: where.
        version: what.
    '''
    ran.append((env, version))
    return f"deployed {version} to {env}"

toolkit = Toolkit()
toolkit.register_tool_function(deploy, needs_approval=True)
turn = ScriptedTurn(text="Deploying.", tool_calls=[
    ScriptedToolCall("deploy", {"env": "prod", "version": "1.2"}, id="d1"),
    ScriptedToolCall("deploy", {"env": "eu", "version": "1.2"}, id="d2"),
])
agent = ReActAgent("Friday", "Test.", ScriptedModel([turn, "Deployed where allowed."],
                   tokens_per_second=500), toolkit=toolkit)
panel = AgentPanel(agent, inspector=False, session=None)
chat = panel.chat
chat.send("Deploy 1.2 everywhere.")
"""

CARDS = """
while len(chat.approvals.waiting) < 2:
    await asyncio.sleep(0.01)
first, second = chat.approvals.waiting
print(json.dumps({"keys": panel.model_id + "/chat/keys", "first": first.key, "second": second.key}))
"""
"""The keyboard anywidget (its comm carries every card's presses) and the two cards' keys:
approval cards are rows of the transcript's front end, with no comm of their own."""


def setup(k: KernelHarness) -> dict[str, str]:
    k.execute(SETUP)
    return json.loads(k.execute(CARDS).strip().splitlines()[-1])


def finished(k: KernelHarness) -> list[str]:
    out = k.execute(
        # The chat turns idle when it handles the reply's end, a moment after is_replying
        # turns false; wait for both, with a bound, so a chat stuck in "running" still fails.
        "for _ in range(1000):\n"
        "    if not agent.is_replying and chat.state == 'idle':\n        break\n"
        "    await asyncio.sleep(0.01)\n"
        "print(json.dumps([ran, agent.memory.messages[-1].get_text_content(), chat.state,"
        " [c.decision for c in chat.approvals.cards.values()]]))"
    )
    return json.loads(out.strip().splitlines()[-1])


def test_edit_and_deny_with_comm_messages(kernel: KernelHarness) -> None:
    ids = setup(kernel)
    keys, first, second = ids["keys"], ids["first"], ids["second"]
    kernel.press_card(keys, first, "edit")
    kernel.press_card(keys, first, "approve_edited", {"arguments": '{"env": "staging", '})
    kernel.wait_comm(lambda m: "not valid JSON" in comm_text(m), timeout=30)
    kernel.press_card(
        keys, first, "approve_edited", {"arguments": '{"env": "staging", "version": "1.2"}'}
    )
    kernel.wait_comm(lambda m: "Approved with edited arguments" in comm_text(m), timeout=30)
    kernel.press_card(keys, second, "deny")
    kernel.press_card(keys, second, "deny_ok", {"reason": "<b>not</b> the EU today"})
    kernel.wait_comm(lambda m: "Denied" in comm_text(m), timeout=30)
    ran, last, state, decisions = finished(kernel)
    assert ran == [["staging", "1.2"]]
    assert last == "Deployed where allowed."
    assert state == "idle" and decisions == ["edited", "denied"]
    out = kernel.execute(
        "print([b.output_text() for m in agent.memory.messages"
        " for b in m.get_content_blocks('tool_result')])"
    )
    assert "denied by the user: <b>not</b> the EU today" in out


def test_approve_click_on_a_subshell_wakes_the_parked_reply(kernel7: KernelHarness) -> None:
    ids = setup(kernel7)
    kernel7.execute(
        "import threading\nclick_threads = []\n"
        "panel.on_msg(lambda w, c, b: click_threads.append(threading.get_ident()))"
    )
    kernel7.execute("agent.deny('d2', 'not today')")
    subshell = kernel7.subshell_for(ids["keys"], "inactive_text", "kernel gone")
    kernel7.press_card(ids["keys"], ids["first"], "approve", subshell_id=subshell)
    kernel7.wait_comm(lambda m: "Approved" in comm_text(m), timeout=30)
    ran, last, state, decisions = finished(kernel7)
    assert ran == [["prod", "1.2"]] and decisions == ["approved", "denied"]
    assert last == "Deployed where allowed." and state == "idle"
    out = kernel7.execute("print(click_threads[0] != threading.main_thread().ident)")
    assert out.strip() == "True", "the click should have been handled on the subshell thread"
