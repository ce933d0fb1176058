"""RemoteStateView: a remote agent's server, thread, link and state, one PanelModel.

Real servers on loopback (ag-ui-langgraph, and a port nothing listens on): connecting, then
connected with what the server can do; not reachable with the reason; hostile state kept as
text in the view's ``controls`` (the page sets it as text: ``js/test/remote.test.js``).
"""

from __future__ import annotations

import socket

from agui_servers import AguiServer
from widget_helpers import until

from nb_hitl.remote import RemoteAgent
from nb_hitl.widgets._model import inside_host
from nb_hitl.widgets._remote_view import RemoteStateView


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_connecting_then_connected_with_what_the_server_can_do(
    langgraph_agui: AguiServer,
) -> None:
    agent = RemoteAgent(langgraph_agui.url, name="Graph")
    view = RemoteStateView(agent)
    try:
        assert view.link in ("connecting", "connected")
        await until(lambda: view.link == "connected", what="the link drawn as connected")
        c = view.state["controls"]
        assert c["server"] == langgraph_agui.url and c["thread"] == agent.thread_id
        assert c["error"] == "" and c["link_text"] == "connected"
        assert "server: " + langgraph_agui.url in view.text
        assert view.comm is not None  # shown on its own: one model
        assert view.state["css"]  # with the kernel's stylesheet
    finally:
        view.close()
        await agent.aclose()


async def test_a_server_nobody_answers_is_drawn_not_reachable_with_the_reason() -> None:
    url = f"http://127.0.0.1:{_free_port()}/"
    agent = RemoteAgent(url, name="Nobody", connect_timeout=2.0)
    view = RemoteStateView(agent)
    try:
        await until(lambda: view.link == "disconnected", what="the link drawn not reachable")
        c = view.state["controls"]
        assert c["link_text"] == "not reachable" and c["error"]
        assert agent.last_error is not None and not agent.connected
        assert "link: not reachable: " in view.text
    finally:
        view.close()
        await agent.aclose()


async def test_embedded_it_opens_no_comm_and_hostile_state_stays_out_of_the_html(
    langgraph_agui: AguiServer,
) -> None:
    from nb_hitl.widgets import MemoryInspector

    agent = RemoteAgent(langgraph_agui.url, name="Graph")
    inspector = MemoryInspector(agent)
    with inside_host():
        view = RemoteStateView(agent, css=False)
    inspector.embed(view, "remote")
    try:
        assert view.comm is None and view.state["css"] == ""
        payload = "<img src=x onerror=alert(1)>"
        agent.remote_state = {payload: [payload]}
        view.refresh()
        assert payload in inspector.state["remote"]["controls"]["state"]
        assert payload not in inspector.drawn_html()  # text for the page, never HTML
        await until(lambda: view.link == "connected", what="the link drawn as connected")
        assert inspector.state["remote"]["controls"]["link"] == "connected"
    finally:
        view.close()
        inspector.close()
        await agent.aclose()
