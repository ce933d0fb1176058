"""ChatWidget headless: send, stop mid-stream, resume, redirect, empty input, errors."""

from __future__ import annotations

import asyncio
import json
import threading

import ipywidgets as w
import pytest
from widget_helpers import all_html, all_state, until

from nb_hitl.agent import ReActAgent
from nb_hitl.exceptions import ModelStreamError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedTurn
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._chat import EMPTY_INPUT_NOTE
from nb_hitl.widgets._collapsed import CollapsedMessage
from nb_hitl.widgets._live_rows import LiveRow
from nb_hitl.widgets._row import Row

LONG = " ".join(f"word{i}" for i in range(400))


def slow_agent(script: list, tps: float = 60.0, **kw: object) -> ReActAgent:
    return ReActAgent(
        "Friday", "You are a test agent.", ScriptedModel(script, tokens_per_second=tps), **kw
    )


def live_views(chat: ChatWidget) -> list[LiveRow]:
    return [r for r in chat.rows if isinstance(r, LiveRow)]


async def test_send_button_streams_reply_and_freezes_it() -> None:
    agent = slow_agent(["Hello **there**, friend."], tps=500)
    chat = ChatWidget(agent)
    chat.input.value = "hi"
    chat.send_button.click()
    assert chat.input.value == ""
    assert chat.state == "running"
    assert not chat.stop_button.disabled
    await until(lambda: chat.state == "idle", what="reply finished")
    assert chat.stop_button.disabled
    assert chat.continue_button.disabled
    assert live_views(chat) == []  # the streamed row was drawn finished in its place
    (row,) = [r for r in chat.rows if "there" in all_html(r)]
    assert isinstance(row, Row) and "nb-hitl-live" not in all_html(row)
    assert "<strong>there</strong>" in all_html(row)
    assert [item.get("live") for item in chat.transcript.view.rows] == [None, None]
    assert [m.role for m in agent.memory.messages] == ["user", "assistant"]
    assert "hi" in all_html(chat.rows[0])


async def test_stop_mid_stream_interrupts_and_styles_what_was_kept() -> None:
    agent = slow_agent([LONG], tps=80)
    chat = ChatWidget(agent)
    chat.send("tell me a long story")
    await until(lambda: live_views(chat) and "word5" in all_html(live_views(chat)[0]))
    view = live_views(chat)[0]
    flushes_at_stop = chat.flushes
    chat.stop_button.click()
    # The interrupted style is drawn at once, before the reply has even seen the interrupt.
    assert "nb-hitl-interrupted" in view._dom_classes and agent.is_replying
    assert chat.state == "stopping"
    assert chat.stop_button.disabled and chat.stop_button.description == "Stopping…"
    await until(lambda: chat.state == "idle", what="interrupted message")
    # No streamed delta is drawn after Stop; only the kept message's final render.
    assert chat.flushes == flushes_at_stop
    assert chat.last_interrupted
    assert not chat.continue_button.disabled
    assert "Interrupted" in chat.input.placeholder
    assert view.finished and live_views(chat) == []
    kept_row = chat.transcript.get(view.key).drawn  # the streamed row, drawn finished
    assert isinstance(kept_row, Row) and "nb-hitl-interrupted" in kept_row.value
    assert "partial · interrupted" in kept_row.value
    last = chat.rows[-1]
    assert isinstance(last, Row) and "nb-hitl-interrupted" in last.value
    assert "[Interrupted]" in last.value
    assert "interrupted" in chat.status.text()
    partial = agent.memory.messages[1]
    assert partial.metadata.get("_partial")
    kept = partial.get_text_content() or ""
    assert 0 < len(kept) < len(LONG)
    assert kept.split()[-1] in all_html(kept_row)


