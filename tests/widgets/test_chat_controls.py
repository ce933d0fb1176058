"""The chat's everyday controls headless, with real agents on ScriptedModel: Copy, Clear and
Undo clear, Export (Markdown, HTML), Retry after a model error, the context gauge, and the
compression row with its Undo."""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest
from widget_helpers import all_html, until

from nb_hitl.agent import CompressionConfig, ReActAgent
from nb_hitl.demo import long_task_transcript
from nb_hitl.model import ScriptedModel, ScriptedTurn
from nb_hitl.token import TokenCounter
from nb_hitl.widgets import AgentPanel, ChatWidget

XSS = '<img src=x onerror="alert(1)">'
COUNTER = TokenCounter()


def agent(script: list[object], **kw: object) -> ReActAgent:
    return ReActAgent("Friday", "You are a test agent.", ScriptedModel(script), **kw)


def copies(chat: ChatWidget) -> list[str]:
    found = re.findall(r'class="nb-hitl-copy"[^>]*data-copy="([^"]*)"', all_html(chat))
    return [htmllib.unescape(t) for t in found]


async def test_each_message_has_a_copy_button_with_its_text() -> None:
    friday = agent(["Hello **there**.\n\n```py\nx = 1\n```"])
    chat = ChatWidget(friday)
    chat.send(f"hi {XSS}")
    await until(lambda: chat.state == "idle", what="reply")
    assert sorted(copies(chat)) == ["Hello **there**.\n\n```py\nx = 1\n```", f"hi {XSS}"]
    assert XSS not in all_html(chat)  # escaped in the attribute too
    assert chat.shortcuts.copy_buttons == ".nb-hitl-copy"  # the front end copies on a click


async def test_a_long_message_is_copied_from_the_kernel_not_sent_twice() -> None:
    long = "word " * 1000
    friday = agent([long])
    chat = ChatWidget(friday)
    chat.send("go")
    await until(lambda: chat.state == "idle", what="reply")
    answer = friday.memory.messages[-1]
    page = all_html(chat)
    assert f'data-copy-id="{answer.id}"' in page and page.count("word word") < 600
    assert chat._copy_text(answer.id) == answer.get_text_content() and len(long) > 2_000
    assert chat._copy_text("no-such-id") is None


async def test_clear_empties_chat_and_memory_and_undo_brings_both_back() -> None:
    friday = agent(["One.", "Two.", "Three."])
    chat = ChatWidget(friday)
    chat.send("first")
    await until(lambda: chat.state == "idle", what="reply")
    before = list(friday.memory.messages)
    chat.tools.clear_button.click()
    assert friday.memory.messages == [] and "Chat cleared: 2 messages" in all_html(chat)
    assert not [e for e in chat.transcript.entries if e.msg is not None]
    cleared = next(x for x in chat.rows if "nb-hitl-cleared" in x._dom_classes)
    (undo,) = cleared.buttons  # drawn by the transcript's front end after the note
    assert undo.description == "Undo clear" and "nb-hitl-undo-clear" in undo.cls
    undo.click()  # the page's action
    assert friday.memory.messages == before
    assert "Chat cleared" not in all_html(chat) and "One." in all_html(chat)

    # After a new message the clear cannot be undone (its button goes), memory stays new.
    assert chat.clear()
    chat.send("fresh start")
    await until(lambda: chat.state == "idle", what="reply")
    assert not chat.undo_clear()
    cleared = next(x for x in chat.rows if "nb-hitl-cleared" in x._dom_classes)
    assert cleared.buttons[0].layout.display == "none"  # drawn hidden
    assert next(i for i in chat.transcript.view.rows if i["id"] == cleared.key)["buttons"][0][
        "hidden"
    ]
    assert [m.get_text_content() for m in friday.memory.messages] == ["fresh start", "Two."]


async def test_clear_refuses_while_a_reply_runs() -> None:
    friday = ReActAgent("Friday", "sys", ScriptedModel(["x " * 400], tokens_per_second=50))
    chat = ChatWidget(friday)
    chat.send("go")
    await until(lambda: friday.is_replying, what="running")
    assert not chat.clear() and "Stop the reply first" in chat._note.value
    assert friday.memory.messages
    chat.stop()
    await until(lambda: chat.state == "idle", what="stopped")


async def test_export_writes_escaped_markdown_and_html_next_to_the_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a kernel's working directory is the notebook's folder
    friday = agent(["Here:\n\n```html\n<b>bold</b> ``` inside\n```\n\nand <script>x</script>"])
    chat = ChatWidget(friday)
    chat.send(f"show me {XSS}")
    await until(lambda: chat.state == "idle", what="reply")
    chat.tools.export_button.click()
    (md,) = tmp_path.glob("Friday-chat-*.md")  # noqa: ASYNC240
    text = md.read_text()
    assert "show me &lt;img src=x" in text and XSS not in text
    assert "and &lt;script>x&lt;/script>" in text  # no raw HTML outside code
    assert "```html\n<b>bold</b> ``` inside\n```" in text  # code stays as typed
    assert str(md.resolve()) in chat._note.value
    page = chat.export(tmp_path / "t.html", "html")
    body = page.read_text()
    assert body.startswith("<!DOCTYPE html>") and "<script>" not in body and XSS not in body
    assert "&lt;script&gt;x&lt;/script&gt;" in body
    with pytest.raises(ValueError, match="markdown' or 'html"):
        chat.export(tmp_path / "x.txt", "pdf")


