"""ask_user: the model (or a tool) asks structured questions; answers are checked and returned."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import (
    Question,
    QueueInput,
    ReActAgent,
    ScriptedInput,
    UserAgent,
    UserInputBase,
    UserInputData,
    ask_user,
)
from nb_hitl.agent.approvals._ask_user import answers_model, check_answers, parse_questions
from nb_hitl.events import QuestionAnswered, QuestionAsked
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit

DB = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "PostgreSQL", "description": "relational"}, "SQLite"],
}
FEATURES = {
    "question": "Which features?",
    "options": ["auth", "search", "export"],
    "multi_select": True,
}


def asking_agent(questions: Any, *more: Any, toolkit: Toolkit | None = None) -> ReActAgent:
    toolkit = toolkit or Toolkit()
    if "ask_user" not in toolkit.tools:
        toolkit.register_tool_function(ask_user)
    script = [
        ScriptedTurn(tool_calls=[ScriptedToolCall("ask_user", {"questions": questions}, id="q1")]),
        *more,
        "Thanks.",
    ]
    return ReActAgent(
        "Friday", "Test.", ScriptedModel(script, tokens_per_second=1e6), toolkit=toolkit
    )


def result_of(agent: ReActAgent, call_id: str = "q1") -> Any:
    for m in agent.memory.messages:
        for b in m.get_content_blocks("tool_result"):
            if b.id == call_id:
                return b
    raise AssertionError(f"no result for {call_id}")


async def asked(agent: ReActAgent) -> tuple[asyncio.Task[Msg], QuestionAsked]:
    task = asyncio.create_task(agent(Msg("User", "set it up", "user")))
    event = await wait_for_event(agent, lambda e: isinstance(e, QuestionAsked))
    return task, event  # type: ignore[return-value]


async def test_the_models_question_parks_the_reply_and_the_answer_is_its_tool_result() -> None:
    agent = asking_agent([DB, FEATURES])
    task, event = await asked(agent)
    assert agent.is_replying and agent.is_waiting_for_approval
    [pending] = agent.pending_questions
    assert pending.question_id == event.question_id and pending.call_id == "q1"
    assert [q.question for q in pending.questions] == ["Which database?", "Which features?"]
    with pytest.raises(
        ApprovalError, match="'MySQL' is not one of the choices for 'Which database"
    ):
        agent.answer(pending.question_id, {"Database": "MySQL", 1: ["auth"]})
    assert agent.pending_questions  # still waiting after a refused answer
    agent.answer(pending.question_id, {"Database": "SQLite", 1: ["auth", "export"]})
    reply = await task
    assert reply.get_text_content() == "Thanks."
    block = result_of(agent)
    assert json.loads(block.output_text()) == {
        "Which database?": "SQLite",
        "Which features?": ["auth", "export"],
    }
    assert not block.is_error
    with pytest.raises(ApprovalError, match="already answered at"):
        agent.answer(pending.question_id, {"Database": "SQLite", 1: ["auth"]})
    assert_history_valid(agent.memory.messages)


async def test_other_free_text_and_numbered_choices() -> None:
    agent = asking_agent([DB])
    task, event = await asked(agent)
    agent.answer(event.question_id, {"other": "MariaDB"})
    await task
    assert json.loads(result_of(agent).output_text()) == {"Which database?": "MariaDB"}
    [q] = parse_questions([DB])
    assert q.check("2") == "SQLite"
    with pytest.raises(ValueError, match="takes one answer"):
        q.check({"choices": ["SQLite"], "other": "x"})
    closed = parse_questions([{**DB, "allow_other": False}])[0]
    with pytest.raises(ValueError, match="only its choices"):
        closed.check({"other": "MariaDB"})


async def test_malformed_questions_from_the_model_are_an_error_result_and_the_reply_goes_on() -> (
    None
):
    agent = asking_agent([{"question": "Pick", "options": ["only one"]}])
    reply = await agent(Msg("User", "go", "user"))
    assert reply.get_text_content() == "Thanks."
    block = result_of(agent)
    assert block.is_error and "2 or more options" in block.output_text()
    assert agent.pending_questions == []


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ([], "1 to 4 questions"),
        ([DB] * 2, "same text"),
        ([{"question": f"q{i}?"} for i in range(5)], "at most 4"),
        ([{"question": "x", "options": ["a", "a"]}], "must differ"),
        ([{"question": "x", "multi_select": True}], "multi_select needs options"),
        ([{"question": "x", "bogus": 1}], "Malformed question"),
    ],
)
def test_malformed_questions_are_refused_with_a_reason(questions: Any, message: str) -> None:
    with pytest.raises(ApprovalError, match=message):
        parse_questions(questions)


def test_answers_are_checked_against_every_question() -> None:
    questions = parse_questions([DB, FEATURES, {"question": "Anything else?"}])
    ok = check_answers(questions, ["PostgreSQL", ["search"], "no"])
    assert ok == {
        "Which database?": "PostgreSQL",
        "Which features?": ["search"],
        "Anything else?": "no",
    }
    with pytest.raises(ApprovalError, match="No answer for 'Anything else"):
        check_answers(questions, {0: "SQLite", 1: ["auth"]})
    with pytest.raises(ApprovalError, match="No question 'Colour'"):
        check_answers(questions, {0: "SQLite", 1: ["auth"], 2: "x", "Colour": "red"})
    with pytest.raises(ApprovalError, match="given twice"):
        check_answers(questions, {0: "SQLite", 1: ["auth", "auth"], 2: "x"})


async def test_a_tool_can_ask_and_gets_the_answers_as_a_dict() -> None:
    toolkit = Toolkit()
    seen: list[Any] = []

    async def deploy(target: str) -> str:
        """Deploy.

        Args:
            target: where.
        """
        answers = await ask_user(
            [Question(question=f"Really deploy to {target}?", options=["yes", "no"])]
        )
        seen.append(answers)
        return "deployed" if answers[f"Really deploy to {target}?"] == "yes" else "cancelled"

    toolkit.register_tool_function(deploy)
    script = [
        ScriptedTurn(tool_calls=[ScriptedToolCall("deploy", {"target": "prod"}, id="d1")]),
        "Ok.",
    ]
    agent = ReActAgent(
        "Friday", "T.", ScriptedModel(script, tokens_per_second=1e6), toolkit=toolkit
    )
    task = asyncio.create_task(agent(Msg("User", "deploy", "user")))
    event = await wait_for_event(agent, lambda e: isinstance(e, QuestionAsked))
    assert event.call_id == "d1"  # type: ignore[attr-defined]
    threading.Thread(target=lambda: agent.answer(event.question_id, "no")).start()  # type: ignore[attr-defined]
    await task
    assert seen == [{"Really deploy to prod?": "no"}]
    assert result_of(agent, "d1").output_text() == "cancelled"


async def test_ask_user_outside_a_reply_says_how_to_use_it() -> None:
    with pytest.raises(ApprovalError, match="only be called while an agent replies"):
        await ask_user([Question(question="x?")])


async def test_interrupting_a_question_closes_it() -> None:
    agent = asking_agent([DB])
    task, event = await asked(agent)
    closed: list[Any] = []
    agent.subscribe(lambda e: closed.append(e) if isinstance(e, QuestionAnswered) else None)
    await agent.interrupt()
    reply = await task
    assert reply.is_interrupted and agent.pending_questions == []
    assert closed and closed[0].outcome == "interrupted"
    with pytest.raises(ApprovalError, match="No question"):
        agent.answer(event.question_id, "SQLite")
    assert_history_valid(agent.memory.messages)


async def test_an_input_source_answers_and_a_refused_answer_is_asked_again() -> None:
    agent = asking_agent([{**DB, "allow_other": False}])
    agent.question_input = ScriptedInput(['{"Which database?": "Oracle 7"}', '{"Database": "1"}'])
    reply = await agent(Msg("User", "go", "user"))
    assert reply.get_text_content() == "Thanks."  # Oracle 7 is no choice: asked again
    assert json.loads(result_of(agent).output_text()) == {"Which database?": "PostgreSQL"}

    typed = asking_agent([DB])  # a person's own words are an "Other" answer
    typed.question_input = ScriptedInput(["Oracle 7"])
    await typed(Msg("User", "go", "user"))
    assert json.loads(result_of(typed).output_text()) == {"Which database?": "Oracle 7"}


async def test_a_user_agent_answers_field_by_field_and_the_widget_may_answer_first() -> None:
    queue = QueueInput(["2"])
    agent = asking_agent([DB])
    agent.question_input = UserAgent("Ann", queue)
    reply = await agent(Msg("User", "go", "user"))
    assert reply.get_text_content() == "Thanks."
    assert json.loads(result_of(agent).output_text()) == {"Which database?": "SQLite"}

    second = asking_agent([DB])
    second.question_input = QueueInput([])  # never answers: the direct answer wins
    task, event = await asked(second)
    second.answer(event.question_id, "PostgreSQL")
    await task
    assert json.loads(result_of(second).output_text()) == {"Which database?": "PostgreSQL"}


def test_the_answers_model_asks_each_question_and_refuses_what_it_does_not_take() -> None:
    questions = parse_questions([{**DB, "allow_other": False}, FEATURES])
    model = answers_model(questions)
    assert model(answer_1="1", answer_2="auth, export").answer_1 == "1"
    with pytest.raises(ValueError, match="not one of the choices"):
        model(answer_1="MySQL", answer_2="auth")
    assert "1. PostgreSQL - relational" in model.model_fields["answer_1"].description  # type: ignore[operator]


async def test_a_question_parked_by_the_model_survives_a_restart(tmp_path: Path) -> None:
    agent = asking_agent([DB])
    task, _ = await asked(agent)
    path = agent.save_session(tmp_path / "s.json")
    await agent.interrupt()
    await task
    restarted = asking_agent([DB])
    restarted.model = ScriptedModel(["Thanks."], tokens_per_second=1e6)
    restarted.load_session(path)
    resumed = asyncio.create_task(restarted.resume_pending())
    event = await wait_for_event(restarted, lambda e: isinstance(e, QuestionAsked))
    restarted.answer(event.question_id, "SQLite")  # type: ignore[attr-defined]
    reply = await resumed
    assert reply.get_text_content() == "Thanks."
    assert json.loads(result_of(restarted).output_text()) == {"Which database?": "SQLite"}
    assert_history_valid(restarted.memory.messages)


class FormInput(UserInputBase):
    """An AgentScope-style input method that fills the form's fields at once."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def __call__(self, agent_id: str, agent_name: str, *args: Any, **kwargs: Any) -> Any:
        model = kwargs["structured_model"]
        self.asked.append(model)
        return UserInputData(blocks_input=[], structured_input={"answer_1": "SQLite"})