async def test_continue_resumes_the_same_answer_drawn_as_one_with_a_seam() -> None:
    agent = slow_agent([LONG, " and here is the rest."], tps=80)
    chat = ChatWidget(agent)
    chat.send("go")
    await until(lambda: live_views(chat) and "word3" in all_html(live_views(chat)[0]))
    chat.stop()
    await until(lambda: chat.state == "idle")
    partial = agent.memory.messages[1]
    assert partial.metadata.get("_partial")
    chat.continue_button.click()
    await until(lambda: chat.state == "idle" and not chat.last_interrupted, what="resumed reply")
    answer = agent.memory.messages[-1]
    assert answer.metadata["continued_by"] == "assistant_prefix"  # agent.resume(), no message
    assert answer.metadata["continued_from"] == partial.id
    assert "Please continue." not in [m.get_text_content() for m in agent.memory.messages]
    kept = partial.get_text_content() or ""
    assert answer.get_text_content() == kept + " and here is the rest."
    # One answer: the partial and the interrupted rows fold into it; the seam is where it cut.
    (row,) = [r for r in chat.rows if "here is the rest" in all_html(r)]
    assert row is chat.rows[-1] and len(chat.rows) == 2  # the question and the answer
    drawn = all_html(row)
    assert drawn.count("nb-hitl-seam") == 1 and "resumed here" in drawn
    before, after = drawn.split('<span class="nb-hitl-seam"')
    assert before.rstrip().endswith(kept.split()[-1]) and "and here is the rest." in after
    assert "[Interrupted]" not in all_html(chat)
    assert chat.continue_button.disabled


async def test_continue_sends_what_was_typed_and_clears_the_box() -> None:
    """Issue 22 item 2: Continue used to send "Please continue." and leave the text."""
    agent = slow_agent([LONG, " - in one short paragraph."], tps=80)
    chat = ChatWidget(agent)
    chat.send("go")
    await until(lambda: live_views(chat) and "word3" in all_html(live_views(chat)[0]))
    chat.stop()
    await until(lambda: chat.state == "idle")
    chat.input.value = "Continue, but keep it to <b>one</b> short paragraph."
    chat.continue_button.click()
    assert chat.input.value == ""
    await until(lambda: chat.state == "idle" and not chat.last_interrupted, what="resumed reply")
    instruction = agent.memory.messages[-2]
    assert instruction.get_text_content() == "Continue, but keep it to <b>one</b> short paragraph."
    assert instruction.metadata["_resume_instruction"] is True
    prompt = agent.model.prompts[-1]  # type: ignore[attr-defined]
    assert prompt[-2]["content"] == instruction.get_text_content()  # right before the prefix
    assert "Please continue." not in [m.get_text_content() for m in agent.memory.messages]
    drawn = all_html(chat.rows[-1])
    assert "in one short paragraph." in drawn
    assert "resumed here · “Continue, but keep it to &lt;b&gt;one&lt;/b&gt; short" in drawn
    assert "<b>one</b>" not in drawn  # escaped
    assert len(chat.rows) == 2  # the instruction is quoted at the seam, not a row of its own


async def test_continue_with_nothing_to_resume_sends_the_text() -> None:
    agent = slow_agent(["Hello."], tps=1e6)
    chat = ChatWidget(agent)
    chat.input.value = "Carry on"
    assert chat.resume() is True  # nothing was interrupted: the text goes as a message
    assert chat.input.value == ""
    await until(lambda: chat.state == "idle" and "Hello." in all_html(chat))
    assert [m.get_text_content() for m in agent.memory.messages] == ["Carry on", "Hello."]


async def test_send_while_running_interrupts_and_redirects() -> None:
    agent = slow_agent([LONG, "Sure, switching to the new topic."], tps=80)
    chat = ChatWidget(agent)
    chat.send("first topic")
    await until(lambda: live_views(chat) and "word3" in all_html(live_views(chat)[0]))
    redirect = chat.send("actually, talk about something else")
    assert redirect is not None
    assert chat.state == "stopping"
    await until(
        lambda: chat.state == "idle" and "switching" in all_html(chat),
        what="redirected reply",
    )
    mem = agent.memory.messages
    assert [m.get_text_content() for m in mem if m.role == "user"] == [
        "first topic",
        "actually, talk about something else",
    ]
    roles = [(m.role, m.is_interrupted, bool(m.metadata.get("_partial"))) for m in mem]
    assert roles == [
        ("user", False, False),
        ("assistant", False, True),
        ("assistant", True, False),
        ("user", False, False),
        ("assistant", False, False),
    ]
    # The transcript shows the rows in memory order.
    html_rows = [all_html(r) for r in chat.rows]
    assert html_rows.index(next(h for h in html_rows if "[Interrupted]" in h)) < html_rows.index(
        next(h for h in html_rows if "something else" in h)
    )


