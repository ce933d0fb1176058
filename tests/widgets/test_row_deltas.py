"""The streaming row's delta protocol: what a stream sends, and the front end's reducer.

The reducer is the real front-end code (``js/src/shared/live_row.js``, bundled into
``static/transcript.js``), run under Node.js (``scripts/test`` installs it). A streaming row is
an item of the transcript's model (``LiveRow`` in ``TranscriptView``).
"""

from __future__ import annotations

from typing import Any

import pytest
from widget_helpers import node_module_json

from nb_hitl import Msg
from nb_hitl._render import markdown
from nb_hitl.widgets._live_rows import LiveRow
from nb_hitl.widgets._row_deltas import SEGMENT_MAX, RowDeltas, apply_row_msg, cut
from nb_hitl.widgets._transcript_view import TranscriptView

HOSTILE = (
    'Look: <script>alert("x")</script> <img src=x onerror=alert(1)> & "quotes"\n\n'
    "```html\n<b>in a fence</b>\n\n<i>still in it</i>\n```\n\n"
    "tail <iframe src=javascript:alert(2)>"
)


def stream(text: str, step: int) -> tuple[RowDeltas, list[dict[str, Any]]]:
    row = RowDeltas("<div>head</div>", markdown)
    sent = []
    for end in range(step, len(text) + step, step):
        out = row.update(text[:end])
        if out is not None:
            sent.append(out)
    return row, sent


def reduce_in_node(start: dict[str, Any] | None, messages: list[dict[str, Any]]) -> Any:
    """The front end's state after ``messages`` (from ``start``, else an empty row)."""
    body = """
const row = mod.newRow();
if (input.start) mod.apply(row, { t: "snapshot", row: input.start });
const verdicts = input.messages.map((m) => mod.apply(row, m));
process.stdout.write(JSON.stringify({ row, verdicts }));
"""
    return node_module_json("shared/live_row.js", body, {"start": start, "messages": messages})


def test_a_stream_sends_appended_text_and_each_finished_paragraph_once() -> None:
    text = "First **para**.\n\nSecond one.\n\nthird"
    row, sent = stream(text, 4)
    assert [m["seq"] for m in sent] == list(range(1, len(sent) + 1))
    ops = [op for m in sent for op in m["ops"]]
    assert {op["op"] for op in ops} == {"append", "freeze"}
    appended = "".join(op.get("text", "") + op.get("tail", "") for op in ops)
    # each character travels at most once as plain text (a blank line may arrive with its
    # paragraph's freeze instead)
    assert len(appended) <= len(text) and "".join(appended.split()) == "".join(text.split())
    freezes = [op["html"] for op in ops if op["op"] == "freeze"]
    assert freezes == [markdown("First **para**.\n\n"), markdown("Second one.\n\n")]
    assert row.snapshot()["tail"] == "third" and row.frozen_len == len(text) - len("third")


def test_nothing_new_sends_nothing_and_a_code_fence_is_never_cut() -> None:
    row = RowDeltas("", markdown)
    assert row.update("") is None
    fenced = "```\nline\n\nmore\n"
    assert row.update(fenced) is not None and row.update(fenced) is None
    assert row.blocks == []  # the blank line is inside the fence
    row.update(fenced + "```\n\nafter")
    assert row.blocks == [markdown(fenced + "```\n\n")]


