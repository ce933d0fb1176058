"""The session bar keeps steering that was queued when saving, and says so after loading."""

from __future__ import annotations

from pathlib import Path

from widget_helpers import act, until

from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import AgentPanel


def make(script: list[str]) -> ReActAgent:
    return ReActAgent("Friday", "Test.", ScriptedModel(script, tokens_per_second=5000))


async def test_a_queued_steer_survives_save_and_load_buttons_and_the_note_says_so(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chat.json"
    agent = make(["Hello."])
    panel = AgentPanel(agent, inspector=False, session=path)
    assert panel.session is not None
    panel.chat.send("hi")
    await until(lambda: panel.chat.state == "idle" and len(agent.memory) == 2)
    steer = Msg("User", "From now on, answer in French.", "user")
    agent.steer_nowait(steer)  # queued: no reply runs
    act(panel.parts, "session", name="save")
    assert "Saved to" in panel.session.note

    fresh = make(["Bonjour."])
    other = AgentPanel(fresh, inspector=False, session=path)
    assert other.session is not None
    act(other.parts, "session", name="load")
    assert "1 steering message(s) queued, taken in by the next reply" in other.session.note
    assert [m.id for m in fresh.pending_steering] == [steer.id]
    other.chat.send("How are you?")
    await until(lambda: other.chat.state == "idle" and not fresh.is_replying)
    texts = [m.get_text_content() for m in fresh.memory.messages]
    assert texts[-3:] == ["From now on, answer in French.", "How are you?", "Bonjour."]
    assert fresh.pending_steering == []
    panel.close()
    other.close()
