"""The panel attached to a LangGraph graph over AG-UI (a real ag-ui-langgraph server process).

Headless (clicks are ``button.click()``): streaming, Stop mid-stream, the graph's
``interrupt()`` as the panel's approval card (approve, edit, deny), resume, reconnect after
the server restarts, and what a remote agent cannot do greyed out with the reason.
"""

from __future__ import annotations

import asyncio

import pytest
from agui_servers import AguiServer, langgraph_server
from remote_helpers import Attach, approval_card, idle, question_form
from widget_helpers import all_html, all_state, until

from nb_hitl.message import Msg
from nb_hitl.remote import RemoteAgent


async def test_panel_streams_a_langgraph_reply(langgraph_agui: AguiServer, attach: Attach) -> None:
    agent, panel = attach(langgraph_agui.url)
    panel.chat.send("hello <b>graph</b>")
    await until(lambda: panel.chat.live.flushes > 0, what="a streamed redraw")
    await idle(panel)
    roles = [m.role for m in agent.memory.messages]
    assert roles == ["user", "assistant"]
    answer = agent.memory.messages[-1].get_text_content() or ""
    assert answer.startswith("You said: hello <b>graph</b>. I was shown 1 messages.")
    html = all_html(panel)
    assert "hello &lt;b&gt;graph&lt;/b&gt;" in html and "<b>graph</b>" not in html
    assert panel.chat.state == "idle"


