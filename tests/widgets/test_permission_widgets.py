"""The suggested rule on approval cards, question forms, the rule list and background Stop,
driven headless (clicks are ``button.click()``; the agent is real)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from widget_helpers import act, all_html, until

from nb_hitl._render import esc
from nb_hitl.agent import PermissionPolicy, ReActAgent, ask_user
from nb_hitl.message import Msg, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import MsgHub
from nb_hitl.tool import Toolkit, tool_kind
from nb_hitl.widgets import AgentPanel, ChatWidget, HubPanel
from nb_hitl.widgets._approval import CARD_KEYS, ApprovalBox, ApprovalCard
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
    # the narrowest rule: this query's first word (issue 33), in words and in the rule box
    assert (
        "Or allow `search_notes` with query matching &#x27;re:^a\\b&#x27;" in card.rule_text.value
    )
    assert card.rule_box.value == "search_notes(query: re:^a\\b)"
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
    await until(lambda: rule.id in view.rule_ids, what="the rule row")
    html = all_html(view)
    assert "allow `search_notes` with query matching &#x27;notes*&#x27; for this session" in html
    assert EVIL not in html and "&lt;img" in html
    assert "(in code)" in html  # each rule says where it came from (SOURCE_TEXT)
    assert 'data-mode="allow_reads"' in panel.chat.status.value
    assert panel.parts.state["permissions"]["rules"][0]["id"] == rule.id  # drawn in the panel
    act(panel.parts, "permissions", name="revoke", args={"id": rule.id})  # the Revoke click
    await until(lambda: agent.permissions.rules == [], what="the revoke")
    await until(lambda: view.rule_ids == [], what="the redraw")  # "No permission rules": js/test
    act(panel.parts, "permissions", name="mode", args={"value": "deny_all"})  # the picker
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
    await until(lambda: view.task_ids, what="the task row")
    [task] = agent.toolkit.background_tasks
    assert "background <code>crawl</code>" in all_html(view)
    act(panel.parts, "permissions", name="stop", args={"id": task.task_id})  # the Stop click
    await until(lambda: not agent.toolkit.background_tasks, what="the stop")
    await until(lambda: not view.task_ids, what="the redraw")
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
    assert panel.permissions is not None and not panel.permissions.shown
    assert "nb-hitl-permission-mode" not in panel.chat.status.value
    hidden = AgentPanel(agent_with([], []), session=None, permissions=False)
    assert hidden.permissions is None
    assert 'data-mode="ask"' in hidden.chat.status.value
    panel.close()
    hidden.close()


# -- the rule box: the suggestion, editable (issue 33) --------------------------------------
def file_tools(ran: list[str]) -> Toolkit:
    toolkit = Toolkit()

    @tool_kind("edits", path_args=["path"])
    def write_file(path: str, text: str) -> str:
        """Write a file.

        Args:
            path: which.
            text: what.
        """
        ran.append(path)
        return "written"

    def deploy(target: str) -> str:
        """Deploy.

        Args:
            target: where.
        """
        ran.append(f"deploy {target}")
        return "deployed"

    toolkit.register_tool_function(write_file, needs_approval=True)
    toolkit.register_tool_function(deploy, always_ask=True)
    return toolkit


def writes(*paths: str) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[
            ScriptedToolCall("write_file", {"path": p, "text": "t"}, id=f"w{i}")
            for i, p in enumerate(paths)
        ]
    )


async def card_for(
    script: list[Any], ran: list[str]
) -> tuple[ReActAgent, ApprovalBox, ApprovalCard, asyncio.Task[Msg]]:
    model = ScriptedModel(script, tokens_per_second=1e6)
    agent = ReActAgent("Friday", "T.", model, toolkit=file_tools(ran))
    box = ApprovalBox(agent)
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await until(lambda: box.cards.waiting, what="a card")
    return agent, box, box.cards.waiting[0], task


async def test_the_rule_box_holds_the_suggestion_and_saves_what_the_person_typed() -> None:
    ran: list[str] = []
    agent, box, card, task = await card_for(
        [writes("notes/sub/a.txt", "notes/b.txt", "secret/k"), "Done."], ran
    )
    assert card.rule_box.value == "write_file(notes/sub/*)"  # the narrowest: this folder
    html = card.drawn_html()
    assert 'name="rule" value="write_file(notes/sub/*)"' in html
    assert "nb-hitl-rule-text" in html and "Or allow" in html
    # the page sends the box's text with the press (formValues): a broader rule, edited
    card.act("similar", {"rule": "  write_file(notes/**) ", "scope": "session"})
    await until(lambda: len(box.cards.waiting) == 1, what="the covered calls decided")
    [rule] = agent.permissions.rules
    assert (rule.written, rule.scope, rule.source) == ("write_file(notes/**)", "session", "session")
    assert box.cards.waiting[0].call_id == "w2"  # secret/k is not under notes/
    box.cards.waiting[0].deny_button.click()
    box.cards.cards["w2"].deny_ok.click()
    await task
    assert ran == ["notes/sub/a.txt", "notes/b.txt"]
    box.close()


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        (EVIL, "does not read"),
        ("write_file(notes/**", "does not read"),
        ("", "empty"),
        ("nope_tool", "can match nothing"),
        ("write_file(other/*)", "does not cover this call"),
        (f"write_file({EVIL})", "does not cover this call"),
    ],
)
async def test_text_that_is_no_rule_for_this_call_is_said_and_nothing_is_decided(
    typed: str, says: str
) -> None:
    ran: list[str] = []
    agent, box, card, task = await card_for([writes("notes/a.txt"), "Done."], ran)
    card.act("similar", {"rule": typed, "scope": "always"})
    assert says in card.error.value
    assert EVIL not in card.drawn_html() and "<img" not in card.error.value
    assert not card.decision and agent.permissions.rules == [] and ran == []
    assert f'value="{esc(typed)}"' in card.drawn_html()  # what was typed stays, escaped
    card.act("similar", {"rule": "write_file(notes/*)", "scope": "reply"})  # then a good one
    await task
    assert ran == ["notes/a.txt"] and card.error.value == ""
    box.close()


async def test_a_hostile_path_in_the_suggestion_stays_text_in_the_box() -> None:
    ran: list[str] = []
    hostile = '"><img src=x onerror=alert(1)>/a.txt'
    _agent, box, card, task = await card_for([writes(hostile), "Done."], ran)
    assert card.rule_box.value == 'write_file("><img src=x onerror=alert(1)>/*)'
    html = card.drawn_html()
    assert "<img" not in html and 'value="write_file(&quot;&gt;&lt;img' in html
    card.rule_button.click()  # the suggestion as it is covers the call
    await task
    assert ran == [hostile]
    box.close()


async def test_a_tool_that_always_asks_gets_no_rule_and_no_always_allow() -> None:
    ran: list[str] = []
    call = ScriptedTurn(tool_calls=[ScriptedToolCall("deploy", {"target": "prod"}, id="d1")])
    agent, box, card, task = await card_for([call, "Done."], ran)
    html = card.drawn_html()
    assert card.insists and "always asks a person" in html
    assert "nb-hitl-rule-text" not in html and "nb-hitl-allow-similar" not in html
    assert "nb-hitl-always" not in html and "nb-hitl-approve" in html
    for verb in ("similar", "always"):  # no such buttons: a press does nothing
        card.act(verb, {"rule": "deploy", "scope": "session"})
    assert not card.decision and agent.permissions.rules == [] and card.error.value == ""
    card.approve_button.click()
    await task
    assert ran == ["deploy prod"]
    box.close()


def test_the_card_keys_are_bound_wherever_cards_are_drawn() -> None:
    agent = agent_with([], [])
    chat = ChatWidget(agent)
    box = ApprovalBox(agent)
    hub = HubPanel(MsgHub([agent, agent_with([], [])]))
    for keys in (chat.shortcuts, box.shortcuts, hub.shortcuts):
        for binding in CARD_KEYS:
            assert binding in keys.bindings
    assert {b["within"] for b in CARD_KEYS} == {".nb-hitl-deny-reason", ".nb-hitl-rule-text"}
    for widget in (chat, box, hub):
        widget.close()


def test_a_tool_name_no_rule_can_hold_gets_the_words_and_no_box_to_type_in() -> None:
    agent = agent_with([], [])
    card = ApprovalCard(agent, ToolUseBlock(id="x1", name="a tool <b>", input={}))
    html = card.drawn_html()
    assert "No rule can name this tool" in html and "a tool &lt;b&gt;" in html
    assert card.rule_box.disabled and card.rule_button.disabled
    assert 'name="rule" value="" ' in html and " disabled" in html