@pytest.mark.parametrize("text", ["", "   ", "\n\t  \n"])
async def test_empty_input_sends_nothing_and_says_why(text: str) -> None:
    agent = slow_agent(["never used"])
    chat = ChatWidget(agent)
    chat.input.value = text
    chat.send_button.click()
    await asyncio.sleep(0.05)
    assert EMPTY_INPUT_NOTE in chat._note.value
    assert chat.input.value == text
    assert chat.rows == []
    assert len(agent.memory) == 0
    assert chat.state == "idle"
    assert chat.send(text) is None


async def test_one_megabyte_input_is_accepted() -> None:
    agent = slow_agent(["Got it."], tps=1000)
    chat = ChatWidget(agent)
    big = ("lorem ipsum <b>dolor</b> sit amet\n" * 40_000)[:1_000_000]
    chat.input.value = big
    chat.send_button.click()
    await until(lambda: chat.state == "idle")
    assert agent.memory.messages[0].get_text_content() == big
    [row] = chat.rows[:1]
    assert isinstance(row, CollapsedMessage)  # a preview, its size and "Show all"
    assert len(all_state(row)) < 10_000  # the megabyte is not sent to the front end
    assert "1,000,000 characters (1.0 MB)" in all_html(row)
    assert row.expand_button.description == "Show all (1.0 MB)"
    assert "<b>dolor" not in all_html(row) and "&lt;b&gt;dolor" in all_html(row)
    row.expand_button.click()
    page = all_html(row)
    assert "more characters" in page and len(page) > 1_000_000  # whole, on request only
    assert "<b>dolor" not in page and "&lt;b&gt;dolor" in page
    assert row.expand_button.layout.display == "none"


async def test_model_error_shows_in_transcript_and_widget_stays_usable() -> None:
    boom = RuntimeError("model exploded <img src=x onerror=alert(1)>")
    agent = slow_agent(
        [ScriptedTurn(text=LONG, error=boom, error_after_tokens=5), "Recovered fine."], tps=500
    )
    chat = ChatWidget(agent)
    chat.input.value = "please answer"
    chat.send_button.click()
    await until(lambda: chat.state == "error", what="error state")
    assert "error" in chat.status.text()
    assert chat.input.value == "please answer"  # nothing typed is lost
    # What streamed before the failure is kept and drawn as an error, not an interrupt; it
    # carries the error under its text, so no second row repeats it.
    (partial,) = [r for r in chat.rows if "word0" in all_html(r)]
    page = all_html(partial)
    head = " ".join(getattr(partial, "_dom_classes", ())) + page[:200]  # a live row's classes
    assert isinstance(partial, (Row, LiveRow)) and "nb-hitl-error" in head
    assert "nb-hitl-interrupted" not in head
    assert "model exploded &lt;img" in page and "<img" not in page
    assert all_html(chat.transcript.box).count("model exploded") == 1
    assert chat.stop_button.disabled and not chat.send_button.disabled
    chat.send_button.click()
    await until(lambda: chat.state == "idle", what="second reply")
    assert "Recovered fine." in all_html(chat.rows[-1])


async def test_a_failed_call_without_text_gets_an_error_row() -> None:
    boom = RuntimeError("model exploded <img src=x onerror=alert(1)>")
    chat = ChatWidget(slow_agent([boom], tps=500))
    chat.send("please answer")
    await until(lambda: chat.state == "error", what="error state")
    err = chat.rows[-1]
    assert isinstance(err, Row) and "nb-hitl-error" in err.value
    assert "model exploded &lt;img" in err.value and "<img" not in err.value
    assert all_html(chat.transcript.box).count("model exploded") == 1


