"""The everyday controls in a real ipykernel 7, clicked on a subshell (JupyterLab's
commsOverSubshells): Retry after a model error, and the hub's Continue after Stop; each click
must hop onto the kernel's main loop to reach the agents."""

from __future__ import annotations

import json

import pytest
from kernel_harness import KernelHarness, chat_text, comm_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import json
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.model import ScriptedTurn
from nb_hitl.pipeline import MsgHub
from nb_hitl.widgets import ChatWidget, HubPanel

friday = ReActAgent("Friday", "sys", ScriptedModel([ScriptedTurn(error=RuntimeError("down")),
                                                   "Recovered after the retry."]))
chat = ChatWidget(friday)
chat.send("hello")
LONG = " ".join(f"point{i}" for i in range(3000))
alice = ReActAgent("Alice", "sys", ScriptedModel(["Tabs."]))
bob = ReActAgent("Bob", "sys", ScriptedModel([LONG, "Bob again, briefly."], tokens_per_second=100))
panel = HubPanel(MsgHub([alice, bob]), inspector=False)
panel.start(msg="Open the debate.")
print(json.dumps({"chat": chat.model_id + "/controls", "hub": panel.model_id}))
"""


def test_retry_and_continue_clicked_on_a_subshell(kernel7: KernelHarness) -> None:
    ids = json.loads(kernel7.execute(SETUP).strip().splitlines()[-1])
    kernel7.wait_comm(lambda m: "RuntimeError: down" in comm_text(m), timeout=60)
    subshell = kernel7.subshell_for(ids["chat"], "tooltip", "Ask again")
    kernel7.act(ids["chat"], "retry", {"text": ""}, subshell)
    kernel7.wait_comm(lambda m: "Recovered after the retry." in chat_text(m), timeout=60)

    kernel7.wait_comm(lambda m: "point5 " in comm_text(m), timeout=60)
    kernel7.act(ids["hub"], "stop", {})
    kernel7.wait_comm(lambda m: "Bob was interrupted" in comm_text(m), timeout=60)
    kernel7.act(ids["hub"], "pause", {"choice": "stop"})
    kernel7.wait_comm(lambda m: "Continue goes on from there" in comm_text(m), timeout=60)
    # the hub's one comm answers on a subshell from now on (its tooltip echoed from there)
    subshell = kernel7.subshell_for(ids["hub"], "tooltip", "Discussion")
    kernel7.act(ids["hub"], "continue", {"text": ""}, subshell)
    kernel7.wait_comm(lambda m: "Bob again, briefly." in comm_text(m), timeout=60)
    out = kernel7.execute(
        "import asyncio\nawait panel.wait()\n"
        "print(json.dumps([panel.outcome, [m.get_text_content() for m in friday.memory.messages]"
        ".count('hello'), len(alice.model.calls)]))"
    )
    outcome, hellos, alice_calls = json.loads(out.strip().splitlines()[-1])
    assert outcome == "finished" and hellos == 1 and alice_calls == 1