async def test_stop_mid_stream_keeps_the_text_so_far_marked_interrupted(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(langgraph_agui.url)
    streamed: list[str] = []
    agent.subscribe(lambda ev: streamed.append(getattr(ev, "delta", "")))
    panel.chat.send("tell me a long story")
    await until(lambda: len("".join(streamed)) > 60, what="some streamed text")
    assert panel.chat.stop()
    await idle(panel)
    partial, interrupted = agent.memory.messages[-2:]
    assert interrupted.metadata["_is_interrupted"] is True
    assert partial.metadata["_partial"] is True
    assert (partial.get_text_content() or "").startswith("You said: tell me a long story.")
    assert len(partial.get_text_content() or "") < 300  # cut short, not the whole answer
    assert panel.chat.last_interrupted and not panel.chat.continue_button.disabled
    # The server has no Continue: the button sends "Please continue." and the graph answers
    # with the whole history (the partial answer and the interrupted message included).
    assert panel.chat.resume()
    await idle(panel)
    last = agent.memory.messages[-1].get_text_content() or ""
    assert last.startswith("You said: Please continue.. I was shown ")
    assert int(last.split("I was shown ")[1].split()[0]) >= 4  # the question, what was kept...


async def test_the_graphs_interrupt_is_the_approval_card_and_approving_resumes(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(langgraph_agui.url)
    card = await approval_card(panel, "please deploy")
    assert card.tool_name == "deploy" and card.call.input == {"env": "prod", "version": "1.2"}
    assert panel.chat.state == "waiting"
    assert card.always_button.disabled and "permission rules" in card.always_button.tooltip
    card.approve_button.click()
    await idle(panel)
    assert card.decision == "approved"
    assert agent.memory.messages[-1].get_text_content() == "Done: deployed 1.2 to prod."
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert [r.output_text() for r in results] == ["deployed 1.2 to prod"]


async def test_edit_and_deny_reach_the_graph(langgraph_agui: AguiServer, attach: Attach) -> None:
    agent, panel = attach(langgraph_agui.url)
    card = await approval_card(panel, "deploy it")
    card.edit_button.click()
    card.edit_area.value = '{"env": "staging", "version": "2.0"}'
    card.edit_ok.click()
    await idle(panel)
    assert card.decision == "edited"
    assert agent.memory.messages[-1].get_text_content() == "Done: deployed 2.0 to staging."
    card = await approval_card(panel, "deploy again")
    card.deny_button.click()
    card.reason.value = "<i>not</i> today"
    card.deny_ok.click()
    await idle(panel)
    assert card.decision == "denied"
    assert "&lt;i&gt;not&lt;/i&gt; today" in card.result.value
    last = agent.memory.messages[-1].get_text_content()
    assert last == "Done: denied by the user: <i>not</i> today."


async def test_stop_while_waiting_closes_the_card_and_the_next_message_is_answered(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(langgraph_agui.url)
    card = await approval_card(panel, "deploy now")
    panel.chat.stop()
    await idle(panel)
    assert card.decision == "interrupted" and agent.memory.messages[-1].is_interrupted
    panel.chat.send("what now?")  # the open interrupt is cancelled with this message
    await idle(panel)
    texts = [m.get_text_content() or "" for m in agent.memory.messages]
    assert any("not run: cancelled" in t or "what now?" in t for t in texts[-3:])
    assert panel.chat.state == "idle" and not agent.pending_approvals


async def test_reconnect_after_the_server_restarts_sends_the_history_back(
    attach: Attach,
) -> None:
    server = langgraph_server(delay=0.001).start()
    try:
        agent, panel = attach(server.url)
        panel.chat.send("first question")
        await idle(panel)
        server.restart()  # the graph's in-memory threads are gone
        panel.chat.send("second question")
        await idle(panel)
        last = agent.memory.messages[-1].get_text_content() or ""
        # The restarted server was given the whole thread by the client and answers from it.
        assert last.startswith("You said: second question. I was shown 3 messages.")
        assert panel.chat.state == "idle"
    finally:
        server.stop()


async def test_what_a_remote_agent_cannot_do_is_greyed_out_with_the_reason(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(langgraph_agui.url, token="s3cret-token-value")
    clear = panel.chat.tools.clear_button
    assert clear.disabled and "mirrors the server" in clear.tooltip
    assert panel.inspector is not None
    off = panel.inspector.controls_off
    assert "compress" in off and "threshold" in off and "pin" in off
    assert "compression runs on the server" in off["compress"].lower()
    html = all_html(panel)
    assert "Remote agent: some controls are off" in html
    assert panel.remote is not None  # drawn inside the inspector: a part, no comm of its own
    assert panel.inspector.state["remote"] == panel.remote.state
    assert panel.remote.comm is None
    assert f"thread: {agent.thread_id}" in panel.remote.text
    await until(lambda: panel.remote.link == "connected", what="the link drawn as connected")
    assert panel.session is None and panel.permissions is None
    assert "s3cret-token-value" not in all_state(panel) + repr(agent) + repr(agent.client)
    assert "s3cret-token-value" not in str(agent.state_dict())


@pytest.mark.parametrize("word", ["approve", "deny"])
async def test_decisions_from_code_work_like_a_local_agent(
    langgraph_agui: AguiServer, word: str
) -> None:
    agent = RemoteAgent(langgraph_agui.url)
    task = asyncio.create_task(agent(Msg("User", "deploy please", "user")))
    await until(lambda: agent.pending_approvals, what="a pending approval")
    call_id = agent.pending_approvals[0].call_id
    agent.decide(call_id, word, reason="no")
    reply = await task
    expected = "deployed 1.2 to prod" if word == "approve" else "denied by the user: no"
    assert reply.get_text_content() == f"Done: {expected}."
    await agent.aclose()


async def test_the_graphs_question_is_the_question_form_and_answering_resumes(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(langgraph_agui.url)
    card = await question_form(panel, "ask me something")
    # Choices are button labels (plain text, never HTML); the question text is escaped.
    assert [b.description for b in card.fields[0].choices] == ["red", "<b>blue</b>"]
    assert "<b>Which colour?</b>" in all_html(card)
    card.fields[0].choose("<b>blue</b>")
    assert card.send()
    await idle(panel)
    assert card.answered == "answered"
    assert agent.memory.messages[-1].get_text_content() == "You picked <b>blue</b>."


async def test_the_servers_version_of_a_streamed_tool_call_is_what_the_chat_shows(
    langgraph_agui: AguiServer, attach: Attach
) -> None:
    # ag-ui-langgraph streams no TOOL_CALL_ARGS for a call made in one chunk; its snapshot
    # has the arguments, and the chat's row is finished with that version.
    agent, panel = attach(langgraph_agui.url)
    card = await approval_card(panel, "please deploy")
    asked = next(m for m in agent.memory.messages if m.get_content_blocks("tool_use"))
    assert asked.get_content_blocks("tool_use")[0].input == {"env": "prod", "version": "1.2"}
    entry = panel.chat.transcript.get(asked.id)
    assert entry is not None and entry.msg is not None
    assert entry.msg.get_content_blocks("tool_use")[0].input == {"env": "prod", "version": "1.2"}
    card.approve_button.click()
    await idle(panel)
