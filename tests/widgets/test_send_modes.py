"""ChatWidget's send-while-running modes, headless: Steer, Interrupt & redirect, Queue."""

from __future__ import annotations

import asyncio

import pytest
from widget_helpers import all_html, until

from nb_hitl.agent import ReActAgent, UserAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._send_mode import STEER_KEPT_NOTE, STEER_NOTE

LONG = " ".join(f"word{i}" for i in range(400))


def tool_agent(gate: asyncio.Event) -> ReActAgent:
    tk = Toolkit()

    async def fetch(url: str) -> str:
        """Fetch.

        Args:
            url: the address.
        """
        await gate.wait()
        return f"page at {url}"

    tk.register_tool_function(fetch)
    script = [
        ScriptedTurn(text="Fetching.", tool_calls=[ScriptedToolCall("fetch", {"url": "a"})]),
        "Done, with your note.",
    ]
    return ReActAgent("Friday", "s", ScriptedModel(script, tokens_per_second=1e6), toolkit=tk)


def user_texts(agent: ReActAgent) -> list[str]:
    return [m.get_text_content() or "" for m in agent.memory.messages if m.role == "user"]


async def test_steer_mode_takes_the_message_in_at_the_next_step_nothing_cancelled() -> None:
    gate = asyncio.Event()
    agent = tool_agent(gate)
    chat = ChatWidget(agent, send_mode="steer")
    assert chat.send_button.description == "Send"
    chat.send("fetch a")
    await until(lambda: chat.status.detail.startswith("tool") or agent._open_calls, what="tool")
    await until(lambda: chat.send_button.description == "Steer", what="label")
    assert "steers" in chat.status.text()
    assert "steers" in chat.input.placeholder
    sent = chat.send("also note the date")
    assert sent is not None and chat.state == "running"  # not stopping: nothing cancelled
    assert STEER_NOTE in chat._note.value
    assert "also note the date" not in all_html(chat.transcript.box)  # not drawn yet
    gate.set()
    await until(lambda: chat.state == "idle", what="reply finished")
    msgs = agent.memory.messages
    assert not any(m.is_interrupted for m in msgs)
    roles = [m.role for m in msgs]
    assert roles == ["user", "assistant", "system", "user", "assistant"]
    assert msgs[3].metadata["_steered"] is True
    # drawn where it was taken in: after the tool result, before the final answer
    rows = [all_html(r) for r in chat.rows]
    at = next(i for i, h in enumerate(rows) if "also note the date" in h)
    assert at < next(i for i, h in enumerate(rows) if "Done, with your note." in h)
    assert at > next(i for i, h in enumerate(rows) if "Fetching." in h)
    assert "nb-hitl-badge-steered" in rows[at] and "nb-hitl-steered" in rows[at]
    assert "taken in at the step boundary" in rows[at]
    assert sum("nb-hitl-badge-steered" in h for h in rows) == 1  # only the steered row
    assert chat._note.value == "" and chat.send_button.description == "Send"
    assert chat.status.hint == ""


async def test_steer_mode_answers_in_a_new_reply_when_the_reply_ends_first() -> None:
    agent = ReActAgent(
        "Friday", "s", ScriptedModel([LONG, "Answering your steer."], tokens_per_second=200.0)
    )
    chat = ChatWidget(agent, send_mode="steer")
    chat.send("long story")
    await until(lambda: "word3" in all_html(chat), what="streaming")
    chat.send("and make it funny")
    await until(
        lambda: chat.state == "idle" and "Answering your steer." in all_html(chat), what="next"
    )
    assert user_texts(agent) == ["long story", "and make it funny"]
    assert agent.memory.messages[2].metadata["steered_at"] == "reply start"
    assert agent.pending_steering == []
    rows = [all_html(r) for r in chat.rows]
    at = next(i for i, h in enumerate(rows) if "and make it funny" in h)
    assert "nb-hitl-badge-steered" in rows[at] and "taken in at the reply start" in rows[at]
    assert at < next(i for i, h in enumerate(rows) if "Answering your steer." in h)


