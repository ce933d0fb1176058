"""Rows segments: finished message rows drawn by the front end from keyed ops.

The reducer and the view are the real front-end code (``js/src/chat/segment.js``, the source of
``static/rows_segment.js``), run under Node.js in a happy-dom page (``scripts/test`` installs
both); ``js/test/chat_segment.test.js`` tests the view on its own.
"""

from __future__ import annotations

import json
import random
from typing import Any

import ipywidgets as w
from widget_helpers import all_html, all_state, node_module_json, until

from nb_hitl import Msg
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._segment import RowsSegment, SegmentRow, Segments, diff
from nb_hitl.widgets._transcript import Entry

RUN = r"""
const el = document.createElement("div");
const view = new mod.SegmentView(el);
if (input.start) view.reset(input.start);
const verdicts = input.messages.map((m) => view.apply(m));
const own = new Set(["lm-Widget", "jupyter-widgets", "widget-inline-hbox", "widget-html"]);
const mine = (n) => [...n.classList].filter((c) => !own.has(c)).join(" ");
const dom = [...el.children].map((n) => ({ id: n.dataset.nbHitlKey, cls: mine(n),
                                           html: n.children[0].innerHTML }));
process.stdout.write(JSON.stringify({ state: view.state, verdicts, dom }));
"""


def run_in_node(start: dict[str, Any] | None, messages: list[dict[str, Any]]) -> Any:
    """The front end's state, verdicts and drawn rows after ``messages`` (the real
    ``js/src/chat/segment.js`` in a happy-dom page)."""
    return node_module_json("chat/segment.js", RUN, {"start": start, "messages": messages})


def row(key: str, html: str | None = None, cls: str = "nb-hitl-row") -> SegmentRow:
    return SegmentRow(key, html if html is not None else f"<p>{key}</p>", cls)


class Recorder:
    """What a segment sends to its front end."""

    def __init__(self, segment: RowsSegment) -> None:
        self.sent: list[dict[str, Any]] = []
        segment.send = lambda content, buffers=None: self.sent.append(content)  # type: ignore[method-assign]


def test_random_edits_reach_the_front_end_as_keyed_ops_that_rebuild_the_same_rows() -> None:
    rnd = random.Random(7)
    segment = RowsSegment([row(f"m{i}") for i in range(5)])
    start = segment.state()
    page = Recorder(segment)
    rows = segment.handles
    for step in range(60):
        rows = list(rows)
        kind = rnd.choice(["add", "prepend", "drop", "edit", "move", "cls"])
        if kind == "add" or not rows:
            rows.append(row(f"n{step}"))
        elif kind == "prepend":
            rows[:0] = [row(f"p{step}a"), row(f"p{step}b")]  # "Show earlier messages"
        elif kind == "drop":
            rows.pop(rnd.randrange(len(rows)))
        elif kind == "edit":
            i = rnd.randrange(len(rows))
            rows[i] = row(rows[i].key, f"<p>edited {step}</p>")
        elif kind == "move":
            rows.insert(rnd.randrange(len(rows)), rows.pop(rnd.randrange(len(rows))))
        else:
            i = rnd.randrange(len(rows))
            rows[i] = row(rows[i].key, rows[i].html, f"nb-hitl-row nb-hitl-speaker-{step % 3}")
        segment.set_rows(rows)
    assert [m["seq"] for m in page.sent] == list(range(1, len(page.sent) + 1))
    result = run_in_node(start, page.sent)
    assert set(result["verdicts"]) == {"ok"}
    assert result["state"] == segment.state() == segment.rows  # the trait kept up, unsent
    assert result["dom"] == segment.state()["rows"]  # the page draws the rows in order


def test_an_appended_row_sends_only_that_row_and_nothing_new_sends_nothing() -> None:
    old = [row("a"), row("b")]
    assert diff(old, old) == []
    ops = diff(old, [*old, row("c")])
    assert ops == [{"op": "insert", "id": "c", "cls": "nb-hitl-row", "html": "<p>c</p>",
                    "before": None}]  # fmt: skip
    assert diff(old, [row("b")]) == [{"op": "remove", "id": "a"}]