def test_a_long_text_without_blank_lines_is_cut_at_a_space() -> None:
    row = RowDeltas("", markdown)
    row.update("word " * (SEGMENT_MAX // 5 + 100))
    assert len(row.blocks) == 1 and len(row.tail) < SEGMENT_MAX


def test_one_cut_rule_serves_delta_rows_and_the_former_html_segments() -> None:
    text = "a" * 300 + "\n\n" + "b" * 1_200 + "\n\n```\nx\n\ny" + "c" * 600
    assert cut(text, False) == 1_504  # the delta rows: the last blank line outside the fence
    assert cut(text, False, min_len=3_000) == 0  # the HTML rows: too short to freeze yet
    assert cut(text, False, min_len=2_000) == 1_504
    assert cut(text[:1_502], False, min_len=1_000) == 0  # no blank line after min_len // 2
    assert cut(text[:1_502], False) == 302


def test_a_text_that_does_not_continue_the_stream_restarts_the_row() -> None:
    row = RowDeltas("", markdown)
    row.update("Para one.\n\nPara two")
    out = row.update("Something else entirely")
    assert out is not None and out["t"] == "snapshot"
    assert out["row"]["blocks"] == [] and out["row"]["tail"] == "Something else entirely"


@pytest.mark.parametrize("step", [1, 7, 500])
def test_the_front_end_rebuilt_from_a_snapshot_equals_the_incremental_result(step: int) -> None:
    text = HOSTILE + "\n\n" + "\n\n".join(f"Paragraph {i} with *emphasis*." for i in range(20))
    row, sent = stream(text, step)
    start = RowDeltas("<div>head</div>", markdown).snapshot()  # the trait a view starts from
    incremental = reduce_in_node(start, sent)
    assert set(incremental["verdicts"]) == {"ok"}
    assert incremental["row"] == row.snapshot()
    # A view made mid-stream starts from the snapshot of then and drops what it holds.
    half = len(sent) // 2
    replay = RowDeltas("<div>head</div>", markdown)
    for end in range(step, len(text) + step, step):
        replay.update(text[:end])
        if replay.seq == half:
            break
    later = reduce_in_node(replay.snapshot(), sent)
    assert later["row"] == row.snapshot()
    assert later["verdicts"] == ["stale"] * half + ["ok"] * (len(sent) - half)


def test_the_final_row_reuses_the_blocks_the_front_end_holds() -> None:
    text = "One **a**.\n\nTwo b.\n\nthree c"
    row, sent = stream(text, 3)
    start = RowDeltas("<div>head</div>", markdown).snapshot()
    final = row.finish("<b>", text, "</b>")
    (op,) = final["ops"]
    assert op["keep"] == 2 and op["after"] == markdown("three c") + "</b>"  # only the rest
    assert row.html == "<b>" + markdown("One **a**.\n\n") + markdown("Two b.\n\n") + op["after"]
    result = reduce_in_node(start, [*sent, final])
    assert result["row"] == row.snapshot() and result["row"]["done"]
    # A final text that is not what streamed is drawn whole.
    other = RowDeltas("", markdown)
    other.update("Para one.\n\nPara two")
    assert other.finish("", "Something else", "")["ops"][0]["keep"] == 0
    assert other.html == markdown("Something else")


def test_a_missing_delta_is_a_gap_and_nothing_is_applied_past_it() -> None:
    _row, sent = stream("one two three four five six", 3)
    result = reduce_in_node(None, [sent[0], sent[2]])
    assert result["verdicts"] == ["ok", "gap"]
    assert result["row"]["seq"] == 1


def test_hostile_text_stays_text() -> None:
    row, sent = stream(HOSTILE, 5)
    for block in row.blocks:
        assert "<script" not in block and "<img" not in block and "<iframe" not in block
        assert "<b>" not in block  # raw HTML, even in a fence, is escaped
    assert "&lt;script&gt;" in row.blocks[0]
    # The tail is plain text for a DOM text node: the protocol never marks it as HTML.
    assert row.tail == "tail <iframe src=javascript:alert(2)>"
    ops = [op for m in sent for op in m["ops"]]
    assert all(set(op) <= {"op", "text", "tail", "html"} for op in ops)
    msg = Msg("Friday", HOSTILE, "assistant")
    view, live = live_row(msg)
    (item,) = view.rows
    drawn = "".join(item["live"]["blocks"])
    assert "<script" not in drawn and "<iframe" not in drawn and "<img" not in drawn
    assert item["live"]["tail"] == "tail <iframe src=javascript:alert(2)>"  # text, for a node
    assert "&lt;iframe" in live.drawn_html() and "<iframe" not in live.drawn_html()


def live_row(msg: Msg) -> tuple[TranscriptView, LiveRow]:
    """A streaming row of ``msg`` drawn in a transcript's model, after one update."""
    view = TranscriptView()
    live = LiveRow(view, msg)
    view.set_rows([live.item()])
    live.update(msg)
    return view, live


def test_stop_marks_the_row_before_the_final_message_with_one_small_op() -> None:
    msg = Msg("Friday", "partial answer", "assistant")
    view, live = live_row(msg)
    sent: list[dict[str, Any]] = []
    view._send_msg = sent.append  # type: ignore[method-assign]
    live.mark_interrupted()
    assert "nb-hitl-interrupted" in live._dom_classes and not live.finished
    (batch,) = sent  # the style goes out in one batch of one op: no text with it
    assert batch["ops"] == [{"op": "live", "key": "rows", "id": msg.id, "cls": live.cls}]
    (item,) = view.rows
    assert "nb-hitl-interrupted" in item["cls"].split() and "nb-hitl-live" in item["cls"]
    assert item["live"]["tail"] == "partial answer"  # the text kept as it was drawn
    live.mark_interrupted()
    assert len(sent) == 1  # once
    assert live.update(msg) is None and sent[1:] == []


def test_the_kernel_applies_a_row_message_as_the_front_end_does() -> None:
    row = RowDeltas("<div>h</div>", markdown)
    state = row.snapshot()
    for text in ("One", "One two\n\nThree", "One two\n\nThree four"):
        out = row.update(text)
        assert out is not None
        state = apply_row_msg(state, out)
        assert state == row.snapshot()
    assert apply_row_msg(state, {"t": "delta", "seq": state["seq"] + 2, "ops": []}) is None


def test_a_new_view_asks_for_the_state_and_gets_a_snapshot() -> None:
    msg = Msg("Friday", "Hello\n\nthere", "assistant")
    view, _live = live_row(msg)
    sent: list[dict[str, Any]] = []
    view._send_msg = sent.append  # type: ignore[method-assign]
    view.page_message({"t": "sync", "seq": 0})
    (answer,) = sent
    assert answer["t"] == "snapshot" and answer["snapshot"]["seq"] == view.seq
    (item,) = answer["snapshot"]["state"]["rows"]
    assert item["live"]["blocks"] == [markdown("Hello\n\n")] and item["live"]["tail"] == "there"
    view.page_message({"t": "sync", "seq": view.seq})  # up to date: nothing to send
    assert len(sent) == 1
