"""The chat's Edit, Regenerate and branch switcher (headless: row buttons are pressed through
the keyboard widget's actions, as the front end sends them)."""

from __future__ import annotations

from widget_helpers import all_html, until

from nb_hitl.agent import ReActAgent, UserAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._branch_view import ACTION_BUTTONS
from nb_hitl.widgets._chat_branches import EDITING_NOTE, NOT_IDLE_NOTE


def agent_for(script: list) -> ReActAgent:
    return ReActAgent("Friday", "s", ScriptedModel(script, tokens_per_second=1e6))


def switchers(chat: ChatWidget) -> list[str]:
    return [all_html(r) for r in chat.rows if "nb-hitl-branch-switch" in all_html(r)]


async def test_edit_resends_on_a_new_branch_and_the_switcher_goes_back() -> None:
    agent = agent_for(["Paris.", "Rome."])
    chat = ChatWidget(agent)
    assert chat.shortcuts.action_buttons == ACTION_BUTTONS
    chat.send("Capital of France?")
    await until(lambda: chat.state == "idle" and "Paris." in all_html(chat))
    question = agent.memory.messages[0]
    assert f'data-nb-hitl-action="edit" data-nb-hitl-arg="{question.id}"' in all_html(chat.rows[0])
    assert 'data-nb-hitl-action="regenerate"' in all_html(chat.rows[-1])
    chat.shortcuts.press("edit", question.id)  # the Edit button
    assert chat.input.value == "Capital of France?" and chat.send_button.description == "Resend"
    assert EDITING_NOTE in chat._note.value
    chat.input.value = "Capital of Italy?"
    chat.send_button.click()
    assert chat.input.value == ""
    await until(lambda: chat.state == "idle" and "Rome." in all_html(chat), what="edited reply")
    assert [b.name for b in agent.branches] == ["main", "edit 1"] and agent.branch.name == "edit 1"
    texts = [m.get_text_content() for m in agent.memory.messages]
    assert texts == ["Capital of Italy?", "Rome."]
    assert "Paris." not in all_html(chat) and "Capital of France?" not in all_html(chat)
    (switch,) = switchers(chat)
    assert "branch 2 of 2 · edit 1" in switch
    assert chat.rows[0] is next(r for r in chat.rows if "nb-hitl-branch-switch" in all_html(r))
    chat.shortcuts.press("checkout", "main")  # the switcher's ‹
    assert agent.branch.name == "main"
    assert "Paris." in all_html(chat) and "Rome." not in all_html(chat)
    assert "branch 1 of 2 · main" in switchers(chat)[0]
    chat.checkout("edit 1")
    assert "Rome." in all_html(chat)


async def test_regenerate_answers_again_on_a_new_branch() -> None:
    agent = agent_for(["First answer.", "Second answer."])
    chat = ChatWidget(agent)
    chat.send("Hi")
    await until(lambda: chat.state == "idle" and "First answer." in all_html(chat))
    answer = agent.memory.messages[-1]
    chat.shortcuts.press("regenerate", answer.id)
    await until(lambda: chat.state == "idle" and "Second answer." in all_html(chat))
    assert agent.memory.messages[-1].metadata["regenerates"] == answer.id
    assert "First answer." not in all_html(chat)
    (switch,) = switchers(chat)
    assert "branch 2 of 2" in switch
    rows = [all_html(r) for r in chat.rows]
    at = next(i for i, r in enumerate(rows) if "nb-hitl-branch-switch" in r)
    assert "Hi" in rows[at - 1] and "Second answer." in rows[at + 1]  # at the fork point


async def test_branch_actions_wait_or_refuse_while_a_reply_runs_and_stay_usable() -> None:
    agent = agent_for([" ".join(f"w{i}" for i in range(400)), "Done."])
    agent.model.tokens_per_second = 200  # type: ignore[attr-defined]
    chat = ChatWidget(agent)
    chat.send("Long?")
    await until(lambda: chat.state == "running" and agent.is_replying)
    assert chat.checkout("main") is False and NOT_IDLE_NOTE in chat._note.value
    assert chat.edit("no-such-id") is False
    chat.shortcuts.press("checkout", "nonexistent")
    chat.stop()
    await until(lambda: chat.state == "idle")
    chat.shortcuts.press("checkout", "nonexistent")
    assert "No branch &#x27;nonexistent&#x27;" in chat._note.value
    chat.send("Short?")
    await until(lambda: chat.state == "idle" and "Done." in all_html(chat))


async def test_button_text_is_escaped_and_agents_without_forks_get_no_buttons() -> None:
    agent = agent_for(["ok"])
    chat = ChatWidget(agent, user_name="<b>Ann</b>")
    chat.send("<script>alert(1)</script>")
    await until(lambda: chat.state == "idle" and "ok" in all_html(chat))
    drawn = all_html(chat)
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn
    plain = ChatWidget(UserAgent("User"))
    assert plain.branches.enabled is False and plain.transcript.row_actions is None
    assert plain.edit("x") is False and plain.regenerate("x") is False


async def test_a_loaded_conversation_with_branches_draws_its_switcher() -> None:
    agent = agent_for(["A.", "B."])
    await agent(Msg("User", "Q1", "user"))
    await agent.edit_and_resend(agent.memory.messages[0].id, "Q2")
    fresh = agent_for([])
    fresh.load_state_dict(agent.state_dict())
    chat = ChatWidget(fresh)
    (switch,) = switchers(chat)
    assert "branch 2 of 2" in switch and "B." in all_html(chat)
