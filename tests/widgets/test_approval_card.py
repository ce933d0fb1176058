"""Approval cards driven headless: clicks are ``button.click()``, the agent is real."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import ipywidgets as w
from widget_helpers import all_html, all_state, until

from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._approval import ApprovalBox, ApprovalCard

EVIL = "<script>alert('x')</script>"


def agent_with(script: list[Any], ran: list[dict[str, Any]]) -> ReActAgent:
    toolkit = Toolkit()

    def run_sql(query: str, limit: int = 10) -> str:
        """Run a SQL query.

        Args:
            query: the SQL.
            limit: most rows.
        """
        ran.append({"query": query, "limit": limit})
        return f"{limit} rows"

    toolkit.register_tool_function(run_sql, needs_approval=True)
    model = ScriptedModel(script, tokens_per_second=5000)
    return ReActAgent("Friday", "Test.", model, toolkit=toolkit)


def sql_turn(*queries: str) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[
            ScriptedToolCall("run_sql", {"query": q}, id=f"q{i}") for i, q in enumerate(queries)
        ]
    )


def cards_of(box: ApprovalBox) -> list[ApprovalCard]:
    return list(box.cards.cards.values())


async def start(agent: ReActAgent, box: ApprovalBox, n: int = 1) -> asyncio.Task[Msg]:
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await until(lambda: len(box.cards.waiting) >= n, what="cards")
    return task


def shown(widget: w.Widget) -> bool:
    return widget.layout.display != "none"


async def test_card_shows_escaped_call_and_approve_runs_it() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn(f"select '{EVIL}'"), "done"], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    [card] = cards_of(box)
    page = all_html(box)
    assert "run_sql" in page and "waiting for you" in page
    assert EVIL not in page and "&lt;script&gt;" in page  # arguments escaped
    assert '"query": "select' in card.arguments_view.value.replace("&quot;", '"')
    assert "waiting for you" in box.status.value
    assert ran == []
    card.approve_button.click()
    assert (await task).get_text_content() == "done"
    assert ran == [{"query": f"select '{EVIL}'", "limit": 10}]
    await until(lambda: card.decision == "approved")
    assert "Approved" in card.result.value
    assert not shown(card.actions) and not shown(card.edit_box) and not shown(card.deny_box)
    assert "waiting for you" not in card.header.value
    box.close()


async def test_edit_validates_json_and_schema_in_the_card_then_runs_the_edit() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("drop table users"), "done"], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    [card] = cards_of(box)
    assert not shown(card.edit_box)
    card.edit_button.click()
    assert shown(card.edit_box)
    assert '"drop table users"' in card.edit_area.value
    card.edit_area.value = '{"query": '
    card.edit_ok.click()
    assert "not valid JSON" in card.error.value
    card.edit_area.value = '{"query": "select 1", "limit": "many"}'
    card.edit_ok.click()
    assert "limit" in card.error.value and "Invalid arguments" in card.error.value
    card.edit_area.value = f'{{"query": "select 1", "{EVIL}": 1}}'
    card.edit_ok.click()
    assert EVIL not in card.error.value and "&lt;script&gt;" in card.error.value
    assert [p.call_id for p in agent.pending_approvals] == ["q0"] and ran == []
    card.edit_area.value = '{"query": "select 1", "limit": 2}'
    card.edit_ok.click()
    await task
    assert ran == [{"query": "select 1", "limit": 2}]
    await until(lambda: card.decision == "edited")
    assert "edited" in card.result.value
    # The call line shows what ran; the model's own arguments stay below, folded.
    assert "select 1" in card.arguments_view.value
    assert "drop table users" not in card.arguments_view.value
    assert "the model asked for" in card.result.value and "drop table users" in card.result.value
    assert card.error.value == ""


async def test_deny_with_reason_reaches_the_model_and_shows_on_the_card() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("delete from t"), "ok, I won't"], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    [card] = cards_of(box)
    card.deny_button.click()
    assert shown(card.deny_box)
    card.deny_cancel.click()
    assert not shown(card.deny_box)
    card.deny_button.click()
    card.reason.value = f"not on prod {EVIL}"
    card.deny_ok.click()
    await task
    assert ran == []
    tool_msg = [m for m in agent.model.calls[-1].messages if m["role"] == "tool"]  # type: ignore[attr-defined]
    assert tool_msg[0]["content"] == f"denied by the user: not on prod {EVIL}"
    await until(lambda: card.decision == "denied")
    assert "Denied" in card.result.value and EVIL not in card.result.value
    assert "not on prod &lt;script&gt;" in card.result.value


async def test_always_allow_and_several_cards_decided_one_by_one() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with(
        [sql_turn("a", "b"), sql_turn("c"), "done"],
        ran,
    )
    box = ApprovalBox(agent)
    task = await start(agent, box, n=2)
    first, second = cards_of(box)
    assert (first.call_id, second.call_id) == ("q0", "q1")
    first.deny_button.click()
    first.reason.value = "no"
    first.deny_ok.click()
    await until(lambda: first.decision == "denied")
    assert second.decision == "" and "waiting for you" in box.status.value
    second.always_button.click()
    assert (await task).get_text_content() == "done"
    assert [r["query"] for r in ran] == ["b", "c"]  # c never asked: always allowed
    assert len(cards_of(box)) == 2
    assert second.decision == "approved" and "always allowed" in second.result.value
    assert agent.always_allowed == {"run_sql"}
    assert_history_valid(agent.memory.messages)


async def test_stop_while_waiting_closes_the_cards_and_late_clicks_only_show_an_error() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("x", "y")], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box, n=2)
    await agent.interrupt()
    assert (await task).is_interrupted
    await until(lambda: all(c.decision == "interrupted" for c in cards_of(box)))
    card = cards_of(box)[0]
    assert "stopped before a decision" in card.result.value
    card.approve_button.click()  # a stale click (the button is hidden but may still fire)
    assert "closed by an interrupt" in card.error.value
    assert ran == [] and agent.pending_approvals == []
    assert_history_valid(agent.memory.messages)


async def test_clicks_from_a_comm_thread_hop_onto_the_loop() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("x"), "done"], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    [card] = cards_of(box)
    seen: list[bool] = []
    agent.subscribe(lambda e: seen.append(threading.current_thread() is threading.main_thread()))
    thread = threading.Thread(target=card.approve_button.click)
    thread.start()
    assert (await task).get_text_content() == "done"
    thread.join(timeout=10)
    assert ran == [{"query": "x", "limit": 10}]
    assert seen and all(seen)  # the decision and its events happened on the loop's thread


async def test_chat_widget_shows_cards_in_the_transcript_with_a_waiting_status() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("x"), "done"], ran)
    chat = ChatWidget(agent)
    cards = chat.approvals
    assert cards is not None
    chat.send("query please")
    await until(lambda: cards.waiting, what="card")
    [card] = cards.waiting
    assert card in chat.rows
    assert chat.status.state == "waiting" and "waiting for you" in chat.status.text()
    card.approve_button.click()
    await until(lambda: chat.state == "idle", what="reply done")
    assert ran and card.decision == "approved"
    chat.close()


async def test_cards_are_redrawn_for_a_loaded_session_and_resume_works(tmp_path: Path) -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("x")], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    path = agent.save_session(tmp_path / "s.json")
    await agent.interrupt()
    await task

    fresh = agent_with(["done"], ran)
    fresh.load_session(path)
    box2 = ApprovalBox(fresh)
    [card] = cards_of(box2)
    assert card.call_id == "q0" and "waiting for you" in box2.status.value
    resumed = asyncio.create_task(fresh.resume_pending())
    await asyncio.sleep(0)
    card.approve_button.click()
    assert (await resumed).get_text_content() == "done"
    assert ran == [{"query": "x", "limit": 10}]
    assert len(cards_of(box2)) == 1  # the re-sent request reused the card


async def test_no_key_in_any_card_trait() -> None:
    from nb_hitl.model import OpenAIChatModel

    secret = "sk-test-CARD-SECRET-123456789"
    toolkit = Toolkit()
    toolkit.register_tool_function(lambda q: q, name="echo", needs_approval=True)
    model = OpenAIChatModel(model_name="m", api_key=secret, base_url="http://127.0.0.1:9")
    agent = ReActAgent("Friday", "Test.", model, toolkit=toolkit)
    box = ApprovalBox(agent)
    from nb_hitl.message import ToolUseBlock

    card = ApprovalCard(agent, ToolUseBlock(id="c", name="echo", input={"q": "hi"}))
    # A card is a row of the box's segment (no widget of its own): its state is the row.
    assert secret not in all_state(box) and secret not in card.drawn_html()


async def test_decided_cards_come_back_in_place_after_loading_a_session(tmp_path: Path) -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("a", "b"), "first done", "second done"], ran)
    chat = ChatWidget(agent)
    assert chat.approvals is not None
    chat.send("two queries")
    await until(lambda: len(chat.approvals.waiting) == 2, what="cards")  # type: ignore[union-attr]
    agent.approve("q0", {"query": "a2"})
    agent.deny("q1", f"no {EVIL}")
    await until(lambda: chat.state == "idle", what="reply done")
    chat.send("thanks")
    await until(lambda: chat.state == "idle" and len(agent.memory) == 7, what="second reply")
    path = agent.save_session(tmp_path / "s.json")
    chat.close()

    fresh = agent_with([], [])
    fresh.load_session(path)
    chat2 = ChatWidget(fresh)
    rows = chat2.rows
    cards = [r for r in rows if isinstance(r, ApprovalCard)]
    assert [(c.call_id, c.decision) for c in cards] == [("q0", "edited"), ("q1", "denied")]
    # right after the assistant message that asked for the calls, before their results
    first = rows.index(cards[0])
    assert "run_sql" in all_html(rows[first - 1]) and "a2" in all_html(rows[first - 1])
    assert rows[first + 1] is cards[1]
    assert "denied by the user" in all_html(rows[first + 2])
    assert "second done" in all_html(rows[-1]) or "second done" in all_html(rows[-2])
    assert "a2" in cards[0].arguments_view.value and "edited" in cards[0].result.value
    assert EVIL not in all_html(cards[1]) and "no &lt;script&gt;" in cards[1].result.value
    chat2.close()
