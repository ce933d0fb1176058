"""The panel attached to a remote agent in a real ipykernel: clicks arrive as comm messages.

The agent is a LangGraph graph served over AG-UI by ag-ui-langgraph under uvicorn (a real
process on loopback, one per test session). Stop is clicked mid-stream (the run's stream is
closed, the text so far kept and drawn interrupted), the graph's ``interrupt()`` is the
approval card, approved with a click (on a subshell, as JupyterLab's commsOverSubshells
sends it), and the reply resumes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agui_servers import AguiServer, nb_hitl_server
from kernel_harness import KernelHarness, chat_interrupted, chat_text, state_text

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(240)]

SETUP = """
import asyncio, json
from nb_hitl.remote import RemoteAgent
from nb_hitl.widgets import AgentPanel

agent = RemoteAgent({url!r}, {thread!r}, name="Graph")
panel = AgentPanel(agent, session=None)
chat = panel.chat
print(json.dumps({{"controls": panel.model_id + "/chat/controls"}}))
"""

IDLE = """
for _ in range(3000):
    if not agent.is_replying and chat.state in ("idle", "error"):
        break
    await asyncio.sleep(0.01)
print(json.dumps([chat.state, [[m.role, m.get_text_content(), m.metadata.get("_partial", False),
                  m.metadata.get("_is_interrupted", False)] for m in agent.memory.messages]]))
"""


def drawn(text: str) -> Callable[[dict[str, Any]], bool]:
    """A comm message that draws ``text`` in the chat (a row's state or a streaming delta)."""
    return lambda m: text in chat_text(m) or text in state_text(m)


def setup(k: KernelHarness, url: str, thread: str | None = None) -> dict[str, str]:
    return json.loads(k.execute(SETUP.format(url=url, thread=thread)).strip().splitlines()[-1])


def idle(k: KernelHarness) -> tuple[str, list[list[object]]]:
    state, rows = json.loads(k.execute(IDLE).strip().splitlines()[-1])
    return state, rows


def send(k: KernelHarness, ids: dict[str, str], text: str) -> None:
    k.act(ids["controls"], "send", {"text": text})  # typed, then Send, as the page sends it


def test_stream_stop_approve_and_resume_with_clicks(
    kernel7: KernelHarness, langgraph_agui: AguiServer
) -> None:
    ids = setup(kernel7, langgraph_agui.url)
    send(kernel7, ids, "tell me a long story")
    kernel7.wait_comm(drawn("I was shown"), timeout=60)  # streaming
    kernel7.act(ids["controls"], "stop")
    kernel7.wait_comm(chat_interrupted, timeout=30)
    state, rows = idle(kernel7)
    assert state == "idle"
    assert rows[-1][0] == "assistant" and rows[-1][3] is True  # the interrupted message
    assert rows[-2][2] is True and str(rows[-2][1]).startswith("You said: tell me a long story")

    send(kernel7, ids, "please deploy")
    out = kernel7.execute(
        "while not (chat.approvals and chat.approvals.waiting):\n    await asyncio.sleep(0.01)\n"
        "print(panel.model_id + '/chat/keys', chat.approvals.waiting[0].key)"
    )
    keys, card = out.strip().splitlines()[-1].split()
    subshell = kernel7.subshell_for(keys, "inactive_text", "kernel gone")
    kernel7.press_card(keys, card, "approve", subshell_id=subshell)
    kernel7.wait_comm(drawn("Done: deployed 1.2 to prod."), timeout=60)
    state, rows = idle(kernel7)
    assert state == "idle" and rows[-1][1] == "Done: deployed 1.2 to prod."
    kernel7.execute("await agent.aclose()")


def test_a_dropped_server_is_an_error_row_in_the_kernel_and_the_panel_stays_usable(
    kernel7: KernelHarness, faulty_agui: AguiServer
) -> None:
    ids = setup(kernel7, faulty_agui.url.rstrip("/") + "/drop")
    send(kernel7, ids, "hello")
    kernel7.wait_comm(drawn("dropped mid-stream"), timeout=60)
    state, _rows = idle(kernel7)
    assert state == "error"
    send(kernel7, ids, "again")
    kernel7.wait_comm(drawn("All good now"), timeout=60)
    state, rows = idle(kernel7)
    assert state == "idle" and str(rows[-1][1]).startswith("All good now")


def test_nb_hitl_server_stop_approve_and_history_in_a_new_kernel_after_a_restart(
    kernel7: KernelHarness, tmp_path: Path
) -> None:
    pytest.importorskip("nb_hitl.serve")
    server = nb_hitl_server(tmp_path / "sessions").start()
    try:
        ids = setup(kernel7, server.url, "kept")
        send(kernel7, ids, "tell me a story")
        kernel7.wait_comm(drawn("This thread has 1 messages"), timeout=60)
        kernel7.act(ids["controls"], "stop")
        kernel7.wait_comm(chat_interrupted, timeout=30)
        state, rows = idle(kernel7)
        assert state == "idle" and rows[-1][3] is True
        send(kernel7, ids, "please deploy")
        out = kernel7.execute(
            "while not (chat.approvals and chat.approvals.waiting):\n"
            "    await asyncio.sleep(0.01)\n"
            "print(panel.model_id + '/chat/keys', chat.approvals.waiting[0].key)"
        )
        kernel7.press_card(*out.strip().splitlines()[-1].split(), "approve")
        kernel7.wait_comm(drawn("Done: deployed 1.2 to prod."), timeout=60)
        state, before = idle(kernel7)
        assert state == "idle"
        server.restart()
        fresh = KernelHarness(sys.executable)  # another notebook, after the server came back
        try:
            setup(fresh, server.url, "kept")
            fresh.wait_comm(drawn("Done: deployed 1.2 to prod."), timeout=60)
            state, after = idle(fresh)
            assert [r[:2] for r in after] == [r[:2] for r in before]
        finally:
            fresh.close()
    finally:
        server.stop()
