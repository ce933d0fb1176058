"""The transcript's one model: every row drawn by the front end from keyed, sequenced ops.

The reducer and the view are the real front-end code (``js/src/shared/ops.js`` and
``js/src/chat/transcript.js``, bundled into ``static/transcript.js``), run under Node.js in a
happy-dom page (``scripts/test`` installs both); ``js/test/chat_transcript.test.js`` tests the
view on its own.
"""

from __future__ import annotations

import json
import random
from typing import Any

import ipywidgets as w
from widget_helpers import JS, all_html, all_state, node_module_json, record_part, until

from nb_hitl import Msg
from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.widgets import ChatWidget
from nb_hitl.widgets._live_rows import LiveRow
from nb_hitl.widgets._row import Row
from nb_hitl.widgets._transcript import Entry
from nb_hitl.widgets._transcript_view import TranscriptView, diff_rows

RUN = (
    f"const ops = await import({json.dumps((JS / 'src' / 'shared' / 'ops.js').as_uri())});\n"
    + r"""
const root = document.createElement("div");
const draw = mod.transcriptView(root, () => {}, null);
let snap = ops.readSnapshot(input.start);
draw(snap.state, new Set(Object.keys(snap.state)));
const verdicts = [];
for (const m of input.messages) {
  const out = ops.reduce(snap, m, mod.EXTRA_OPS);
  verdicts.push(out.verdict);
  if (out.verdict === "ok" || out.verdict === "reset") {
    snap = out.snapshot;
    draw(snap.state, out.changed);
  }
}
const own = new Set(["lm-Widget", "jupyter-widgets", "widget-inline-hbox", "widget-html",
  "nb-hitl-live-row"]);
const mine = (n) => [...n.classList].filter((c) => !own.has(c)).join(" ");
const list = root.querySelector(".nb-hitl-rows");
const dom = [...list.children].map((n) => {
  const tail = n.querySelector(".nb-hitl-tail");
  return { id: n.dataset.nbHitlKey, cls: mine(n),
    html: tail ? null : n.querySelector(".widget-html-content").innerHTML,
    tail: tail ? tail.textContent : null,
    blocks: [...n.querySelectorAll(".nb-hitl-block")].map((b) => b.innerHTML) };
});
const earlier = root.querySelector(".nb-hitl-earlier");
process.stdout.write(JSON.stringify({ state: snap, verdicts, dom,
  earlier: earlier.style.display === "none" ? "" : earlier.textContent }));
"""
)


def run_in_node(start: dict[str, Any] | None, messages: list[dict[str, Any]]) -> Any:
    """The front end's snapshot, verdicts and drawn rows after ``messages`` (the real
    ``js/src/chat/transcript.js`` in a happy-dom page)."""
    return node_module_json("chat/transcript.js", RUN, {"start": start, "messages": messages})


def row(key: str, html: str | None = None, cls: str = "nb-hitl-row") -> dict[str, Any]:
    return Row(key, html if html is not None else f"<p>{key}</p>", cls).item()


class Recorder:
    """What a transcript's model sends to its page: its own messages when it has a comm; drawn
    inside a chat (its part ``transcript``), the chat's batches with only the transcript's
    ops, numbered as the transcript's own from the part as the chat's page holds it now
    (``start``), so the transcript's front end runs them as it would on its own."""

    def __init__(self, view: TranscriptView) -> None:
        self.view = view
        self.start = page_start(view)
        self._raw: list[dict[str, Any]] = []
        if view._host is None:
            view.page_send = self._raw.append  # type: ignore[method-assign]
        else:
            self._raw = record_part(view)

    @property
    def sent(self) -> list[dict[str, Any]]:
        if self.view._host is None:
            return self._raw
        ops = [m for m in self._raw if m.get("t") == "ops"]
        return [{"t": "ops", "seq": i + 1, "ops": m["ops"]} for i, m in enumerate(ops)]


def page_start(view: TranscriptView) -> dict[str, Any]:
    """The snapshot the transcript's front end starts from: its own trait, or (drawn inside a
    chat) the chat's part ``transcript`` as its page holds it, at ``seq`` 0."""
    if view._host is None:
        return view.snapshot
    host, key = view._host
    return {"v": 1, "seq": 0, "state": host.view_state[key]}


