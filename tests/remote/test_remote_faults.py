"""A misbehaving AG-UI server (a real process): the panel says what happened and stays usable.

Each fault hits the first run of a thread; the next message on the same thread is answered
properly, so each test also shows the panel (and memory) still work afterwards.
"""

from __future__ import annotations

import pytest
from agui_servers import AguiServer
from widget_helpers import all_html, until

from nb_hitl.exceptions import RemoteAgentError
from nb_hitl.remote import RemoteAgent
from nb_hitl.remote._convert import to_agui
from nb_hitl.widgets import AgentPanel


async def settle(panel: AgentPanel) -> None:
    await until(
        lambda: not panel.agent.is_replying and panel.chat.state in ("idle", "error"),
        timeout=30,
        what="the chat to settle",
    )


def memory_is_valid(agent: RemoteAgent) -> None:
    """Every tool call has a result, and the history converts to AG-UI messages."""
    calls = {b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_use")}
    results = {b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_result")}
    assert calls <= results
    to_agui(agent.memory.messages)


async def fault(server: AguiServer, path: str, **kw: object) -> tuple[RemoteAgent, AgentPanel]:
    agent = RemoteAgent(server.url.rstrip("/") + "/" + path, name="Flaky", **kw)  # type: ignore[arg-type]
    panel = AgentPanel(agent, session=None)
    panel.chat.send("hello")
    await settle(panel)
    return agent, panel


async def recovers(agent: RemoteAgent, panel: AgentPanel) -> None:
    memory_is_valid(agent)
    panel.chat.send("again")
    await settle(panel)
    assert panel.chat.state == "idle"
    assert (agent.memory.messages[-1].get_text_content() or "").startswith("All good now")
    memory_is_valid(agent)
    await agent.aclose()


@pytest.mark.parametrize(
    ("path", "said", "kw"),
    [
        ("drop", "dropped mid-stream", {}),
        ("stall", "sent nothing for 1 s", {"read_timeout": 1.0}),
        ("http500", "HTTP 500", {}),
        ("notsse", "not an AG-UI event stream", {}),
        ("runerror", "[quota]", {}),
        ("huge", "larger than 100,000 bytes", {"max_event_bytes": 100_000}),
    ],
)
async def test_a_fault_is_an_error_row_and_the_panel_stays_usable(
    faulty_agui: AguiServer, path: str, said: str, kw: dict[str, object]
) -> None:
    agent, panel = await fault(faulty_agui, path, **kw)
    assert panel.chat.state == "error"
    assert said in panel.chat.status.detail or said in all_html(panel)
    assert not panel.chat.tools.retry_button.layout.display  # Retry is offered
    if path in ("drop", "stall"):  # the words that arrived are kept, marked as cut short
        partial = agent.memory.messages[-1]
        assert partial.metadata["_partial"] and partial.metadata["_error"]
        assert (partial.get_text_content() or "").startswith("These words arrive")
    await recovers(agent, panel)


async def test_hostile_events_are_text_skipped_with_a_note_and_never_html(
    faulty_agui: AguiServer,
) -> None:
    agent, panel = await fault(faulty_agui, "malformed")
    assert panel.chat.state == "idle"
    html = all_html(panel)
    assert "<script>" not in html and "onerror=" not in html.replace("onerror=&quot;", "")
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    for note in ("not JSON", "AG-UI does not define", "out of order", "were skipped in this run"):
        assert note in html, note
    answer = agent.memory.messages[-1].get_text_content() or ""
    assert answer.startswith('<img src=x onerror="alert(1)">') and len(answer) > 300_000
    assert [m.role for m in agent.memory.messages] == ["user", "assistant"]  # nothing after the end
    await recovers(agent, panel)


async def test_an_unreachable_server_is_said_and_nothing_hangs() -> None:
    from db_servers import free_port

    agent = RemoteAgent(f"http://127.0.0.1:{free_port()}/", name="Nobody")
    panel = AgentPanel(agent, session=None)
    panel.chat.send("anyone?")
    await settle(panel)
    assert panel.chat.state == "error" and "Could not reach" in all_html(panel)
    with pytest.raises(RemoteAgentError) as info:
        await agent()
    assert info.value.kind == "connection"
    memory_is_valid(agent)
    await agent.aclose()