async def test_a_user_input_method_answers_with_the_structured_form() -> None:
    agent = asking_agent([DB])
    method = FormInput()
    agent.question_input = method
    await agent(Msg("User", "go", "user"))
    assert json.loads(result_of(agent).output_text()) == {"Which database?": "SQLite"}
    assert "1. PostgreSQL - relational" in method.asked[0].model_fields["answer_1"].description


TERMINAL_SCRIPT = """
import asyncio, json
from nb_hitl.agent import ReActAgent, TerminalUserInput, ask_user
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
toolkit = Toolkit()
toolkit.register_tool_function(ask_user)
q = {"question": "Which database?", "options": ["PostgreSQL", "SQLite"], "allow_other": False}
turn = ScriptedTurn(tool_calls=[ScriptedToolCall("ask_user", {"questions": [q]}, id="q1")])
agent = ReActAgent("Friday", "T.", ScriptedModel([turn, "Thanks."]), toolkit=toolkit)
agent.question_input = TerminalUserInput()
async def main():
    await agent(Msg("User", "go", "user"))
    for m in agent.memory.messages:
        for b in m.get_content_blocks("tool_result"):
            print("RESULT", b.output_text())
asyncio.run(main())
"""


def test_the_terminal_answers_and_is_asked_again_after_a_choice_not_offered() -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", TERMINAL_SCRIPT],
        input="MySQL\n2\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert 'RESULT {"Which database?": "SQLite"}' in run.stdout  # MySQL refused, 2 taken