def test_random_edits_reach_the_front_end_as_keyed_ops_that_rebuild_the_same_rows() -> None:
    rnd = random.Random(7)
    view = TranscriptView()
    view.set_rows([row(f"m{i}") for i in range(5)])
    start = view.snapshot
    page = Recorder(view)
    rows = view.rows
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
            rows[i] = row(rows[i]["id"], f"<p>edited {step}</p>")
        elif kind == "move":
            rows.insert(rnd.randrange(len(rows)), rows.pop(rnd.randrange(len(rows))))
        else:
            i = rnd.randrange(len(rows))
            rows[i] = row(rows[i]["id"], rows[i]["html"], f"nb-hitl-row nb-hitl-speaker-{step % 3}")
        view.set_rows(rows, f"Show earlier messages ({step} hidden)" if step % 7 else "")
    first = start["seq"] + 1
    assert [m["seq"] for m in page.sent] == list(range(first, first + len(page.sent)))
    result = run_in_node(start, page.sent)
    assert set(result["verdicts"]) == {"ok"}
    assert result["state"] == view.snapshot  # the trait kept up, unsent
    drawn = [{"id": r["id"], "cls": r["cls"], "html": r["html"]} for r in view.rows]
    assert [{k: d[k] for k in ("id", "cls", "html")} for d in result["dom"]] == drawn
    assert result["earlier"] == view.state["earlier"]


def test_an_appended_row_sends_only_that_row_and_nothing_new_sends_nothing() -> None:
    old = [row("a"), row("b")]
    assert diff_rows(old, old) == []
    ops = diff_rows(old, [*old, row("c")])
    assert ops == [{"op": "insert", "key": "rows", "item": row("c"), "before": None}]
    assert diff_rows(old, [row("b")]) == [{"op": "remove", "key": "rows", "id": "a"}]


def test_stale_ops_are_dropped_a_gap_asks_for_a_snapshot_and_the_kernel_answers() -> None:
    view = TranscriptView()
    view.set_rows([row("a")])
    page = Recorder(view)
    view.set_rows([row("a"), row("b")])
    view.set_rows([row("a"), row("b"), row("c")])
    first, second = page.sent
    result = run_in_node(None, [{"t": "snapshot", "snapshot": view.snapshot}, first, second])
    assert result["verdicts"] == ["reset", "stale", "stale"]
    start = {"v": 1, "seq": 1, "state": {"rows": [row("a")], "earlier": ""}}
    result = run_in_node(start, [second])
    assert result["verdicts"] == ["gap"]
    view.page_message({"t": "sync", "seq": 1})  # the page asks
    assert page.sent[-1] == {"t": "snapshot", "snapshot": view.snapshot}
    sent = len(page.sent)
    view.page_message({"t": "sync", "seq": view.seq})  # up to date: no answer
    assert len(page.sent) == sent


def test_row_html_goes_to_the_page_as_the_kernel_escaped_it_and_ids_stay_keys() -> None:
    hostile = Msg("Eve", '<img src=x onerror=alert(1)> "q" & <script>x</script>', "user")
    chat = ChatWidget(ReActAgent("Friday", "", ScriptedModel(["ok"])))
    chat.transcript.add(Entry('x" onmouseover="alert(1)', hostile))
    state = json.dumps(chat.view_state)  # what the chat's page holds (and a notebook saves)
    assert "<img" not in state and "<script>" not in state and "&lt;img" in state
    result = run_in_node(page_start(chat.transcript.view), [])
    (drawn,) = result["dom"]
    assert drawn["id"] == 'x" onmouseover="alert(1)'  # a dataset value, never markup
    assert "&lt;script&gt;" in drawn["html"]


def test_cards_notes_and_widgets_are_rows_of_the_one_model_in_order() -> None:
    chat = ChatWidget(ReActAgent("Friday", "", ScriptedModel(["ok"])))
    transcript = chat.transcript
    card = w.HTML("a widget of its own")
    transcript.add(Entry("a", Msg("User", "first", "user")))
    chat.append_widget(card, "w1")
    note = Row("n1", "<div>a note</div>", "nb-hitl-row")
    chat.append_widget(note)
    transcript.add(Entry("c", Msg("User", "last", "user")))
    ids = [item["id"] for item in transcript.view.rows]
    assert ids == ["a", "w1", "n1", "c"]
    assert transcript.view.rows[1] == {"id": "w1", "widget": f"IPY_MODEL_{card.model_id}"}
    assert chat.rows[1] is card and chat.rows[2] is note
    note.value = "<div>a note, changed</div>"  # a row drawn anew: one replace op
    assert transcript.view.rows[2]["html"] == "<div>a note, changed</div>"
    chat.remove_widget("w1")
    assert [item["id"] for item in transcript.view.rows] == ["a", "n1", "c"]


