"""The suggested rule on approval cards, question forms, the rule list and background Stop,
driven headless (clicks are ``button.click()``; the agent is real)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from widget_helpers import all_html, until

from nb_hitl.agent import PermissionPolicy, ReActAgent, ask_user
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel, ChatWidget
from nb_hitl.widgets._approval import ApprovalCard
from nb_hitl.widgets._question import QuestionCard

EVIL = "<img src=x onerror=alert(1)>"


def tools(ran: list[str]) -> Toolkit:
    toolkit = Toolkit()

    def search_notes(query: str) -> str:
        """Search notes.

        Args:
            query: what.
        """
        ran.append(query)
        return "found"

    async def crawl(site: str) -> str:
        """Crawl.

        Args:
            site: which.
        """
        await asyncio.sleep(30)
        return "done"

    toolkit.register_tool_function(search_notes, needs_approval=True, read_only=True)
    toolkit.register_tool_function(crawl, async_execution=True)
    toolkit.register_tool_function(ask_user)
    return toolkit


def agent_with(script: list[Any], ran: list[str], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "T.", model, toolkit=tools(ran), **kwargs)


def searches(*queries: str) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[
            ScriptedToolCall("search_notes", {"query": q}, id=f"s{i}")
            for i, q in enumerate(queries)
        ]
    )


def rows_of(chat: ChatWidget, kind: type) -> list[Any]:
    return [r for r in chat.rows if isinstance(r, kind)]


async def test_allow_similar_approves_and_adds_the_suggested_rule_for_the_picked_scope() -> None:
    ran: list[str] = []
    agent = agent_with([searches("a x"), searches("a y"), "Done."], ran)
    chat = ChatWidget(agent)
    chat.send("search")
    await until(lambda: rows_of(chat, ApprovalCard), what="a card")
    [card] = rows_of(chat, ApprovalCard)
    # the narrowest rule: this query's first word (issue 33)
    assert (
        "Or allow `search_notes` with query matching &#x27;re:^a\\b&#x27;" in card.rule_text.value
    )
    card.rule_scope.value = "reply"
    card.rule_button.click()
    await until(lambda: not agent.is_replying, what="the reply")
    assert ran == ["a x", "a y"]  # the second call was covered by the rule
    assert agent.permissions.rules == []  # a reply rule ends with its reply
    chat.close()


async def test_the_panel_lists_rules_revokes_one_and_shows_the_mode() -> None:
    ran: list[str] = []
    agent = agent_with([], ran, permissions=PermissionPolicy("allow_reads"))
    rule = agent.permissions.allow("search_notes", {"query": "notes*"}, note=EVIL)
    panel = AgentPanel(agent, session=None)
    view = panel.permissions
    assert view is not None
    await until(lambda: rule.id in view.revoke_buttons, what="the rule row")
    html = all_html(view)
    assert "allow `search_notes` with query matching &#x27;notes*&#x27; for this session" in html
    assert EVIL not in html and "&lt;img" in html
    assert "(this agent)" in html  # each rule says where it came from
    assert 'data-mode="allow_reads"' in panel.chat.status.value
    view.revoke_buttons[rule.id].click()
    await until(lambda: agent.permissions.rules == [], what="the revoke")
    await until(lambda: "No permission rules" in all_html(view), what="the redraw")
    view.mode_picker.value = "deny_all"
    await until(lambda: agent.permissions.mode == "deny_all", what="the mode")
    await until(lambda: 'data-mode="deny_all"' in panel.chat.status.value, what="the status")
    panel.close()


async def test_a_background_task_is_listed_and_stopped_from_the_panel() -> None:
    agent = agent_with(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("crawl", {"site": "a"}, id="c1")]), "Started."],
        [],
    )
    panel = AgentPanel(agent, session=None)
    view = panel.permissions
    assert view is not None
    await agent(Msg("User", "crawl", "user"))  # the reply ends; the task keeps running
    await until(lambda: view.stop_buttons, what="the task row")
    [task] = agent.toolkit.background_tasks
    assert "background <code>crawl</code>" in all_html(view)
    view.stop_buttons[task.task_id].click()
    await until(lambda: not agent.toolkit.background_tasks, what="the stop")
    await until(lambda: not view.stop_buttons, what="the redraw")
    result = await agent.toolkit.view_task(task.task_id)
    assert result.is_interrupted
    panel.close()


async def test_the_question_form_refuses_a_bad_answer_and_sends_a_good_one() -> None:
    questions = [
        {"question": "Which database?", "header": "DB", "options": ["PostgreSQL", EVIL]},
        {"question": "Which features?", "options": ["auth", "search"], "multi_select": True},
    ]
    turn = ScriptedTurn(
        tool_calls=[ScriptedToolCall("ask_user", {"questions": questions}, id="q1")]
    )
    agent = agent_with([turn, "Thanks."], [])
    chat = ChatWidget(agent)
    chat.send("set up")
    await until(lambda: rows_of(chat, QuestionCard), what="the form")
    [card] = rows_of(chat, QuestionCard)
    assert chat.state == "waiting"
    html = all_html(card)
    assert EVIL not in html and "Which database?" in html
    first, second = card.fields
    assert [b.description for b in first.choices] == ["PostgreSQL", EVIL]
    card.submit.click()  # nothing picked
    await until(lambda: card.error.value, what="the refusal")
    assert "has no answer" in card.error.value and agent.pending_questions
    first.choices[1].value = True
    first.choose("PostgreSQL")  # one answer: picking it unpicks the other
    await until(lambda: not first.choices[1].value, what="the unpick")
    first.other.value = "MariaDB"  # a choice and free text for a one-answer question
    card.submit.click()
    await until(lambda: "takes one answer" in card.error.value, what="the second refusal")
    first.other.value = ""
    second.boxes[1].value = True
    second.other.value = "export"
    card.submit.click()
    await until(lambda: not agent.is_replying, what="the reply")
    assert card.answered == "answered" and "&#10004; Answered" in card.result.value
    assert card.submit.layout.display == "none"  # the form turned into the answers
    assert "Send answers" not in card.drawn_html() and "PostgreSQL" in card.drawn_html()
    result = next(
        b
        for m in agent.memory.messages
        for b in m.get_content_blocks("tool_result")
        if b.id == "q1"
    )
    assert json.loads(result.output_text()) == {
        "Which database?": "PostgreSQL",
        "Which features?": ["search", "export"],
    }
    chat.close()


async def test_a_question_answered_from_code_updates_the_form() -> None:
    turn = ScriptedTurn(
        tool_calls=[ScriptedToolCall("ask_user", {"questions": [{"question": "Name?"}]}, id="q1")]
    )
    agent = agent_with([turn, "Hi."], [])
    chat = ChatWidget(agent)
    chat.send("hello")
    await until(lambda: agent.pending_questions and rows_of(chat, QuestionCard), what="the form")
    [card] = rows_of(chat, QuestionCard)
    assert not card.fields[0].choices and not card.fields[0].boxes
    agent.answer(agent.pending_questions[0].question_id, "Ann")
    await until(lambda: card.answered, what="the form's answer")
    assert "Ann" in card.result.value
    await until(lambda: not agent.is_replying, what="the reply")
    chat.close()


def test_an_agent_without_tools_shows_no_permission_row_or_mode() -> None:
    agent = ReActAgent("Friday", "T.", ScriptedModel(["Hi."]))
    panel = AgentPanel(agent, session=None)
    assert panel.permissions is not None and panel.permissions.layout.display == "none"
    assert "nb-hitl-permission-mode" not in panel.chat.status.value
    hidden = AgentPanel(agent_with([], []), session=None, permissions=False)
    assert hidden.permissions is None
    assert 'data-mode="ask"' in hidden.chat.status.value
    panel.close()
    hidden.close()