async def test_queue_mode_answers_after_this_reply() -> None:
    agent = ReActAgent(
        "Friday", "s", ScriptedModel([LONG, "Second answer."], tokens_per_second=400.0)
    )
    chat = ChatWidget(agent, send_mode="queue")
    chat.send("first")
    await until(lambda: "word3" in all_html(chat), what="streaming")
    assert chat.send_button.description == "Queue" and "queued" in chat.status.text()
    chat.send("second")
    assert chat.state == "running"
    await until(lambda: chat.state == "idle" and "Second answer." in all_html(chat), what="2nd")
    assert not any(m.is_interrupted for m in agent.memory.messages)
    assert user_texts(agent) == ["first", "second"]
    assert agent.memory.messages[1].get_text_content() == LONG


async def test_interrupt_mode_is_the_default_and_the_picker_changes_it() -> None:
    agent = ReActAgent("Friday", "s", ScriptedModel([LONG, "Redirected."], tokens_per_second=80.0))
    chat = ChatWidget(agent)
    assert chat.send_mode == "interrupt"
    chat.send("first")
    await until(lambda: "word3" in all_html(chat), what="streaming")
    assert chat.send_button.description == "Redirect"
    assert "interrupts and redirects" in chat.status.text()
    chat.mode_picker.value = "steer"
    await until(lambda: chat.send_button.description == "Steer", what="relabel")
    chat.send_mode = "interrupt"
    chat.send("other topic")
    assert chat.state == "stopping"
    await until(lambda: chat.state == "idle" and "Redirected." in all_html(chat), what="redirect")
    assert any(m.is_interrupted for m in agent.memory.messages)
    with pytest.raises(ValueError, match="send_mode must be"):
        ChatWidget(agent, send_mode="later")  # type: ignore[arg-type]


async def test_steered_row_escapes_its_text_and_name() -> None:
    gate = asyncio.Event()
    agent = tool_agent(gate)
    chat = ChatWidget(agent, send_mode="steer", user_name="<i>Ann</i>")
    chat.send("fetch a")
    await until(lambda: chat.send_button.description == "Steer", what="running")
    chat.send("<script>alert(1)</script> & <b>bold</b>")
    gate.set()
    await until(lambda: chat.state == "idle", what="reply finished")
    row = next(all_html(r) for r in chat.rows if "nb-hitl-badge-steered" in all_html(r))
    assert "<script>" not in row and "<b>bold" not in row and "<i>Ann" not in row
    assert "&lt;script&gt;" in row and "&lt;i&gt;Ann" in row


async def test_stop_with_steering_pending_starts_no_new_reply_and_keeps_it() -> None:
    gate = asyncio.Event()
    agent = tool_agent(gate)
    agent.model = ScriptedModel(
        [
            ScriptedTurn(text="Fetching.", tool_calls=[ScriptedToolCall("fetch", {"url": "a"})]),
            "Taken in after the stop.",
        ],
        tokens_per_second=1e6,
    )
    chat = ChatWidget(agent, send_mode="steer")
    chat.send("fetch a")
    await until(lambda: chat.send_button.description == "Steer", what="running")
    await until(lambda: bool(agent._open_calls), what="tool running")
    chat.send("use the mirror")
    assert chat.stop()
    await until(lambda: chat.state == "idle", what="stopped")
    await asyncio.sleep(0.05)
    assert chat.state == "idle" and not agent.is_replying  # Stop started no new reply
    assert esc_in(STEER_KEPT_NOTE, chat._note.value)
    assert [m.get_text_content() for m in agent.pending_steering] == ["use the mirror"]
    assert "use the mirror" not in user_texts(agent)
    gate.set()  # Continue may run the fetch again (closed unrun by the stop): let it finish
    chat.resume()
    await until(lambda: chat.state == "idle" and "after the stop" in all_html(chat), what="go")
    texts = user_texts(agent)
    assert texts[-1:] == ["use the mirror"]  # taken in first, once; Continue sent nothing
    assert agent.memory.messages[-1].metadata.get("continued_by")  # agent.resume() went on
    assert agent.pending_steering == [] and chat._note.value == ""


