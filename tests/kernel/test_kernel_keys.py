"""Keyboard shortcuts against a real kernel: the front end's key message (a custom comm
message of the ``KeyBindings`` anywidget) sends and stops, also when it lands on a subshell
thread (JupyterLab's commsOverSubshells), where the action must hop onto the main loop."""

from __future__ import annotations

import json

import pytest
from kernel_harness import KernelHarness, chat_interrupted, chat_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import json
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.widgets import AgentPanel
LONG = " ".join(f"word{i}" for i in range(3000))
agent = ReActAgent("Friday", "You are a test agent.", ScriptedModel([LONG], tokens_per_second=100))
panel = AgentPanel(agent, session=None)
chat = panel.chat
print(json.dumps({"keys": panel.model_id + "/chat/keys"}))
"""


def key(
    k: KernelHarness, comm_id: str, action: str, text: str = "", sub: str | None = None
) -> None:
    k.press_key(comm_id, action, text, sub)  # the chat's part ``keys``: its action ``press``


@pytest.mark.parametrize("on_subshell", [False, True])
def test_key_messages_send_and_stop(kernel7: KernelHarness, on_subshell: bool) -> None:
    ids = json.loads(kernel7.execute(SETUP).strip().splitlines()[-1])
    sub = kernel7.subshell_for(ids["keys"], "scope", "nb-hitl-chat") if on_subshell else None
    key(kernel7, ids["keys"], "send", "a story please", sub)
    kernel7.wait_comm(lambda m: "word5 " in chat_text(m), timeout=30)
    key(kernel7, ids["keys"], "stop", "", sub)
    kernel7.wait_comm(chat_interrupted, timeout=30)
    out = kernel7.execute(
        "m = agent.memory.messages\n"
        "print(m[0].get_text_content() == 'a story please', m[-1].is_interrupted, chat.state)"
    )
    assert out.split() == ["True", "True", "idle"]
