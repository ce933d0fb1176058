"""The panel's Save / Load buttons and autosave, driven headless."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from widget_helpers import act, all_html, all_state, until

from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel
from nb_hitl.widgets._approval import ApprovalCard


def make(script: list[Any], ran: list[str] | None = None) -> ReActAgent:
    toolkit = Toolkit()

    def deploy(env: str) -> str:
        """Deploy.

        Args:
            env: where.
        """
        if ran is not None:
            ran.append(env)
        return f"deployed to {env}"

    toolkit.register_tool_function(deploy, needs_approval=True)
    return ReActAgent(
        "Friday", "Test.", ScriptedModel(script, tokens_per_second=5000), toolkit=toolkit
    )


def deploy_turn() -> ScriptedTurn:
    return ScriptedTurn(
        text="Deploying.", tool_calls=[ScriptedToolCall("deploy", {"env": "prod"}, id="d1")]
    )


def cards(panel: AgentPanel) -> list[ApprovalCard]:
    return [r for r in panel.chat.rows if isinstance(r, ApprovalCard)]


async def test_save_and_load_buttons_round_trip_and_redraw_the_chat(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    agent = make(["Hello from the first kernel."])
    panel = AgentPanel(agent, inspector=False, session=path)
    assert panel.session is not None
    panel.chat.send("hi")
    await until(lambda: panel.chat.state == "idle" and len(agent.memory) == 2)
    act(panel.parts, "session", name="save")
    assert path.exists() and "Saved to" in panel.session.note

    fresh = make([])
    panel2 = AgentPanel(fresh, inspector=False, session=path)
    assert "Hello from the first kernel." not in all_html(panel2.chat)
    assert panel2.session is not None
    old_chat = panel2.chat
    act(panel2.parts, "session", name="load")
    assert [m.to_dict() for m in fresh.memory.messages] == [
        m.to_dict() for m in agent.memory.messages
    ]
    # The panel draws the new chat (its part "chat", built afresh by the page: a new
    # generation); the old one is drawn no more.
    assert panel2.chat is not old_chat and panel2.state["chat"] == panel2.chat.view_state
    assert panel2.state["chat_generation"] == 1 and panel2.chat.carrier() is panel2
    assert old_chat.carrier() is old_chat
    assert "Hello from the first kernel." in all_html(panel2.chat)
    assert "Hello from the first kernel." in all_html(panel2)
    assert "Loaded" in panel2.session.note
    panel.close()
    panel2.close()


async def test_loading_a_parked_session_brings_back_the_card_and_approving_resumes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "parked.json"
    agent = make([deploy_turn()])
    panel = AgentPanel(agent, inspector=False, session=path)
    panel.chat.send("deploy please")
    await until(lambda: cards(panel), what="card")
    assert panel.chat.status.state == "waiting"
    assert panel.session is not None
    act(panel.parts, "session", name="save")
    assert "Saved to" in panel.session.note
    panel.chat.stop()
    await until(lambda: panel.chat.state == "idle")

    ran: list[str] = []
    fresh = make(["Deployed."], ran)
    panel2 = AgentPanel(fresh, inspector=False, session=path)
    assert panel2.session is not None
    act(panel2.parts, "session", name="load")
    assert "1 tool call(s) wait for you" in panel2.session.note
    await until(lambda: fresh.is_replying and cards(panel2), what="resumed and parked")
    [card] = cards(panel2)
    assert card.call_id == "d1" and card.decision == ""
    await until(lambda: panel2.chat.status.state == "waiting")
    card.approve_button.click()
    await until(lambda: not fresh.is_replying and panel2.chat.state == "idle")
    assert ran == ["prod"]
    assert fresh.memory.messages[-1].get_text_content() == "Deployed."
    assert "Deployed." in all_html(panel2.chat)
    assert_history_valid(fresh.memory.messages)
    panel.close()
    panel2.close()


async def test_autosave_after_finished_interrupted_and_parked_replies(tmp_path: Path) -> None:
    path = tmp_path / "auto.json"
    long_text = " ".join(f"w{i}" for i in range(2000))
    agent = make(["First answer.", long_text, deploy_turn()])
    agent.model.tokens_per_second = 300  # type: ignore[attr-defined]
    panel = AgentPanel(agent, inspector=False, session=path, autosave=True)
    assert panel.session is not None

    def saved_texts() -> list[str]:
        if not path.exists():
            return []
        doc = json.loads(path.read_text(encoding="utf-8"))
        return [str(m["content"]) for m, _marks in doc["agent"]["state"]["memory"]["content"]]

    panel.chat.send("one")
    await until(lambda: "First answer." in str(saved_texts()), what="autosave after finish")
    panel.chat.send("two")
    await until(lambda: "w5" in all_html(panel.chat), what="streaming")
    panel.chat.stop()
    await until(
        lambda: any("[Interrupted]" in t for t in saved_texts()), what="autosave after interrupt"
    )
    panel.chat.send("three")
    await until(lambda: agent.is_waiting_for_approval)
    await until(
        lambda: json.loads(path.read_text(encoding="utf-8"))["agent"]["state"]["approvals"][
            "parked"
        ],
        what="autosave while parked",
    )
    assert panel.session.saves >= 3
    await agent.interrupt()
    await until(lambda: not agent.is_replying)
    panel.close()


async def test_a_bad_file_shows_an_escaped_error_and_changes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "<i>bad.json"
    bad.write_text('{"format": "nb_hitl.session", "schema_version": 99, "agent": {}}')
    agent = make([])
    await agent.observe(Msg("User", "keep me", "user"))
    panel = AgentPanel(agent, inspector=False, session=bad)
    assert panel.session is not None
    chat = panel.chat
    act(panel.parts, "session", name="load")
    note = panel.session.note
    assert "newer nb_hitl" in note and "<i>" not in note and "&lt;i&gt;bad.json" in note
    assert [m.get_text_content() for m in agent.memory.messages] == ["keep me"]
    assert panel.chat is chat
    panel.close()


async def test_panel_without_session_bar_and_no_secret_in_its_state(tmp_path: Path) -> None:
    from nb_hitl.model import OpenAIChatModel

    secret = "sk-test-PANEL-SECRET-987654321"
    model = OpenAIChatModel(model_name="m", api_key=secret, base_url="http://127.0.0.1:9")
    agent = ReActAgent("Friday", "Test.", model)
    panel = AgentPanel(agent, inspector=False, session=tmp_path / "s.json")
    assert secret not in all_state(panel)
    assert AgentPanel(agent, inspector=False, session=None).session is None
    await asyncio.sleep(0)
    panel.close()


def named(name: str, script: list[Any]) -> ReActAgent:
    return ReActAgent(name, "Test.", ScriptedModel(script, tokens_per_second=5000))


async def test_each_agent_has_its_own_default_file_and_load_over_a_conversation_asks_first(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    alpha, beta = named("Alpha", ["Alpha's answer."]), named("Beta", ["Beta's answer."])
    a, b = AgentPanel(alpha, inspector=False), AgentPanel(beta, inspector=False)
    assert a.session is not None and b.session is not None
    assert a.session.path != b.session.path
    assert str(b.session.path) == "nb_hitl_session_Beta.json"
    for panel in (a, b):
        panel.chat.send("hello")
    await until(lambda: a.chat.state == b.chat.state == "idle" and len(alpha.memory) == 2)
    await until(lambda: len(beta.memory) == 2)
    act(b.parts, "session", name="save")
    act(a.parts, "session", name="save")
    with open("nb_hitl_session_Alpha.json", encoding="utf-8") as f:  # noqa: ASYNC230
        assert json.load(f)["agent"]["name"] == "Alpha"
    alpha_before = [m.to_dict() for m in alpha.memory.messages]

    # Load Beta's file into Alpha's panel: it asks, and Cancel changes nothing.
    act(a.parts, "session", name="path", args={"value": "nb_hitl_session_Beta.json"})
    assert not a.session.can_undo
    act(a.parts, "session", name="load")
    assert [m.to_dict() for m in alpha.memory.messages] == alpha_before
    assert a.session.confirming
    note = a.session.note
    assert "replaces Alpha&#x27;s conversation (2 messages)" in note and "&#x27;Beta&#x27;" in note
    act(a.parts, "session", name="cancel")
    assert not a.session.confirming
    assert [m.to_dict() for m in alpha.memory.messages] == alpha_before
    assert "cancelled" in a.session.note

    # Replace: Beta's conversation, said so; Undo brings Alpha's back, once.
    act(a.parts, "session", name="load")
    act(a.parts, "session", name="replace")
    assert alpha.memory.messages[-1].get_text_content() == "Beta's answer."
    assert "saved by agent &#x27;Beta&#x27;" in a.session.note
    assert "Beta's answer." in all_html(a.chat).replace("&#x27;", "'")
    assert a.session.can_undo
    act(a.parts, "session", name="undo")
    assert [m.to_dict() for m in alpha.memory.messages] == alpha_before
    assert "Alpha's answer." in all_html(a.chat).replace("&#x27;", "'")
    assert not a.session.can_undo
    assert a.session.undo() is False and "Nothing to undo" in a.session.note
    a.close()
    b.close()


async def test_undo_is_dropped_once_the_conversation_moves_on(tmp_path: Path) -> None:
    saved = named("Alpha", ["Saved answer."])
    panel0 = AgentPanel(saved, inspector=False, session=tmp_path / "s.json")
    panel0.chat.send("hi")
    await until(lambda: panel0.chat.state == "idle" and len(saved.memory) == 2)
    assert panel0.session is not None and panel0.session.save()
    agent = named("Alpha", ["First.", "Second."])
    panel = AgentPanel(agent, inspector=False, session=tmp_path / "s.json")
    panel.chat.send("one")
    await until(lambda: panel.chat.state == "idle" and len(agent.memory) == 2)
    assert panel.session is not None
    assert panel.session.load(confirm=True) is not None
    assert panel.session.can_undo
    panel.chat.send("two")
    await until(lambda: panel.chat.state == "idle" and len(agent.memory) == 4)
    assert not panel.session.can_undo  # undoing now would lose the new reply
    panel0.close()
    panel.close()
