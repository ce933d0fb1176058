"""The hub panel in a real ipykernel: Stop, then Retry with the instruction, arrive as the page's
action messages on the panel's one comm (``{t: "action", name, args}``).

The discussion runs as a background task started by a cell that returned, so the kernel is
idle and clicks land on ipykernel 6.x and 7.x alike.
"""

from __future__ import annotations

import json

import pytest
from kernel_harness import KernelHarness, comm_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import asyncio, json
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.message import Msg
from nb_hitl.pipeline import MsgHub
from nb_hitl.widgets import HubPanel

LONG = " ".join(f"point{i}" for i in range(3000))

def speaker(name, script, tps):
    return ReActAgent(name, f"You are {name}.", ScriptedModel(script, tokens_per_second=tps))

alice = speaker("Alice", ["Tabs."], 500)
bob = speaker("Bob", [LONG, "Redirected: spaces."], 100)
carol = speaker("Carol", ["Carol sums up."], 500)
panel = HubPanel(MsgHub([alice, bob, carol]), inspector=False)
_ = panel.start(msg="Open the debate.")
print(json.dumps({"panel": panel.model_id}))
"""


def act(kernel: KernelHarness, panel: str, name: str, **args: object) -> float:
    """Send the hub panel an action, as its page does (a click, a key)."""
    content = {"t": "action", "name": name, "args": args}
    return kernel.send_comm(panel, {"method": "custom", "content": content})


def test_stop_the_second_speaker_then_retry_with_an_instruction(kernel: KernelHarness) -> None:
    panel = json.loads(kernel.execute(SETUP).strip().splitlines()[-1])["panel"]
    kernel.wait_comm(lambda m: "Bob is speaking" in comm_text(m), timeout=60)
    kernel.wait_comm(lambda m: "point5 " in comm_text(m), timeout=60)
    act(kernel, panel, "stop")
    kernel.wait_comm(lambda m: "Bob was interrupted" in comm_text(m), timeout=60)
    act(kernel, panel, "pause", choice="retry", text="One line, please.")
    kernel.wait_comm(lambda m: "Finished." in comm_text(m), timeout=60)
    out = kernel.execute(
        "print(json.dumps([panel.outcome, panel.result.get_text_content(),"
        " [m.get_text_content() for m in bob.memory.messages][-3:],"
        " bob.memory.messages[-4].is_interrupted]))"
    )
    outcome, result, bob_tail, was_interrupted = json.loads(out.strip().splitlines()[-1])
    assert outcome == "finished" and result == "Carol sums up."
    assert bob_tail == ["One line, please.", "Redirected: spaces.", "Carol sums up."]
    assert was_interrupted
