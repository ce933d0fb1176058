"""AgentPanel headless: hostile strings are escaped everywhere, no secret reaches a trait,
the UserAgent loop runs through the widget, and big memories render only recent rows."""

from __future__ import annotations

import asyncio
from html.parser import HTMLParser
from pathlib import Path

import pytest
from widget_helpers import RecordingCounter, act, all_html, all_state, counted, record_part, until

import nb_hitl
from nb_hitl.agent import CompressionConfig, ReActAgent, UserAgent
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit
from nb_hitl.widgets import AgentPanel, ChatWidget
from nb_hitl.widgets._inspector import COUNTING_NOTE
from nb_hitl.widgets._plan_view import note_html

XSS_NAME = '<img src=x onerror="alert(1)">'
XSS_TEXT = "<script>alert('text')</script> and <img src=x onerror=alert(2)>"
XSS_TOOL = "<script>alert('tool')</script><img src=y onerror=alert(3)>"
XSS_MODEL = (
    "Here: <script>alert('model')</script> <img src=z onerror=alert(4)> "
    "[click](javascript:alert(5)) <a href='javascript:alert(6)'>x</a>"
)


class _Elements(HTMLParser):
    """Collects the elements and attributes a browser would build from an HTML string."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((k, v or "") for k, v in attrs)


def no_live_markup(html: str) -> None:
    """No script or img element, no event-handler attribute, no javascript: link."""
    parser = _Elements()
    parser.feed(html)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert not [k for k, _ in parser.attrs if k.startswith("on")]
    assert not [v for k, v in parser.attrs if k in ("href", "src") and "javascript" in v.lower()]


async def test_hostile_strings_are_escaped_in_text_tool_output_and_agent_name() -> None:
    def fetch(url: str) -> str:
        """Fetch a page.

        Args:
            url: the page.
        """
        return XSS_TOOL

    tk = Toolkit()
    tk.register_tool_function(fetch)
    script = [
        ScriptedTurn(text=XSS_MODEL, tool_calls=[ScriptedToolCall("fetch", {"url": XSS_TEXT})]),
        XSS_MODEL,
    ]
    agent = ReActAgent(
        XSS_NAME,
        "sys",
        ScriptedModel(script, tokens_per_second=3000),
        toolkit=tk,
        compression_config=CompressionConfig(enable=False, trigger_threshold=50, keep_recent=1),
    )
    panel = AgentPanel(agent, chat={"user_name": XSS_NAME})
    panel.chat.send(XSS_TEXT)
    await until(lambda: panel.chat.state == "idle" and len(agent.memory) == 4, what="reply")
    assert panel.inspector is not None
    panel.inspector.refresh()
    html = all_html(panel)
    assert "&lt;script&gt;alert(&#x27;model&#x27;)" in html  # shown, as text
    assert "&lt;script&gt;alert(&#x27;tool&#x27;)" in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html  # the agent name
    no_live_markup(html)
    # The same holds for the interrupted style and the error row.
    agent2 = ReActAgent(XSS_NAME, "sys", ScriptedModel([RuntimeError(XSS_TEXT)]))
    chat2 = ChatWidget(agent2)
    chat2.send("x")
    await until(lambda: chat2.state == "error")
    no_live_markup(all_html(chat2))
    assert "&lt;script&gt;" in all_html(chat2)


async def test_no_api_key_or_client_in_any_widget_trait() -> None:
    from nb_hitl.model._openai import OpenAIChatModel

    secret = "sk-test-THIS-IS-A-SECRET-0123456789"
    model = OpenAIChatModel("gpt-4o-mini", api_key=secret, base_url="http://127.0.0.1:9/v1")
    agent = ReActAgent("Friday", "sys", model)
    panel = AgentPanel(agent)
    state = all_state(panel)
    assert secret not in state and "THIS-IS-A-SECRET" not in state
    assert "OpenAIChatModel" not in state and "AsyncOpenAI" not in state
    assert "api_key" not in state


async def test_user_agent_loop_runs_through_the_widget() -> None:
    long = " ".join(f"w{i}" for i in range(300))
    agent = ReActAgent(
        "Friday", "sys", ScriptedModel([long, "Fine, resumed."], tokens_per_second=80)
    )
    chat = ChatWidget(agent)
    user = UserAgent("User", chat.input_source())
    turns: list[Msg] = []

    async def conversation() -> None:
        msg = None
        while True:
            msg = await user(msg)
            msg = await agent(msg)
            turns.append(msg)

    task = asyncio.get_running_loop().create_task(conversation())
    try:
        await until(lambda: chat.state == "waiting", what="waiting for you")
        assert "waiting for you" in chat.status.value
        chat.input.value = "start"
        chat.send_button.click()
        await until(lambda: chat.state == "running" and "w3" in all_html(chat), what="stream")
        chat.stop_button.click()
        await until(lambda: chat.state == "waiting" and turns, what="back to the person")
        assert turns[-1].is_interrupted
        assert not chat.continue_button.disabled and "Interrupted" in chat.input.placeholder
        chat.continue_button.click()
        await until(lambda: len(turns) == 2, what="resumed reply")
        assert turns[-1].get_text_content() == "Fine, resumed."
        assert [m.get_text_content() for m in agent.memory.messages if m.role == "user"] == [
            "start",
            "Please continue.",
        ]
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_chat_whose_loop_ended_says_so_in_its_transcript_and_answers_directly() -> None:
    agent = ReActAgent("Friday", "sys", ScriptedModel(["First answer.", "Direct answer."]))
    chat = ChatWidget(agent)
    user = UserAgent("User", chat.input_source())

    async def conversation() -> None:
        msg = None
        while True:
            msg = await user(msg)
            msg = await agent(msg)

    task = asyncio.get_running_loop().create_task(conversation())
    await until(lambda: chat.state == "waiting", what="waiting for you")
    chat.send("first")
    await until(lambda: chat.state == "waiting" and len(agent.memory.messages) == 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert chat.state == "idle" and "Your turn" not in chat.input.placeholder
    chat.send("after the loop")  # answered directly; the line about the loop stays
    await until(lambda: chat.state == "idle" and len(agent.memory.messages) == 4)
    assert agent.memory.messages[-1].get_text_content() == "Direct answer."
    texts = [getattr(r, "value", "") for r in chat.rows]
    gone = next(i for i, t in enumerate(texts) if "conversation loop" in t)
    after = next(i for i, t in enumerate(texts) if "after the loop" in t)
    assert "nb-hitl-event" in texts[gone] and gone < after


async def test_show_builds_a_panel_over_a_big_memory_with_bounded_rows() -> None:
    memory = InMemoryMemory()
    memory.add_sync(
        [
            Msg("User" if i % 2 == 0 else "Friday", f"m{i}", "user" if i % 2 == 0 else "assistant")
            for i in range(2000)
        ]
    )
    agent = ReActAgent(
        "Friday",
        "sys",
        ScriptedModel(["ok"]),
        memory=memory,
        compression_config=CompressionConfig(trigger_threshold=1000, keep_recent=5),
    )
    panel = nb_hitl.show(agent)
    assert isinstance(panel, AgentPanel) and panel.inspector is not None
    assert len(panel.chat.rows) == 50
    assert panel.inspector.state["table"].count("<tr") == 1 + 200  # before the count too
    await counted(panel.inspector)
    assert panel.inspector.state["table"].count("<tr") == 1 + 200
    assert "1,800 earlier message(s)" in panel.inspector.state["table"]
    act(panel.inspector, "show_all", value=True)
    assert panel.inspector.state["table"].count("<tr") >= 1 + 2000


def test_import_nb_hitl_does_not_import_widgets() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nb_hitl; print('ipywidgets' in sys.modules, 'nb_hitl.widgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


async def test_a_newer_panel_for_the_same_agent_detaches_the_older_one() -> None:
    agent = ReActAgent("Friday", "sys", ScriptedModel(["one", "two"], tokens_per_second=2000))
    old = AgentPanel(agent, session=None)
    new = AgentPanel(agent, session=None)  # the cell was re-run
    assert old.chat.detached and old.chat.send_button.disabled
    assert "no longer follows" in old.chat._note.value
    assert old.inspector is not None and "compress" in old.inspector.controls_off
    new.chat.send("hello")
    await until(lambda: new.chat.state == "idle" and len(agent.memory) == 2)
    assert old.chat.rows == [] and old.chat.flushes == 0  # the stale one drew nothing
    assert not new.chat.detached and not new.chat.send_button.disabled
    other = ChatWidget(ReActAgent("Other", "sys", ScriptedModel(["x"])))
    assert not new.chat.detached and not other.detached  # other agents are not affected


async def test_the_session_bar_and_permissions_list_are_parts_of_one_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import comm
    from widget_helpers import RecordingComm

    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    agent = ReActAgent("Friday", "sys", ScriptedModel(["Hi."]))
    panel = AgentPanel(agent, session=tmp_path / "s.json")
    assert panel.session is not None and panel.permissions is not None
    assert panel.session.comm is None and panel.permissions.comm is None  # drawn by panel.parts
    assert panel.parts.comm is not None
    assert set(panel.parts.state) >= {"session", "permissions", "limits"}
    act(panel.parts, "session", name="save", args={"path": str(tmp_path / "other.json")})
    assert (tmp_path / "other.json").exists() and panel.session.saves == 1
    assert "Saved to" in panel.parts.state["session"]["note"]
    panel.close()


async def test_a_panel_is_drawn_before_any_token_is_counted() -> None:
    counter = RecordingCounter()
    config = CompressionConfig(trigger_threshold=1000, keep_recent=5, agent_token_counter=counter)
    agent = ReActAgent("Friday", "sys", ScriptedModel(["ok"]), compression_config=config)
    for i in range(30):
        turn = [Msg("User", f"question {i}", "user"), Msg("Friday", "ok", "assistant")]
        agent.memory.add_sync(turn)
    panel = nb_hitl.show(agent, session=None)
    inspector = panel.inspector
    assert inspector is not None
    sent = record_part(inspector)
    assert counter.used == 0, "show() counted tokens before its cell returned"
    first = panel.view_state["inspector"]  # what the page draws first
    assert first["note"] == note_html(COUNTING_NOTE) and "counting tokens…" in first["header"]
    assert "of 1,000 (trigger_threshold)" in first["header"] and first["table"].count("<tr") == 61
    assert len(panel.chat.rows) == 50 and panel.chat.status.context is None
    await counted(inspector)
    assert counter.used > 0 and inspector.plan == agent.compression_plan()
    [ops] = [batch["ops"] for batch in sent]  # the first plan: one batch, through the panel
    assert {op["key"] for op in ops} >= {"header", "bar", "plan", "table", "chart", "note"}
    drawn = panel.view_state["inspector"]
    assert drawn["header"] == inspector.view_state["header"] and drawn["note"] == ""
    assert f"{agent.compression_plan().total_tokens:,} tokens" in drawn["header"]
    await until(lambda: panel.chat.status.context is not None, what="the chat's gauge")
    panel.close()