async def test_a_broken_stream_says_its_error_once_and_offers_retry() -> None:
    """Walkthrough 04's broken stream: the ~250-character error was drawn three times (the
    partial row, an error row, the status line), the status said "Send again" beside the
    Retry button, and "After step" stayed enabled with no reply to stop."""
    detail = "The connection to the server at http://127.0.0.1:9/v1 broke after 13 chunk(s) "
    detail += "of the reply (RemoteProtocolError: peer closed connection); the partial reply "
    detail += "is kept. Retry (agent() with no message) to continue."
    boom = ModelStreamError(detail)
    agent = slow_agent([ScriptedTurn(text=LONG, error=boom, error_after_tokens=5)], tps=500)
    chat = ChatWidget(agent)
    chat.send("Tell me a story about a lighthouse keeper.")
    await until(lambda: chat.state == "error", what="error state")
    await asyncio.sleep(0.05)
    assert all_html(chat.transcript.box).count("peer closed connection") == 1
    status = chat.status.text()
    assert "ModelStreamError" in status and "peer closed" not in status
    assert "Retry asks again" in status and "Send again" not in all_html(chat)
    assert chat.tools.retry_button.layout.display != "none"
    assert chat.step_stop.button.disabled  # nothing to stop after
    assert len(status) < 140


async def test_tool_error_shows_compact_error_result() -> None:
    def explode(x: int) -> str:
        """Always fails.

        Args:
            x: anything.
        """
        raise ValueError("tool broke <script>alert(2)</script>")

    from nb_hitl.model import ScriptedToolCall
    from nb_hitl.tool import Toolkit

    tk = Toolkit()
    tk.register_tool_function(explode)
    agent = slow_agent(
        [ScriptedTurn(text="Trying.", tool_calls=[ScriptedToolCall("explode", {"x": 1})]), "Done."],
        tps=1000,
        toolkit=tk,
    )
    chat = ChatWidget(agent)
    chat.send("run it")
    await until(lambda: chat.state == "idle" and "Done." in all_html(chat))
    html = all_html(chat)
    assert "<script>" not in html and "&lt;script&gt;alert(2)" in html
    assert "nb-hitl-badge-error" in html and "<details" in html
    assert '<div class="nb-hitl-msg nb-hitl-role-tool nb-hitl-error">' in html


async def test_stop_clicked_from_another_thread_hops_to_the_loop() -> None:
    agent = slow_agent([LONG], tps=80)
    chat = ChatWidget(agent)
    chat.send("go")
    await until(lambda: live_views(chat) and "word3" in all_html(live_views(chat)[0]))
    t = threading.Thread(target=chat.stop_button.click)  # like a comm on a subshell thread
    t.start()
    t.join()
    await until(lambda: chat.state == "idle" and chat.last_interrupted, what="interrupt")
    assert agent.memory.messages[-1].is_interrupted


async def test_long_history_renders_only_recent_rows() -> None:
    memory = InMemoryMemory()
    memory.add_sync([Msg("User", f"message {i}", "user") for i in range(120)])
    agent = slow_agent(["x"], memory=memory)
    chat = ChatWidget(agent, max_rendered=50)
    assert len(chat.rows) == 50
    assert "message 119" in all_html(chat.rows[-1]) and "message 70" in all_html(chat.rows[0])
    assert (
        chat.transcript.earlier.layout.display != "none"
        and "70 hidden" in chat.transcript.earlier.description
    )
    chat.transcript.earlier.click()
    assert len(chat.rows) == 100
    chat.show_earlier()
    assert len(chat.rows) == 120 and chat.transcript.earlier.layout.display == "none"


