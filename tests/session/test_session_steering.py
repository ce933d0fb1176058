"""Sessions keep steering that was queued and not yet taken in (``agent.steer``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import SessionError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.session import JSONSession, read_session
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit


def user(text: str) -> Msg:
    return Msg("User", text, "user")


def toolkit(ran: list[str]) -> Toolkit:
    tk = Toolkit()

    def send_email(to: str) -> str:
        """Send an email.

        Args:
            to: the address.
        """
        ran.append(to)
        return f"sent to {to}"

    tk.register_tool_function(send_email, needs_approval=True)
    return tk


def make(script: list[Any], ran: list[str] | None = None) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent(
        "Friday", "You steer well.", model, toolkit=toolkit([] if ran is None else ran)
    )


def prompt_texts(agent: ReActAgent, call: int = -1) -> list[str]:
    model = agent.model
    assert isinstance(model, ScriptedModel)
    return [str(m.get("content")) for m in model.calls[call].messages if m["role"] == "user"]


async def test_a_steer_queued_on_an_idle_agent_survives_save_and_load(tmp_path: Path) -> None:
    agent = make(["Hello."])
    await agent(user("Hi"))
    steer = user("From now on, answer in French.")
    assert await agent.steer(steer) is False  # no reply running: it waits for the next one
    path = agent.save_session(tmp_path / "s.json")
    saved = read_session(path)["agent"]["state"]["steering"]
    assert [m["id"] for m in saved] == [steer.id]

    restarted = make(["Bonjour."])
    info = restarted.load_session(path)
    assert info.pending_steering == 1
    assert [(m.id, m.get_text_content()) for m in restarted.pending_steering] == [
        (steer.id, "From now on, answer in French.")
    ]
    assert steer.id not in [m.id for m in restarted.memory.messages]  # queued, not recorded

    reply = await restarted(user("How are you?"))
    assert reply.get_text_content() == "Bonjour."
    texts = [m.get_text_content() for m in restarted.memory.messages]
    assert texts[-3:] == ["From now on, answer in French.", "How are you?", "Bonjour."]
    assert prompt_texts(restarted)[-2:] == ["From now on, answer in French.", "How are you?"]
    assert restarted.pending_steering == []
    assert [m.id for m in restarted.memory.messages].count(steer.id) == 1


async def test_a_steer_sent_while_parked_is_taken_in_after_load_and_resume(
    tmp_path: Path,
) -> None:
    turn = ScriptedTurn(
        text="Emailing Ann.", tool_calls=[ScriptedToolCall("send_email", {"to": "ann"}, id="e1")]
    )
    agent = make([turn])
    task = asyncio.create_task(agent(user("Email Ann.")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    steer = user("Also tell Bob.")
    assert agent.steer_nowait(steer) is True  # the parked reply is still running
    path = agent.save_session(tmp_path / "parked.json")
    await agent.interrupt()  # the old kernel goes away; its reply keeps the steer queued
    await task

    ran: list[str] = []
    restarted = make(["Emailed Ann; I will tell Bob too."], ran)
    info = restarted.load_session(path)
    assert (info.pending_approvals, info.pending_steering) == (1, 1)
    restarted.approve("e1")
    reply = await restarted.resume_pending()
    assert reply.get_text_content() == "Emailed Ann; I will tell Bob too."
    assert ran == ["ann"]
    [taken] = [m for m in restarted.memory.messages if m.id == steer.id]
    assert taken.metadata["_steered"] is True  # recorded at the step boundary, once
    msgs = restarted.memory.messages
    result_at = next(i for i, m in enumerate(msgs) if m.get_content_blocks("tool_result"))
    assert msgs.index(taken) == result_at + 1  # right after the decided call's result
    assert prompt_texts(restarted)[-1] == "Also tell Bob."  # the resumed step saw it
    assert restarted.pending_steering == []
    assert_history_valid(msgs)


async def test_loading_replaces_the_queue_and_an_older_file_means_none(tmp_path: Path) -> None:
    agent = make(["Hello."])
    await agent(user("Hi"))
    path = agent.save_session(tmp_path / "s.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc["agent"]["state"]["steering"]
    doc["schema_version"] = 2  # written before steering was saved
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc), encoding="utf-8")

    live = make([])
    live.steer_nowait(user("a steer for the conversation being replaced"))
    info = live.load_session(old)
    assert info.pending_steering == 0 and live.pending_steering == []


@pytest.mark.parametrize(
    ("steering", "message"),
    [
        ("not a list", r"agent\.state\.steering: Input should be a valid list"),
        ([{"name": "User", "content": "x", "role": "wizard"}], r"agent\.state\.steering\[0\]"),
    ],
)
async def test_bad_steering_in_a_file_is_refused_and_changes_nothing(
    tmp_path: Path, steering: Any, message: str
) -> None:
    agent = make(["Hello."])
    await agent(user("Hi"))
    path = agent.save_session(tmp_path / "s.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["agent"]["state"]["steering"] = steering
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")

    live = make([])
    mine = user("keep me")
    live.steer_nowait(mine)
    with pytest.raises(SessionError, match=message):
        live.load_session(bad)
    assert [m.id for m in live.pending_steering] == [mine.id]
    with pytest.raises(ValueError, match="steering"):
        live.load_state_dict({**doc["agent"]["state"]})
    assert [m.id for m in live.pending_steering] == [mine.id] and live.memory.messages == []


async def test_a_failed_load_puts_the_live_queue_back(tmp_path: Path) -> None:
    turn = ScriptedTurn(tool_calls=[ScriptedToolCall("send_email", {"to": "ann"}, id="e1")])
    agent = make([turn])
    task = asyncio.create_task(agent(user("Email Ann.")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    agent.steer_nowait(user("from the file"))
    path = agent.save_session(tmp_path / "parked.json")
    await agent.interrupt()
    await task
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["agent"]["state"]["approvals"]["parked"][0]["call"]["name"] = "rm_rf"  # fails late
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")

    live = make([])
    mine = user("keep me")
    live.steer_nowait(mine)
    with pytest.raises(SessionError, match="toolkit does not have"):
        live.load_session(bad)
    assert [m.get_text_content() for m in live.pending_steering] == ["keep me"]


async def test_agentscope_json_session_keeps_queued_steering(tmp_path: Path) -> None:
    agent = make(["Hello."])
    await agent(user("Hi"))
    steer = user("Shorter answers, please.")
    agent.steer_nowait(steer)
    await JSONSession(save_dir=str(tmp_path)).save_session_state("s1", friday=agent)

    restarted = make(["Short."])
    await JSONSession(save_dir=str(tmp_path)).load_session_state("s1", friday=restarted)
    assert [m.id for m in restarted.pending_steering] == [steer.id]
    await restarted()  # answers the steer
    assert [m.id for m in restarted.memory.messages].count(steer.id) == 1
    assert restarted.pending_steering == []


async def test_a_queued_steer_that_memory_already_holds_is_not_queued_again(
    tmp_path: Path,
) -> None:
    agent = make(["Hello."])
    await agent(user("Hi"))
    recorded = agent.memory.messages[0]
    doc = json.loads(agent.save_session(tmp_path / "s.json").read_text(encoding="utf-8"))
    doc["agent"]["state"]["steering"] = [recorded.to_dict()]  # e.g. a file edited by hand
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc), encoding="utf-8")

    restarted = make(["Again."])
    info = restarted.load_session(edited)
    assert info.pending_steering == 0 and restarted.pending_steering == []
    await restarted(user("More?"))
    assert [m.id for m in restarted.memory.messages].count(recorded.id) == 1