def test_stale_ops_are_dropped_a_gap_asks_for_a_snapshot_and_the_kernel_answers() -> None:
    segment = RowsSegment([row("a")])
    page = Recorder(segment)
    segment.set_rows([row("a"), row("b")])
    segment.set_rows([row("a"), row("b"), row("c")])
    first, second = page.sent
    result = run_in_node(None, [{"t": "snapshot", "state": segment.state()}, first, second])
    assert result["verdicts"] == ["reset", "stale", "stale"]
    result = run_in_node({"v": 1, "seq": 0, "rows": [{"id": "a", "cls": "", "html": "a"}]},
                         [second])  # fmt: skip
    assert result["verdicts"] == ["gap"]
    segment._on_front_end_msg({"t": "sync", "seq": 0})  # the view asks
    assert page.sent[-1] == {"t": "snapshot", "state": segment.state()}
    sent = len(page.sent)
    segment._on_front_end_msg({"t": "sync", "seq": segment.seq})  # up to date: no answer
    assert len(page.sent) == sent


def test_row_html_goes_to_the_page_as_the_kernel_escaped_it_and_ids_stay_keys() -> None:
    hostile = Msg("Eve", '<img src=x onerror=alert(1)> "q" & <script>x</script>', "user")
    chat = ChatWidget(ReActAgent("Friday", "", ScriptedModel(["ok"])))
    chat.transcript.add(Entry('x" onmouseover="alert(1)', hostile))
    (segment,) = [c for c in chat.transcript.inner.children if isinstance(c, RowsSegment)]
    state = json.dumps(segment.rows)
    assert "<img" not in state and "<script>" not in state and "&lt;img" in state
    result = run_in_node(segment.rows, [])
    (drawn,) = result["dom"]
    assert drawn["id"] == 'x" onmouseover="alert(1)'  # a dataset value, never markup
    assert "&lt;script&gt;" in drawn["html"]


def test_segments_are_reused_across_renders_and_widgets_between_them_keep_the_order() -> None:
    segments = Segments()
    card = w.HTML("card")
    first, gone = segments.layout([row("a"), row("b"), card, row("c")])
    assert gone == [] and first[1] is card
    s1, s2 = first[0], first[2]
    assert isinstance(s1, RowsSegment) and s1.row_keys == ["a", "b"] and s2.row_keys == ["c"]
    again, gone = segments.layout([row("z"), row("a"), row("b"), card, row("c"), row("d")])
    assert again[0] is s1 and again[2] is s2 and gone == []
    assert s1.row_keys == ["z", "a", "b"] and s2.row_keys == ["c", "d"]
    merged, gone = segments.layout([row("a"), row("b"), row("c")])  # the card went
    assert merged == (s1,) and gone == [s2] and s1.row_keys == ["a", "b", "c"]


async def test_a_200_message_history_opens_one_segment_and_show_earlier_adds_ops() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel(["ok"]))
    history = [Msg("u" if i % 2 else "Friday", f"message {i}", "user" if i % 2 else "assistant")
               for i in range(200)]  # fmt: skip
    await agent.memory.add(history)
    chat = ChatWidget(agent)
    (segment,) = chat.transcript.inner.children
    assert isinstance(segment, RowsSegment) and len(segment.row_keys) == chat.transcript.window
    assert len(chat.rows) == chat.transcript.window and "message 199" in all_html(chat.rows[-1])
    assert all(isinstance(r, SegmentRow) for r in chat.rows)
    assert chat.rows[-1] is chat.rows[-1]  # stable handles
    page = Recorder(segment)
    chat.transcript.show_earlier()
    (ops,) = page.sent
    assert {op["op"] for op in ops["ops"]} == {"insert"}
    assert len(ops["ops"]) == chat.transcript.step
    assert "message 149" in all_state(chat) and "message 100" in all_state(chat)


async def test_a_finished_streaming_row_joins_the_segment_and_its_widget_closes() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel(["First answer.", "Second answer."]))
    chat = ChatWidget(agent)
    chat.send("one")
    await until(lambda: chat.state == "idle", what="first reply")
    live = [r for r in chat.rows if not isinstance(r, SegmentRow)]
    chat.send("two")
    await until(lambda: chat.state == "idle", what="second reply")
    assert all(r.comm is None for r in live)  # closed once it joined the segment
    texts = [all_html(r) for r in chat.rows]
    assert ["one" in texts[0], "First answer." in texts[1], "two" in texts[2]] == [True] * 3
    assert sum(isinstance(c, RowsSegment) for c in chat.transcript.inner.children) == 1