async def test_append_widget_and_set_status_hooks() -> None:
    agent = slow_agent(["x"])
    chat = ChatWidget(agent)
    card = w.HTML("approval card")
    key = chat.append_widget(card)
    assert chat.rows[-1] is card
    chat.set_status("waiting", "approve the tool call")
    assert chat.state == "waiting" and "waiting for you" in chat.status.value
    assert chat.remove_widget(key) and card not in chat.rows
    with pytest.raises(ValueError, match="Unknown status"):
        chat.set_status("sleepy")


async def test_streaming_is_coalesced_and_segmented() -> None:
    paragraphs = "\n\n".join(" ".join(f"p{p}w{i}" for i in range(60)) for p in range(30))
    agent = slow_agent([paragraphs], tps=5000)
    chat = ChatWidget(agent)
    chat.send("stream")
    await until(lambda: chat.state == "idle", timeout=30)
    view = chat.live.newest
    assert view is not None and view.finished and live_views(chat) == []
    tokens = chat.status.streamed_tokens
    assert tokens > 1500
    assert chat.flushes < tokens / 10  # deltas coalesced, not one redraw per token
    assert view.sent < chat.flushes + 3  # one delta message per redraw
    html = all_html(chat.rows[-1])  # the final row, drawn once
    assert "p0w0" in html and "p29w59" in html
    assert html.count("<p>") == 30


async def test_stop_before_the_reply_starts_gives_the_message_back() -> None:
    agent = slow_agent(["never streamed"])
    chat = ChatWidget(agent)
    chat.input.value = "oops, not this"
    chat.send_button.click()  # the reply task has not run its first step yet
    assert chat.stop()
    await asyncio.sleep(0.05)
    assert chat.rows == [] and len(agent.memory) == 0
    assert chat.input.value == "oops, not this"  # nothing typed is lost
    assert chat.state == "idle" and chat.stop_button.disabled
    chat.send_button.click()  # and the widget still works
    await until(lambda: chat.state == "idle" and len(agent.memory) == 2, what="reply")


async def test_thinking_streams_as_a_count_and_ends_collapsed() -> None:
    thinking = " ".join(f"idea{i}" for i in range(40))
    agent = slow_agent([ScriptedTurn(thinking=thinking, text="The answer.")], tps=400)
    chat = ChatWidget(agent)
    seen: list[str] = []
    chat.send("think first")
    while chat.state != "idle":
        views = live_views(chat)
        if views:
            seen.append(views[0].deltas.extras)
        await asyncio.sleep(0.01)
    assert any("thinking… (" in v for v in seen)  # live: a compact count, not the text
    assert not any("idea30" in v for v in seen)
    assert live_views(chat) == []
    final = all_html(chat.rows[-1])  # the finished row
    assert "<details" in final and "thinking (40 words)" in final and "idea39" in final
    assert "The answer." in final


async def test_compression_during_a_reply_shows_a_note_row() -> None:
    from nb_hitl.agent import CompressionConfig

    memory = InMemoryMemory()
    memory.add_sync([Msg("User", f"old message {i} " * 8, "user") for i in range(12)])
    agent = ReActAgent(
        "Friday",
        "sys",
        ScriptedModel(responder=lambda messages, tools: "A short answer.", tokens_per_second=2000),
        memory=memory,
        compression_config=CompressionConfig(trigger_threshold=150, keep_recent=2),
    )
    chat = ChatWidget(agent)
    chat.send("new question")
    await until(lambda: chat.state == "idle" and "Memory compressed" in all_html(chat))
    note = next(r for r in chat.rows if "Memory compressed" in all_html(r))
    assert "nb-hitl-event" in all_html(note)
    assert any("compressed" in memory.marks_of(m.id) for m in memory.messages)


