"""The panel in a real ipykernel: a Stop click sent as a comm message interrupts the stream.

ipykernel 6.x handles comm messages only between cells (the reply streams in a background
task, so the kernel is idle and the click lands); 7.4 also handles them while a cell awaits,
and on subshells (JupyterLab's commsOverSubshells), where the widget must hop to the main loop.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from kernel_harness import KernelHarness, chat_interrupted, chat_text, comm_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import asyncio, json
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.widgets import AgentPanel
LONG = " ".join(f"word{i}" for i in range(3000))
agent = ReActAgent("Friday", "You are a test agent.",
                   ScriptedModel([LONG, "Resumed fine."], tokens_per_second=100))
panel = AgentPanel(agent)
chat = panel.chat
print(json.dumps({"controls": panel.model_id + "/chat/controls"}))
"""


def streaming(msg: dict) -> bool:
    return "word5 " in chat_text(msg)


interrupted = chat_interrupted


def start_reply(k: KernelHarness) -> dict[str, str]:
    ids = json.loads(k.execute(SETUP).strip().splitlines()[-1])
    k.act(ids["controls"], "send", {"text": "tell me a long story"})  # typed, then Send
    k.wait_comm(streaming, timeout=30)
    return ids


def check_interrupted(k: KernelHarness) -> None:
    out = k.execute(
        "m = agent.memory.messages\n"
        "print(m[0].get_text_content(), m[1].metadata.get('_partial'), m[-1].is_interrupted,"
        " chat.state, chat.continue_button.disabled)"
    )
    assert out.split() == ["tell", "me", "a", "long", "story", "True", "True", "idle", "False"]


def test_stop_click_as_comm_message_interrupts_stream(kernel: KernelHarness) -> None:
    ids = start_reply(kernel)
    kernel.act(ids["controls"], "stop")
    kernel.wait_comm(interrupted, timeout=30)
    check_interrupted(kernel)
    # Resume from the widget: Continue click, then the resumed reply arrives.
    kernel.act(ids["controls"], "continue", {"text": ""})
    kernel.wait_comm(lambda m: "Resumed fine." in chat_text(m), timeout=30)
    # Continue is agent.resume(): the same answer goes on; no "Please continue." was sent.
    out = kernel.execute(
        "print(agent.memory.messages[-1].metadata.get('continued_by'),"
        " any(m.get_text_content() == 'Please continue.' for m in agent.memory.messages))"
    )
    assert out.split() == ["assistant_prefix", "False"]


def test_stop_click_lands_while_a_cell_awaits_on_ipykernel7(kernel7: KernelHarness) -> None:
    ids = start_reply(kernel7)
    cell = kernel7.execute_nowait("await asyncio.sleep(6)")
    kernel7.act(ids["controls"], "stop")
    kernel7.wait_comm(interrupted, timeout=30)
    finished = [
        m
        for _, m in kernel7.log
        if m["parent_header"].get("msg_id") == cell
        and m["msg_type"] == "status"
        and m["content"]["execution_state"] == "idle"
    ]
    assert not finished, "the click should land while the awaiting cell still runs"
    check_interrupted(kernel7)


def test_stop_click_on_a_subshell_hops_to_the_main_loop(kernel7: KernelHarness) -> None:
    ids = start_reply(kernel7)
    kernel7.execute(
        # The status line's figures stay still: the controls' comm publishes nothing between
        # its routing to the subshell and the Stop (ipykernel hands a comm's message to the
        # thread of its last publish: see subshell_for).
        "import nb_hitl.widgets._status as status_line\nstatus_line.REFRESH_HZ = 0.01\n"
        "chat.status.stop_ticker()\n"
        "import threading\ndelivered, clicked = [], []\n"
        "panel.on_msg(lambda w, c, b: delivered.append(threading.get_ident()))\n"
        "chat.stop_button.on_click(lambda b: clicked.append(threading.get_ident()))"
    )
    subshell = kernel7.subshell_for(ids["controls"], "tooltip", "Chat controls")
    kernel7.act(ids["controls"], "stop", subshell_id=subshell)
    kernel7.wait_comm(interrupted, timeout=30)
    check_interrupted(kernel7)
    out = kernel7.execute(
        "main = threading.main_thread().ident\nprint(delivered[-1] != main, clicked == [main])"
    )
    # The action came in on the subshell's thread and Stop ran on the kernel's loop.
    assert out.split() == ["True", "True"]


LOOP_SETUP = """
import asyncio, json
from nb_hitl import ReActAgent, ScriptedModel, UserAgent
from nb_hitl.widgets import ChatWidget
agent = ReActAgent("Friday", "You are a test agent.",
                   ScriptedModel(["Hello from the loop."], tokens_per_second=100))
chat = ChatWidget(agent)
user = UserAgent("User", chat.input_source())

async def conversation():
    msg = None
    while True:
        msg = await user(msg)
        msg = await agent(msg)

task = asyncio.get_running_loop().create_task(conversation())
print(json.dumps({"controls": chat.model_id + "/controls"}))
"""


