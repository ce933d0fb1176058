"""A hostile AG-UI server: every string it sends is a payload, and the panel stays inert.

The server (``faulty_agui_server.py``'s ``/echo``, a real process) puts the payload in the
agent's name, its streamed text, a tool call's name and arguments, the tool's result, the
state, an unknown event type and an approval interrupt (tool name, arguments, reason); the
approved run then fails with ``RUN_ERROR`` quoting it. Every HTML value the front end would
insert is parsed as a browser would (``test_xss_sinks.active_markup``).
"""

from __future__ import annotations

import pytest
from agui_servers import AguiServer
from test_xss_sinks import PAYLOADS, active_markup, page
from widget_helpers import until

from nb_hitl.remote import RemoteAgent
from nb_hitl.remote._convert import to_agui
from nb_hitl.widgets import AgentPanel


@pytest.mark.parametrize("payload", PAYLOADS[::3])
async def test_a_hostile_server_payload_stays_inert_everywhere(
    faulty_agui: AguiServer, payload: str
) -> None:
    agent = RemoteAgent(faulty_agui.url.rstrip("/") + "/echo", name="Echo")
    panel = AgentPanel(agent, session=None)
    assert panel.chat.approvals is not None
    panel.chat.send(payload)
    await until(lambda: panel.chat.approvals.waiting, what="the hostile approval card")
    assert active_markup(page(panel)) == []
    panel.chat.approvals.waiting[0].approve_button.click()
    await until(lambda: panel.chat.state == "error", what="the RUN_ERROR row")
    assert active_markup(page(panel)) == []
    assert panel.remote is not None and agent.remote_state == {payload: [payload]}
    to_agui(agent.memory.messages)  # memory is still a history a server takes
    panel.chat.send("again")  # still usable
    await until(lambda: len(panel.chat.approvals.waiting) == 1, what="the next card")
    panel.close()
    await agent.aclose()
