"""The panel attached to nb_hitl's own AG-UI server (``python -m nb_hitl.serve``, a real process).

The same guarantees as in the kernel: streaming, Stop mid-stream (the server interrupts its
agent; the client adopts the server's interrupted message), Continue mid-sentence (the
server's ``agent.resume()``, drawn as one answer with its seam), approvals, steering while a
reply runs, and a thread's history back after the server restarts or in a new client.
"""

from __future__ import annotations

import html
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from agui_servers import AguiServer, nb_hitl_server
from remote_helpers import Attach, approval_card, idle, question_form
from widget_helpers import all_html, until

from nb_hitl.events import Notice
from nb_hitl.remote import RemoteAgent

pytest.importorskip("nb_hitl.serve")


async def streamed(agent: RemoteAgent, chars: int) -> None:
    seen: list[str] = []
    sub = agent.subscribe(lambda ev: seen.append(getattr(ev, "delta", "")))
    await until(lambda: len("".join(seen)) > chars, what="streamed text")
    sub.close()


async def test_stream_stop_and_continue_mid_sentence(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(nb_hitl_agui.url)
    await until(lambda: agent.capabilities, what="the server's capabilities")
    assert agent.capabilities["stop"] and agent.capabilities["continue"]
    assert "continue" not in agent.unsupported and "steer" not in agent.unsupported
    panel.chat.send("tell me a story")
    await streamed(agent, 80)
    panel.chat.stop_button.click()
    await idle(panel)
    partial, interrupted = agent.memory.messages[-2:]
    assert interrupted.is_interrupted and partial.metadata["_partial"]
    cut = partial.get_text_content() or ""
    assert cut.startswith("You said: tell me a story.") and len(cut) < 600
    assert agent.can_resume and not panel.chat.continue_button.disabled
    panel.chat.continue_button.click()  # the server's agent.resume(): the same answer goes on
    await idle(panel)
    ids = [m.id for m in agent.memory.messages]
    assert len(ids) == len(set(ids))  # nothing doubled by the sync with the server
    assert sum(1 for m in agent.memory.messages if m.is_interrupted) == 1
    last = agent.memory.messages[-1]
    assert last.metadata.get("continued_from") == partial.id
    assert (last.get_text_content() or "").startswith(cut)  # continued from the cut


async def test_the_capability_note_is_the_servers_answer(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    """The note of controls that are off is drawn again once the server said what it can do."""
    agent, panel = attach(nb_hitl_agui.url)
    await until(lambda: agent.capabilities, what="the server's capabilities")
    note = f"some controls are off ({len(agent.unsupported)})"
    await until(lambda: note in all_html(panel), what="the note redrawn")
    page = all_html(panel)
    assert "no steering endpoint" not in page and "cannot continue" not in page
    assert panel.remote is not None  # the same panel, the same answer
    assert "server can: continue, history" in panel.remote.text


async def test_a_run_leaves_no_skipped_event_or_stale_state_note(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    """ag-ui-protocol 1.0 parses STATE_DELTA operations into objects: they apply, silently."""
    agent, panel = attach(nb_hitl_agui.url)
    notes: list[str] = []
    agent.subscribe(lambda ev: notes.append(ev.text) if isinstance(ev, Notice) else None)
    panel.chat.send("hello there")
    await idle(panel)
    card = await approval_card(panel, "please deploy")  # a run that parks and resumes
    card.approve_button.click()
    await idle(panel)
    assert notes == []
    page = all_html(panel)
    assert "skipped" not in page and "may be stale" not in page
    assert isinstance(agent.remote_state, dict)
    assert agent.remote_state.get("replyState") != "running"  # the deltas were applied


def seen(widget: Any) -> str:
    """What a reader sees in a widget: its HTML's text (a streamed row: what the page drew)."""
    if hasattr(widget, "drawn_html"):
        markup = widget.drawn_html()
    elif isinstance(getattr(widget, "value", None), str):
        markup = widget.value
    else:
        return "".join(seen(child) for child in getattr(widget, "children", ()))
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def rows_text(panel: Any) -> list[str]:
    """What a reader sees in each transcript row."""
    return [seen(row) for row in panel.chat.rows]


async def test_continue_with_an_instruction_is_drawn_as_for_a_local_agent(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    """Stop, type an instruction, Continue: the server finishes the cut sentence, then follows
    it; the panel draws one answer with its seam and no stand-in row memory lacks."""
    agent, panel = attach(nb_hitl_agui.url)
    await until(lambda: agent.capabilities, what="the server's capabilities")
    panel.chat.send("Tell me about interruptions.")
    await streamed(agent, 120)
    panel.chat.stop_button.click()
    await idle(panel)
    partial = agent.memory.messages[-2]
    cut = partial.get_text_content() or ""
    panel.chat.input.value = "Finish in one sentence."
    panel.chat.continue_button.click()
    await idle(panel)
    last = agent.memory.messages[-1]
    text = last.get_text_content() or ""
    assert last.metadata.get("continued_from") == partial.id and text.startswith(cut)
    assert "As you asked (Finish in one sentence.)" in text  # the instruction, followed
    assert text.count("You said:") == 1  # the same answer, not a new one about the partial
    said = "Finish in one sentence."
    instruction = next(m for m in agent.memory.messages if m.get_text_content() == said)
    assert instruction.metadata.get("_resume_instruction")
    interrupted = [m for m in agent.memory.messages if m.is_interrupted]
    assert len(interrupted) == 1
    rows = rows_text(panel)
    assert sum("[Interrupted]" in r for r in rows) <= len(interrupted)  # no stand-in row
    assert not any("partial · interrupted" in r for r in rows)  # drawn as one answer
    assert len(rows) == 2, rows  # the question, and the answer with its seam
    assert "resumed here" in rows[-1] and "Finish in one sentence." in rows[-1], rows


async def test_approval_card_and_resume(nb_hitl_agui: AguiServer, attach: Attach) -> None:
    agent, panel = attach(nb_hitl_agui.url)
    card = await approval_card(panel, "please deploy")
    assert card.tool_name == "deploy" and card.call.input == {"env": "prod", "version": "1.2"}
    card.edit_button.click()
    card.edit_area.value = '{"env": "staging", "version": "1.3"}'
    card.edit_ok.click()
    await idle(panel)
    assert card.decision == "edited"
    assert agent.memory.messages[-1].get_text_content() == "Done: deployed 1.3 to staging."


async def test_steering_while_the_reply_runs(nb_hitl_agui: AguiServer, attach: Attach) -> None:
    agent, panel = attach(nb_hitl_agui.url)
    await until(lambda: agent.capabilities, what="the server's capabilities")
    panel.chat.send_mode = "steer"
    panel.chat.send("please deploy")  # parks on approval: a step boundary comes after it
    await until(lambda: panel.chat.approvals and panel.chat.approvals.waiting, what="a card")
    panel.chat.send("and say hello to the team")
    await until(
        lambda: (
            any(m.metadata.get("_steered") for m in agent.memory.messages) or agent.pending_steering
        ),
        what="the steering taken in",
    )
    panel.chat.approvals.waiting[0].approve_button.click()  # type: ignore[union-attr]
    await idle(panel)
    texts = [m.get_text_content() or "" for m in agent.memory.messages]
    assert "and say hello to the team" in texts
    assert panel.chat.state == "idle"
    rows = rows_text(panel)
    assert sum(r.startswith("User (user)and say hello to the team") for r in rows) == 1, rows


async def test_steering_a_reply_that_ends_first_is_drawn_and_answered(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    """A plain answer has no step boundary: the server queues the steering and, as for a local
    agent, the next reply takes it in (drawn where it lands) and answers it."""
    agent, panel = attach(nb_hitl_agui.url)
    await until(lambda: agent.capabilities, what="the server's capabilities")
    panel.chat.send_mode = "steer"
    panel.chat.send("Tell me about steering.")
    await streamed(agent, 40)
    said = "And say it in one line."
    panel.chat.send(said)

    def answered() -> bool:
        texts = [m.get_text_content() or "" for m in agent.memory.messages]
        return said in texts and not agent.is_replying and texts[-1].startswith(f"You said: {said}")

    await until(answered, timeout=60, what="the steering taken in and answered")
    await idle(panel)

    def drawn(row: str) -> bool:
        return row.startswith("User (user)") and said in row

    await until(
        lambda: any(drawn(r) for r in rows_text(panel)), what=f"it drawn: {rows_text(panel)}"
    )
    rows = rows_text(panel)
    assert sum(drawn(r) for r in rows) == 1, rows
    assert agent.pending_steering == []


async def test_history_comes_back_after_the_server_restarts(tmp_path: Path, attach: Attach) -> None:
    server = nb_hitl_server(tmp_path / "sessions", tokens_per_second=2000).start()
    try:
        agent, panel = attach(server.url, "kept-thread")
        panel.chat.send("remember this")
        await idle(panel)
        before = [(m.role, m.get_text_content()) for m in agent.memory.messages]
        await agent.aclose()  # this notebook goes before the server restarts
        server.restart()
        again, panel2 = attach(server.url, "kept-thread")  # a new client, as after a restart
        await until(lambda: len(again.memory.messages) == len(before), what="the history")
        assert [(m.role, m.get_text_content()) for m in again.memory.messages] == before
        # The panel draws what memory got on the loop's next turns (events go out with
        # call_soon), so wait for the drawing rather than read it the moment memory is full.
        await until(lambda: "remember this" in all_html(panel2), what="the history drawn")
        panel2.chat.send("and now?")
        await idle(panel2)
        assert "This thread has 2 messages from you" in (
            again.memory.messages[-1].get_text_content() or ""
        )
    finally:
        server.stop()


async def test_ask_user_is_the_question_form_and_the_answer_resumes(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    agent, panel = attach(nb_hitl_agui.url)
    card = await question_form(panel, "ask me something")
    assert [b.description for b in card.fields[0].choices] == ["red", "<b>blue</b>"]
    card.fields[0].choose("red")
    assert card.send()
    await idle(panel)
    assert card.answered == "answered"
    assert (agent.memory.messages[-1].get_text_content() or "").startswith("You picked")
    assert "red" in (agent.memory.messages[-1].get_text_content() or "")


async def test_a_parked_approval_comes_back_in_a_new_client(
    nb_hitl_agui: AguiServer, attach: Attach
) -> None:
    thread = f"parked-{uuid.uuid4().hex[:8]}"
    first, panel = attach(nb_hitl_agui.url, thread)
    panel.chat.send("please deploy")
    await until(lambda: first.pending_approvals, what="the approval")
    # Another notebook attaches to the thread (this one is left as it is, as a closed tab is):
    again, panel2 = attach(nb_hitl_agui.url, thread)
    assert panel2.chat.approvals is not None
    await until(lambda: panel2.chat.approvals.waiting, what="the card, back from the server")
    panel2.chat.approvals.waiting[0].approve_button.click()
    await idle(panel2)
    assert again.memory.messages[-1].get_text_content() == "Done: deployed 1.2 to prod."
    await first.interrupt()  # the abandoned tab's reply: closed here, after the fact