async def test_a_200_message_history_is_one_model_and_show_earlier_adds_ops() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel(["ok"]))
    history = [Msg("u" if i % 2 else "Friday", f"message {i}", "user" if i % 2 else "assistant")
               for i in range(200)]  # fmt: skip
    await agent.memory.add(history)
    chat = ChatWidget(agent)
    view = chat.transcript.view
    assert len(view.rows) == chat.transcript.window
    # The rows drawn while the chat was built go in the chat's opening message: no op batch
    # (a page could not have applied one: no view exists yet, it would have to sync).
    assert view.sent == 0 and view.seq == 0 and chat.sent == 0 and chat.seq == 0
    opening = chat.get_state()["snapshot"]["state"]["transcript"]
    assert len(opening["rows"]) == chat.transcript.window
    assert len(chat.rows) == chat.transcript.window and "message 199" in all_html(chat.rows[-1])
    assert all(isinstance(r, Row) for r in chat.rows)
    assert chat.rows[-1] is chat.rows[-1]  # stable handles
    assert view.state["earlier"] == "Show earlier messages (150 hidden)"
    page = Recorder(view)
    chat.transcript.earlier.click()  # the page's action
    (ops,) = page.sent
    assert {op["op"] for op in ops["ops"]} == {"insert", "set"}
    assert sum(op["op"] == "insert" for op in ops["ops"]) == chat.transcript.step
    assert "message 149" in all_state(chat) and "message 100" in all_state(chat)


async def test_a_finished_streaming_row_becomes_a_finished_row_in_its_place() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel(["First answer.", "Second answer."]))
    chat = ChatWidget(agent)
    page = Recorder(chat.transcript.view)
    chat.send("one")
    await until(lambda: chat.state == "idle", what="first reply")
    chat.send("two")
    await until(lambda: chat.state == "idle", what="second reply")
    assert not any(isinstance(r, LiveRow) for r in chat.rows)
    texts = [all_html(r) for r in chat.rows]
    assert ["one" in texts[0], "First answer." in texts[1], "two" in texts[2]] == [True] * 3
    assert [item.get("live") for item in chat.transcript.view.rows] == [None] * 4
    start = {"v": 1, "seq": 0, "state": {"rows": [], "earlier": ""}}
    result = run_in_node(start, page.sent)  # every batch, in order, from an empty page
    assert set(result["verdicts"]) == {"ok"}
    assert result["state"]["state"] == chat.transcript.view.view_state
    assert chat.view_state["transcript"] == chat.transcript.view.view_state  # the chat's part
    assert [d["html"] for d in result["dom"]] == [r["html"] for r in chat.transcript.view.rows]


async def test_a_streaming_row_draws_its_tail_as_text_and_stop_restyles_it() -> None:
    agent = ReActAgent("Friday", "", ScriptedModel([" ".join(f"w{i}" for i in range(400))],
                                                   tokens_per_second=100))  # fmt: skip
    chat = ChatWidget(agent)
    view = chat.transcript.view
    page = Recorder(view)
    start = page.start
    chat.send("<b>go</b>")
    await until(lambda: chat.live.views and "w5" in all_html(chat.rows[-1]), what="streaming")
    chat.stop()
    result = run_in_node(start, list(page.sent))
    assert set(result["verdicts"]) == {"ok"}
    live = result["dom"][-1]
    assert "nb-hitl-interrupted" in live["cls"].split() and "nb-hitl-live" in live["cls"]
    assert live["tail"].startswith("w0 w1") and "<" not in live["tail"]
    assert result["dom"][0]["html"].count("&lt;b&gt;go&lt;/b&gt;") == 1
    await until(lambda: chat.state == "idle", what="stopped")