async def test_retry_after_a_model_error_asks_again_without_a_second_question() -> None:
    friday = agent([ScriptedTurn(error=RuntimeError("server down")), "Recovered."])
    chat = ChatWidget(friday)
    chat.input.value = "please answer"
    chat.send_button.click()
    await until(lambda: chat.state == "error", what="error")
    assert chat.tools.retry_button.layout.display == ""
    assert chat.input.value == "please answer"  # restored, as before
    chat.tools.retry_button.click()
    await until(lambda: chat.state == "idle", what="retried")
    assert chat.input.value == ""  # the restored text was what got retried
    texts = [m.get_text_content() for m in friday.memory.messages]
    assert texts.count("please answer") == 1 and texts[-1] == "Recovered."
    assert chat.tools.retry_button.layout.display == "none"
    assert not chat.retry()  # nothing to retry now


async def test_the_context_gauge_counts_the_prompt_against_the_threshold() -> None:
    cfg = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=5000, keep_recent=0)
    friday = agent(["Fine."], compression_config=cfg)
    await friday.memory.add(long_task_transcript()[:6])
    panel = AgentPanel(friday, session=None)
    chat = panel.chat
    tokens = friday.compression_plan().total_tokens
    # counted once the cell that made the panel returns: the rows go to the page first
    assert chat.status.context is None
    await until(lambda: chat.status.context == (tokens, 5000, True), what="first count")
    assert f"context {tokens:,} / 5,000 tokens" in chat.status.value
    cfg.trigger_threshold = 7000  # the explorer's Apply, or code: the gauge follows
    await until(lambda: chat.status.context == (tokens, 7000, True), what="gauge follows")
    chat.send("and now?")
    await until(lambda: chat.state == "idle", what="reply")
    await until(lambda: chat.status.context[0] > tokens, what="gauge recounts")  # type: ignore[index]
    panel.close()


async def test_a_compression_row_says_what_was_folded_and_undo_brings_it_back() -> None:
    cfg = CompressionConfig(agent_token_counter=COUNTER, trigger_threshold=3000, keep_recent=2)
    friday = agent(["Done."], compression_config=cfg)
    await friday.memory.add(long_task_transcript()[:30])
    chat = ChatWidget(friday)
    before = friday.compression_plan().total_tokens
    chat.send("go on")
    await until(lambda: chat.state == "idle" and chat.compressions.rows, what="compressed")
    (text, undo, undone) = chat.compressions.rows[0]
    assert not undone and not undo.disabled
    found = re.search(r'data-before="(\d+)" data-after="(\d+)"', text.value)
    assert found and int(found.group(1)) > int(found.group(2))
    assert int(found.group(1)) >= before
    assert "what was folded" in text.value and "<li><b>" in text.value
    assert f"{int(found.group(1)):,} → {int(found.group(2)):,} tokens" in text.value
    undo.click()
    await until(lambda: chat.compressions.rows[0][2], what="undone")
    assert undo.disabled and "nb-hitl-undone" in text.value
    assert not friday.can_undo_compression
    assert friday.compression_plan().total_tokens > int(found.group(2))


def test_no_gauge_for_an_agent_without_a_plan() -> None:
    from nb_hitl.agent import UserAgent

    chat = ChatWidget(UserAgent("Ann"))
    assert chat.status.context is None and "nb-hitl-gauge" not in chat.status.value


async def test_set_limits_keeps_controls_off_with_why_until_lifted() -> None:
    friday = agent(["One.", "Two."])
    chat = ChatWidget(friday)
    why = f"Not here: {XSS}"
    chat.set_limits({"clear": why, "send": "read-only"})
    clear, send = chat.tools.clear_button, chat.send_button
    assert clear.disabled and clear.tooltip == why
    page = chat.controls.state
    assert page["clear"]["disabled"] and page["clear"]["tooltip"] == why  # set as a title
    assert page["send"]["disabled"] and page["send"]["tooltip"] == "read-only"
    assert XSS not in chat.controls.drawn_html()  # a reason is text, never HTML
    send.disabled = False  # the chat's own state changes leave a limited control off
    clear.tooltip = "Clear the chat"
    assert send.disabled and chat.controls.state["send"]["disabled"]
    assert chat.controls.state["clear"]["tooltip"] == why
    chat.set_limits({"clear": why})  # replaces: Send comes back as the chat left it
    assert not send.disabled and not chat.controls.state["send"]["disabled"]
    chat.send("first")
    await until(lambda: chat.state == "idle", what="reply")
    assert clear.disabled and len(friday.memory.messages) == 2
    chat.set_limits({})
    assert not clear.disabled and clear.tooltip == "Clear the chat"
    assert chat.controls.state["clear"] == {**page["clear"], "disabled": False,
                                            "tooltip": "Clear the chat"}  # fmt: skip


def test_set_limits_refuses_a_name_that_is_no_control_and_changes_nothing() -> None:
    chat = ChatWidget(agent(["x"]))
    chat.set_limits({"clear": "no"})
    with pytest.raises(ValueError, match=r"no control named 'status', 'typo'.*clear"):
        chat.set_limits({"typo": "x", "status": "y", "send": "z"})
    assert chat.controls.limits == {"clear": "no"} and not chat.send_button.disabled