async def test_bad_input_is_refused_and_the_widget_stays_usable() -> None:
    gate = asyncio.Event()
    agent = tool_agent(gate)
    chat = ChatWidget(agent, send_mode="steer")
    with pytest.raises(ValueError, match="send_mode must be 'steer', 'interrupt' or 'queue'"):
        chat.send_mode = "sideways"  # type: ignore[assignment]
    assert chat.send_mode == "steer"
    with pytest.raises(ValueError, match="send_mode="):
        ChatWidget(agent, send_mode="Steer")  # type: ignore[arg-type]
    chat.send("fetch a")
    await until(lambda: chat.send_button.description == "Steer", what="running")
    assert chat.send("   \n ") is None  # empty: nothing steered, says why
    assert "Nothing sent" in chat._note.value and agent.pending_steering == []
    assert chat.state == "running"
    chat.send("real note")
    gate.set()
    await until(lambda: chat.state == "idle", what="reply finished")
    assert user_texts(agent) == ["fetch a", "real note"]


async def test_steer_with_a_user_agent_loop_reading_the_chat_queues_and_says_so() -> None:
    agent = ReActAgent(
        "Friday", "s", ScriptedModel([LONG, "Second answer."], tokens_per_second=400.0)
    )
    chat = ChatWidget(agent, send_mode="steer")
    user = UserAgent("User", chat.input_source())

    async def loop() -> None:
        msg: Msg | None = None
        for _ in range(2):
            msg = await user(msg)
            msg = await agent(msg)

    task = asyncio.ensure_future(loop())
    await until(lambda: chat.state == "waiting", what="waiting for the person")
    chat.send("first")
    await until(lambda: "word3" in all_html(chat), what="streaming")
    assert chat.send_button.description == "Queue" and "queued" in chat.status.text()
    chat.send("second")
    await task
    assert not any(m.is_interrupted for m in agent.memory.messages)
    assert user_texts(agent) == ["first", "second"]


def esc_in(text: str, html_value: str) -> bool:
    import html

    return html.escape(text, quote=True) in html_value


async def test_steer_while_an_approval_waits_is_taken_in_after_the_approved_call() -> None:
    ran: list[str] = []
    tk = Toolkit()

    def run_sql(query: str) -> str:
        """Run a SQL query.

        Args:
            query: the SQL.
        """
        ran.append(query)
        return "3 rows"

    tk.register_tool_function(run_sql, needs_approval=True)
    turn = ScriptedTurn(tool_calls=[ScriptedToolCall("run_sql", {"query": "select 1"}, id="q0")])
    model = ScriptedModel([turn, "Here are 3 rows."], tokens_per_second=1e6)
    agent = ReActAgent("Friday", "s", model, toolkit=tk)
    chat = ChatWidget(agent, send_mode="steer")
    chat.send("query the table")
    assert chat.approvals is not None
    await until(lambda: len(chat.approvals.waiting) == 1, what="approval card")  # type: ignore[union-attr]
    assert agent.is_replying
    assert chat.send("only count the rows") is not None  # steered: no interrupt, no new reply
    assert [m.get_text_content() for m in agent.pending_steering] == ["only count the rows"]
    assert "only count the rows" not in all_html(chat.transcript.box)
    chat.approvals.waiting[0].approve_button.click()  # type: ignore[union-attr]
    await until(lambda: chat.state == "idle" and "3 rows." in all_html(chat), what="finished")
    assert ran == ["select 1"]
    msgs = agent.memory.messages
    assert not any(m.is_interrupted for m in msgs)
    assert_history_valid(msgs)
    steered = next(i for i, m in enumerate(msgs) if m.metadata.get("_steered"))
    result = next(
        i
        for i, m in enumerate(msgs)
        if any(b.type == "tool_result" for b in m.get_content_blocks())
    )
    assert result < steered < len(msgs) - 1  # after the approved call's result, before the answer
    rows = [all_html(r) for r in chat.rows]
    at = next(i for i, h in enumerate(rows) if "only count the rows" in h)
    assert "nb-hitl-badge-steered" in rows[at]
    assert at < next(i for i, h in enumerate(rows) if "Here are 3 rows." in h)
