"""Approval cards facing hostile input: arguments that cannot be parsed safely get the card's
own error, and bidi controls or zero-width characters are shown, never obeyed."""

from __future__ import annotations

from typing import Any

import pytest
from test_approval_card import agent_with, cards_of, sql_turn, start
from widget_helpers import all_html, all_state, until

from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._approval import ApprovalBox

RLO_NAME = "report\u202efdp.exe"


@pytest.mark.parametrize(
    ("pasted", "says"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"query": "x", "limit": ' + "7" * 5000 + "}", "number too long"),
        ('{"a": ' * 100_000, "nested too deeply"),
    ],
)
async def test_unreadable_edited_arguments_get_the_cards_own_error(pasted: str, says: str) -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn("select 1"), "done"], ran)
    chat = ChatWidget(agent)
    assert chat.approvals is not None
    cards = chat.approvals
    chat.send("query please")
    await until(lambda: cards.waiting, what="card")
    [card] = cards.waiting
    card.edit_button.click()
    card.edit_area.value = pasted
    card.edit_ok.click()
    assert says in card.error.value
    assert "Widget error" not in all_html(chat)
    assert [p.call_id for p in agent.pending_approvals] == ["q0"] and ran == []
    card.edit_area.value = '{"query": "select 2"}'
    card.edit_ok.click()
    await until(lambda: chat.state == "idle", what="reply done")
    assert ran == [{"query": "select 2", "limit": 10}]
    chat.close()


async def test_bidi_controls_in_arguments_are_shown_escaped_and_round_trip() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with([sql_turn(f"copy {RLO_NAME}\u200b"), "done"], ran)
    box = ApprovalBox(agent)
    task = await start(agent, box)
    [card] = cards_of(box)
    page = all_html(box) + all_state(box)
    assert "\u202e" not in page and "\u200b" not in page
    assert "report\\u202efdp.exe" in card.arguments_view.value
    assert "\\u200b" in card.edit_area.value
    card.edit_button.click()
    card.edit_area.value = card.edit_area.value.replace('"copy', '"copy2')
    card.edit_ok.click()  # the escapes mean the same characters to the JSON parser
    await task
    assert ran == [{"query": f"copy2 {RLO_NAME}\u200b", "limit": 10}]
    await until(lambda: card.decision == "edited")
    assert "\u202e" not in card.result.value and "\\u202e" in card.result.value


async def test_zero_width_only_input_is_not_sent() -> None:
    ran: list[dict[str, Any]] = []
    agent = agent_with(["never"], ran)
    chat = ChatWidget(agent)
    for blank in ("\u200b", "\u200b\u200b \n", "\ufeff\u2060", " \u200d\t"):
        chat.input.value = blank
        chat.send_button.click()
        assert "Nothing sent" in all_html(chat)
        assert len(agent.memory) == 0 and not agent.is_replying
    assert chat.send("\u200bhello") is not None  # visible text with a zero-width: sent