def test_send_on_a_subshell_wakes_the_idle_main_loop(kernel7: KernelHarness) -> None:
    """A UserAgent waits on the widget (the main loop sleeps with no timers); a Send handled
    on a subshell thread must wake it, which only a thread-safe hop does."""
    ids = json.loads(kernel7.execute(LOOP_SETUP).strip().splitlines()[-1])
    kernel7.wait_comm(lambda m: "waiting for you" in comm_text(m), timeout=10)
    # The controls' comm is routed to the subshell (see subshell_for); the typed text comes
    # with the Send action, as the page sends it.
    subshell = kernel7.subshell_for(ids["controls"], "tooltip", "Send")
    kernel7.act(ids["controls"], "send", {"text": "hi there"}, subshell)
    kernel7.wait_comm(lambda m: "Hello from the loop." in chat_text(m), timeout=20)
    out = kernel7.execute("print([m.get_text_content() for m in agent.memory.messages])")
    assert out.strip() == "['hi there', 'Hello from the loop.']"


def custom_text(msg: dict[str, Any]) -> str:
    """The JSON of a comm message's custom content (a panel's op batch), or ""."""
    return json.dumps(msg["content"].get("data", {}).get("content", {}))


def test_threshold_slider_moved_by_the_front_end_updates_the_plan(kernel: KernelHarness) -> None:
    out = kernel.execute(
        "from nb_hitl import Msg, ReActAgent, ScriptedModel\n"
        "from nb_hitl.agent import CompressionConfig\n"
        "from nb_hitl.memory import InMemoryMemory\n"
        "from nb_hitl.widgets import MemoryInspector\n"
        "mem = InMemoryMemory()\n"
        "mem.add_sync([Msg('User', f'message {i} ' * 20, 'user') for i in range(40)])\n"
        "agent = ReActAgent('Friday', 'sys', ScriptedModel(['x']), memory=mem,\n"
        "    compression_config=CompressionConfig(trigger_threshold=100000, keep_recent=3))\n"
        "ins = MemoryInspector(agent)\n"
        "print(ins.counting, ins.refreshes)"
    )
    assert out.split() == ["True", "0"]  # counted once the cell has returned
    out = kernel.execute(
        "import asyncio\n"
        "while ins.counting:\n"
        "    await asyncio.sleep(0.01)\n"
        "print(ins.model_id, ins.plan.total_tokens)"
    )
    panel, total = out.split()
    assert 'data-trigger="0"' in kernel.execute("print(ins.state['plan'])")
    action = {"t": "action", "name": "threshold", "args": {"value": int(total) // 2}}
    kernel.send_comm(panel, {"method": "custom", "content": action})  # the page's slider
    kernel.wait_comm(lambda m: 'data-trigger=\\"1\\"' in custom_text(m), timeout=20)
    threshold = kernel.execute("print(ins.state['controls']['threshold'])").strip()
    assert threshold == str(int(total) // 2)
    assert kernel.execute("print(agent.compression_config.trigger_threshold)").strip() == "100000"


def test_session_bar_and_permissions_clicks_reach_the_panel_parts(kernel: KernelHarness) -> None:
    """The session bar and the permissions list are parts of one model (``panel.parts``): a
    Save and a mode pick sent by its page as comm messages run on the kernel loop."""
    out = kernel.execute(
        "import tempfile, pathlib\n"
        "from nb_hitl import ReActAgent, ScriptedModel\n"
        "from nb_hitl.demo import demo_toolkit\n"
        "from nb_hitl.widgets import AgentPanel\n"
        "agent = ReActAgent('Friday', 'sys', ScriptedModel(['x']), toolkit=demo_toolkit())\n"
        "where = pathlib.Path(tempfile.mkdtemp()) / 'k.json'\n"
        "panel = AgentPanel(agent, session=where)\n"
        "print(panel.parts.model_id, panel.session.comm is None, panel.permissions.comm is None)"
    )
    parts, *commless = out.split()
    assert commless == ["True", "True"]  # no comm of their own: drawn by panel.parts' page
    save = {"t": "action", "name": "session", "args": {"name": "save", "args": {}}}
    kernel.send_comm(parts, {"method": "custom", "content": save})
    kernel.wait_comm(lambda m: "Saved to" in custom_text(m), timeout=20)
    assert kernel.execute("print(where.exists())").strip() == "True"
    pick = {
        "t": "action",
        "name": "permissions",
        "args": {"name": "mode", "args": {"value": "deny_all"}},
    }
    kernel.send_comm(parts, {"method": "custom", "content": pick})
    kernel.wait_comm(lambda m: 'data-mode=\\"deny_all\\"' in custom_text(m), timeout=20)
    assert kernel.execute("print(agent.permissions.mode)").strip() == "deny_all"
