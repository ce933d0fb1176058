"""PanelModel: the one-model panel base (snapshot + sequenced ops, actions from the page)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import comm
import pytest
from widget_helpers import RecordingComm, node_json, until

from nb_hitl.widgets._model import PanelModel, apply_op

OPS_JS = Path(__file__).resolve().parents[2] / "js" / "src" / "shared" / "ops.js"


def custom_messages() -> list[dict[str, Any]]:
    """The custom messages the panels sent so far (what the page receives), in order."""
    return [
        data["content"]
        for kind, data in RecordingComm.log
        if kind == "comm_msg" and data.get("method") == "custom"
    ]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[dict[str, Any]]]:
    """Record what the panels publish; returns ``custom_messages``."""
    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return custom_messages


class Counter(PanelModel):
    _esm = "export default { render() {} };"


async def test_update_sends_one_batch_of_what_changed_and_keeps_the_snapshot(sent):
    panel = Counter({"n": 0, "label": "x"})
    assert panel.snapshot == {"v": 1, "seq": 0, "state": {"n": 0, "label": "x"}}
    assert panel.set_view(n=1, label="x") == [{"op": "set", "key": "n", "value": 1}]
    assert panel.set_view(n=1) == []
    assert sent() == [{"t": "ops", "seq": 1, "ops": [{"op": "set", "key": "n", "value": 1}]}]
    assert panel.snapshot == {"v": 1, "seq": 1, "state": {"n": 1, "label": "x"}}
    updates = [d for k, d in RecordingComm.log if k == "comm_msg" and d.get("method") == "update"]
    assert updates == [], "the snapshot trait is kept, not resent with every batch"


async def test_set_ops_are_the_ops_set_view_would_send_unapplied(sent):
    panel = Counter({"n": 0, "chart": {"steps": [1, 2], "threshold": 5}})
    ops = panel.set_ops(n=0, label="y")
    assert ops == [{"op": "set", "key": "label", "value": "y"}]
    assert "label" not in panel.state and sent() == []
    ops.append({"op": "merge", "key": "chart", "value": {"threshold": 7}})
    panel.apply_ops(ops)
    assert sent() == [{"t": "ops", "seq": 1, "ops": ops}]
    assert panel.state["chart"] == {"steps": [1, 2], "threshold": 7}


async def test_the_kept_snapshot_runs_observers_and_shares_no_part_a_later_op_changes(sent):
    panel = Counter({"n": 0, "chart": {"steps": [1, 2], "threshold": 5}})
    seen: list[int] = []
    panel.observe(lambda change: seen.append(change["new"]["seq"]), "snapshot")
    panel.set_view(n=1)
    kept = panel.snapshot
    panel.apply_ops([{"op": "merge", "key": "chart", "value": {"threshold": 9}}])
    panel.apply_ops([{"op": "append", "key": "rows", "items": [{"id": "a"}]}])
    assert seen == [1, 2, 3]
    assert kept == {"v": 1, "seq": 1, "state": {"n": 1, "chart": {"steps": [1, 2], "threshold": 5}}}
    assert panel.snapshot["state"] == panel.state
    updates = [d for k, d in RecordingComm.log if k == "comm_msg" and d.get("method") == "update"]
    assert updates == [], "kept, never sent"
    panel.add_class("wide")  # any other trait is still sent as ipywidgets sends it
    updates = [d for k, d in RecordingComm.log if k == "comm_msg" and d.get("method") == "update"]
    assert [list(u["state"]["_dom_classes"]) for u in updates] == [["wide"]]


async def test_a_page_behind_gets_a_snapshot_and_a_current_one_nothing(sent):
    panel = Counter({"n": 0})
    panel.set_view(n=1)
    panel.page_message({"t": "sync", "seq": 1})
    assert len(sent()) == 1
    panel.page_message({"t": "sync", "seq": 0})
    assert sent()[-1] == {"t": "snapshot", "snapshot": {"v": 1, "seq": 1, "state": {"n": 1}}}


async def test_actions_from_the_page_run_their_handler_with_the_args(sent):
    panel = Counter({"n": 0})
    panel.on_action("add", lambda by: panel.set_view(n=panel.state["n"] + by))
    panel.page_message({"t": "action", "name": "add", "args": {"by": 2}})
    assert panel.state["n"] == 2


async def test_an_action_from_another_thread_runs_on_the_loop_thread(sent):
    panel = Counter({"n": 0})
    ran_on: list[int] = []
    panel.on_action("hit", lambda: ran_on.append(threading.get_ident()))
    thread = threading.Thread(target=panel.page_message, args=({"t": "action", "name": "hit"},))
    thread.start()
    thread.join()
    await until(lambda: ran_on, what="the action ran")
    assert ran_on == [threading.get_ident()]


async def test_a_coroutine_action_runs_as_a_held_task(sent):
    panel = Counter({"n": 0})
    done = asyncio.Event()

    async def slow() -> None:
        await asyncio.sleep(0)
        panel.set_view(n=5)
        done.set()

    panel.on_action("slow", slow)
    panel.page_message({"t": "action", "name": "slow", "args": {}})
    await asyncio.wait_for(done.wait(), 5)
    assert panel.state["n"] == 5


async def test_unknown_or_failing_actions_are_logged_not_raised(sent, caplog):
    panel = Counter({})
    panel.on_action("boom", lambda: 1 / 0)
    panel.page_message({"t": "action", "name": "nope"})
    panel.page_message({"t": "action", "name": "boom"})
    panel.page_message("junk")
    assert "unknown action 'nope'" in caplog.text
    assert "ZeroDivisionError" in caplog.text


def test_python_and_javascript_reducers_agree():
    state: dict[str, Any] = {"rows": [{"id": "a"}, {"id": "b"}], "meta": {"k": 1}}
    ops = [
        {"op": "set", "key": "title", "value": "<b>t</b>"},
        {"op": "merge", "key": "meta", "value": {"j": 2}},
        {"op": "append", "key": "rows", "items": [{"id": "c"}]},
        {"op": "insert", "key": "rows", "item": {"id": "d"}, "before": "b"},
        {"op": "insert", "key": "rows", "item": {"id": "a", "x": 1}, "before": None},
        {"op": "replace", "key": "rows", "item": {"id": "c", "y": 2}},
        {"op": "replace", "key": "rows", "item": {"id": "e"}},
        {"op": "remove", "key": "rows", "id": "b"},
        {"op": "remove", "key": "rows", "id": "?"},
        {"op": "nonsense", "key": "rows"},
        {"op": "child", "key": "part", "ops": [{"op": "set", "key": "n", "value": 1}]},
        {
            "op": "child",
            "key": "part",
            "ops": [
                {
                    "op": "child",
                    "key": "deep",
                    "ops": [{"op": "append", "key": "rows", "items": [{"id": "z"}]}],
                }
            ],
        },
        {"op": "child", "key": "meta", "ops": [{"op": "set", "key": "q", "value": "<i>"}]},
        {"op": "child", "key": "bad", "ops": "not a list"},
        {"op": "child", "key": "part", "ops": [None, 3, {"op": "set", "key": "m", "value": 2}]},
    ]
    expected = json.loads(json.dumps(state))
    for op in ops:
        apply_op(expected, op)
    script = (
        f"import({json.dumps(OPS_JS.as_uri())}).then(({{ applyOp }}) => {{"
        "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {"
        "  let { state, ops } = JSON.parse(s);"
        "  for (const op of ops) state = applyOp(state, op);"
        "  process.stdout.write(JSON.stringify(state)); }); });"
    )
    assert node_json(script, {"state": state, "ops": ops}) == expected


async def test_a_panel_made_inside_a_host_opens_no_comm_and_its_changes_reach_the_host(sent):
    from nb_hitl.widgets._model import inside_host

    host = Counter({"n": 0})
    opened = sum(kind == "comm_open" for kind, _ in RecordingComm.log)
    with inside_host():
        child = Counter({"n": 1})
    assert child.comm is None
    assert sum(kind == "comm_open" for kind, _ in RecordingComm.log) == opened
    host.embed(child, "part")
    child.on_action("bump", lambda by=1: child.set_view(n=child.state["n"] + by))
    host.page_message({"t": "action", "name": "part", "args": {"name": "bump", "args": {"by": 2}}})
    assert child.state["n"] == 3 and host.state["part"] == {"n": 3}
    # The child's batch reaches the host's page as one op: the child's own ops, not its parts.
    assert sent()[-1]["ops"] == [
        {"op": "child", "key": "part", "ops": [{"op": "set", "key": "n", "value": 3}]}
    ]
    child.add_class("x")  # a trait change on a comm-free panel sends nothing, raises nothing
    # Displayed on its own too, it opens its comm then and gets its own batches as well.
    bundle = child._repr_mimebundle_()
    assert child.comm is not None and child.model_id in json.dumps(bundle, default=str)
    child.set_view(n=4)
    assert host.state["part"] == {"n": 4}
    assert sent()[-1] == {
        "t": "ops",
        "seq": child.seq,
        "ops": [{"op": "set", "key": "n", "value": 4}],
    }


async def test_a_nested_child_forwards_its_own_ops_through_every_host(sent):
    """A transcript inside a chat inside a panel: a streaming row's ``live`` op reaches the
    outer page as that op, nested in ``child`` ops (not the whole row list resent), and each
    host's copy of the state is what the child's own is."""
    from nb_hitl.widgets._model import inside_host
    from nb_hitl.widgets._transcript_view import TranscriptView

    panel = Counter({})
    with inside_host():
        chat = Counter({"title": "chat"})
        rows = TranscriptView()
    live = {"v": 1, "seq": 0, "head": "", "blocks": [], "tail": "", "extras": "", "done": False}
    rows.set_rows(
        [{"id": "old", "cls": "", "html": "<p>x</p>"}, {"id": "m", "cls": "", "live": live}]
    )
    chat.embed(rows, "transcript")
    panel.embed(chat, "chat")
    before = len(sent())
    rows.live("m", {"t": "delta", "seq": 1, "ops": [{"op": "append", "text": "<b>hi"}]})
    assert len(sent()) == before + 1, "one batch on the one comm (the panel's)"
    assert sent()[-1]["ops"] == [
        {"op": "child", "key": "chat", "ops": [{"op": "child", "key": "transcript", "ops": [
            {"op": "live", "key": "rows", "id": "m",
             "msg": {"t": "delta", "seq": 1, "ops": [{"op": "append", "text": "<b>hi"}]}}]}]}
    ]  # fmt: skip
    assert panel.state["chat"]["transcript"] == rows.state
    assert panel.state["chat"]["transcript"]["rows"][1]["live"]["tail"] == "<b>hi"
    assert chat.state["transcript"] == rows.state
    # Re-embedding another child at the key: the old one's changes stay its own.
    with inside_host():
        other = TranscriptView()
    chat.embed(other, "transcript")
    rows.set_rows([])
    assert chat.state["transcript"] == other.state