async def test_very_fast_streams_send_only_their_new_text_at_every_redraw() -> None:
    # Driven with chosen amounts of new text per redraw, so the rule is checked exactly and
    # not through the scripted model's real speed (which a loaded machine cannot guarantee).
    # The former HTML rows resent their growing tail and slowed down for fast streams; the
    # transcript's streaming rows send what is new, so every stream keeps the full rate.
    chat = ChatWidget(slow_agent([LONG], tps=40))
    live = chat.live
    sent: list[dict] = []
    chat._send_msg = lambda content: sent.append(content)  # what would go to the page
    msg = Msg("Friday", "", "assistant")
    for step in range(3):  # a very fast stream: 8,000 new characters per redraw
        msg.content = (msg.get_text_content() or "") + "x" * 8_000
        sent.clear()
        live.push(msg)
        live.flush()
        ops = [  # the transcript's ops, drawn inside the chat: its part's ``child`` ops
            op
            for batch in sent
            for child in batch["ops"]
            if child["op"] == "child" and child["key"] == "transcript"
            for op in child["ops"]
            if op["op"] == "live"
        ]
        assert len(ops) == 1, step
        # The new text, once (as plain text, or inside a finished block's HTML); nothing
        # that was sent before goes again.
        assert json.dumps(ops).count("x") == 8_000, step
    assert live.flushes == 3 and len(live.views) == 1 and live.interval == 1 / 20
    live.end()
    assert not live.views and chat.rows == []


async def test_delta_rows_keep_the_full_rate_however_fast_the_stream() -> None:
    chat = ChatWidget(slow_agent([LONG], tps=40))
    live = chat.live
    msg = Msg("Friday", "", "assistant")
    requested: list[float] = []
    request = live.budget.request
    live.budget.request = lambda who, at: (requested.append(at - live.last_flush), request(who, at))
    for _step in range(3):
        msg.content = (msg.get_text_content() or "") + "x" * 4_000
        live.push(msg)
        live.flush()
    # Each redraw asks for the next one a full-rate interval later, however much text came.
    assert requested == [pytest.approx(live.interval)] * 3
    live.end()


async def test_status_line_follows_the_phase_with_live_figures() -> None:
    from nb_hitl.demo import demo_toolkit
    from nb_hitl.model import ScriptedToolCall

    agent = slow_agent(
        [
            ScriptedTurn(
                first_token_delay=0.3,
                tool_calls=[ScriptedToolCall("calculate", {"expression": "3 * (4 + 5)"})],
            ),
            ScriptedTurn(text=LONG, first_token_delay=0.3),
            "Short.",
        ],
        tps=200,
        toolkit=demo_toolkit(),
    )
    chat = ChatWidget(agent)
    drawn: list[str] = []
    chat.status.observe(lambda change: drawn.append(chat.status.text()), names="value")
    chat.send("what is 3 * (4 + 5)?")
    await until(lambda: chat.state == "idle", what="reply finished")
    phases = [t.split(" · ")[1] for t in drawn if t.startswith("running · ")]
    phases = [p for i, p in enumerate(phases) if i == 0 or p != phases[i - 1]]
    assert phases[:1] == ["starting…"] and "thinking" in phases, drawn
    tool_at = phases.index("running tool calculate")
    assert "preparing tool call calculate" in phases[:tool_at]
    # After the tool: thinking, then the final answer streams; the tool is not shown any more.
    assert phases[tool_at + 1 :] == ["thinking", "streaming text"], drawn
    streaming = [t for t in drawn if "streaming text" in t]
    assert streaming and all(" · 0 tokens" not in t for t in streaming), streaming
    # A new reply never shows the previous reply's figures before its own.
    before = len(drawn)
    chat.send("again")
    assert drawn[before:] and "tokens" not in drawn[before], drawn[before:]
    await until(lambda: chat.state == "idle", what="second reply finished")


async def test_the_status_line_is_a_live_region_that_announces_words_not_figures() -> None:
    chat = ChatWidget(slow_agent(["Hello there."], tps=500))
    chat.send("hi")
    await until(lambda: chat.state == "idle", what="the reply")
    drawn = chat.status.value
    assert 'role="status"' in drawn and 'aria-live="polite"' in drawn
    # The elapsed time and token figures change every second: shown, not announced.
    assert '<span aria-hidden="true"> · ' in drawn and "tok/s</span>" in drawn
    assert "tok/s" in chat.status.text()
