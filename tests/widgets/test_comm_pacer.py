"""The kernel-wide budget's batches: out at once while there is room, else in order, joined.

Every panel (one ``PanelModel``) sends its op batches through its loop's budget
(``_budget.IopubBudget``; ``comm_pacer(loop)`` is the same budget under the former pacer's
name). While a panel's batch waits, the panel's newer ops join it under the same ``seq``: the
page sees every panel's batches in sequence and ends with the kernel's state.
"""

from __future__ import annotations

import asyncio
from typing import Any

import comm
import pytest
from widget_helpers import RecordingComm, until

from nb_hitl.widgets._budget import IopubBudget, iopub_budget, join_ops
from nb_hitl.widgets._model import PanelModel, apply_op
from nb_hitl.widgets._pacer import CommPacer, comm_pacer, walk


class Part(PanelModel):
    _esm = "export default { render() {} };"


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return RecordingComm.by_comm


def batches(log: list[tuple[str, str, dict[str, Any]]], panel: PanelModel) -> list[Any]:
    """The custom messages ``panel``'s page got, in order."""
    return [
        d["content"]
        for cid, kind, d in log
        if cid == panel.model_id and kind == "comm_msg" and d.get("method") == "custom"
    ]


def page_state(panel: PanelModel, log: list[Any]) -> dict[str, Any]:
    """What ``panel``'s page ends with: its opening snapshot, then each batch in sequence
    (a batch out of sequence fails the test: the page would have to ask for a snapshot)."""
    state: dict[str, Any] = {}
    seq = 0
    opened = [d for cid, kind, d in log if cid == panel.model_id and kind == "comm_open"]
    if opened:
        snap = opened[0]["state"]["snapshot"]
        state, seq = dict(snap["state"]), snap["seq"]
    for msg in batches(log, panel):
        assert msg["t"] == "ops" and msg["seq"] == seq + 1, (msg["seq"], seq)
        seq = msg["seq"]
        for op in msg["ops"]:
            apply_op(state, op)
    assert seq == panel.seq
    return state


def budget(per_second: float | None, burst: int) -> IopubBudget:
    """The running loop's budget (the one every panel here uses), at ``per_second``."""
    out = iopub_budget()
    out.set_rate(per_second, burst)
    return out


async def test_batches_go_out_at_once_while_there_is_room(recorded: list[Any]) -> None:
    pacer = budget(50, 5)
    panel = Part({"text": "a"})
    panel.set_view(text="new")
    assert batches(recorded, panel)[-1]["ops"] == [{"op": "set", "key": "text", "value": "new"}]
    assert pacer.backlog == 0 and pacer.sent == 1
    assert comm_pacer(asyncio.get_running_loop()) is pacer and CommPacer is IopubBudget


async def test_a_burst_waits_in_order_joins_and_drains(recorded: list[Any]) -> None:
    pacer = budget(200, 3)
    panels = [Part({"text": "", "log": []}) for _ in range(5)]
    for i, panel in enumerate(panels):
        panel.set_view(text=f"first {i}")
    panels[0].apply_ops([{"op": "append", "key": "log", "items": [{"id": "d1"}]}])
    for i, panel in enumerate(panels):
        panel.set_view(text=f"last {i}")  # joins its waiting batch, keeping its place in line
    sent_now = [d for _cid, kind, d in recorded if kind == "comm_msg"]
    assert len(sent_now) == 3 and pacer.backlog > 0
    await until(lambda: pacer.backlog == 0, what="the queue drained")
    for i, panel in enumerate(panels):
        assert page_state(panel, recorded) == panel.state  # the kernel's state, in sequence
        assert panel.state["text"] == f"last {i}"
    # 3 first batches went out; each later change joined its panel's waiting batch
    assert [len(batches(recorded, p)) for p in panels] == [2, 2, 2, 1, 1]
    assert [op["op"] for op in batches(recorded, panels[0])[1]["ops"]] == ["append", "set"]
    assert pacer.merged == 3


async def test_an_urgent_batch_goes_first_after_its_panels_own(recorded: list[Any]) -> None:
    pacer = budget(20, 1)
    other, row = Part({"v": ""}), Part({"v": "", "cls": ""})
    other.set_view(v="x")  # takes the only token
    row.set_view(v="queued")
    other.set_view(v="y")
    with pacer.urgent(row):
        row.set_view(cls="nb-hitl-interrupted")
    out = [d["content"]["ops"] for _cid, kind, d in recorded if kind == "comm_msg"]
    assert out[-3:] == [
        [{"op": "set", "key": "v", "value": "x"}],
        [{"op": "set", "key": "v", "value": "queued"}],
        [{"op": "set", "key": "cls", "value": "nb-hitl-interrupted"}],
    ]
    assert pacer.backlog == 1  # the other panel's batch still waits its turn
    await until(lambda: pacer.backlog == 0)


async def test_a_page_action_is_answered_at_once_behind_a_backlog(recorded: list[Any]) -> None:
    pacer = budget(0.5, 1)
    other, panel = Part({"v": ""}), Part({"n": 0})
    panel.on_action("bump", lambda: panel.set_view(n=panel.state["n"] + 1))
    other.set_view(v="takes the token")
    other.set_view(v="waits")
    panel.page_message({"t": "action", "name": "bump", "args": {}})
    assert batches(recorded, panel)[-1]["ops"] == [{"op": "set", "key": "n", "value": 1}]
    assert pacer.backlog == 1


async def test_a_closed_panels_waiting_batches_are_dropped(recorded: list[Any]) -> None:
    pacer = budget(50, 1)
    first, gone = Part({"v": ""}), Part({"v": ""})
    first.set_view(v="sent")
    gone.set_view(v="never")
    gone_id = gone.model_id
    gone.close()
    await until(lambda: pacer.backlog == 0)
    assert [k for cid, k, _d in recorded if cid == gone_id] == ["comm_open", "comm_close"]


async def test_no_budget_sends_everything_and_bad_rates_are_refused(recorded: list[Any]) -> None:
    pacer = budget(None, 1)
    panels = [Part({"v": ""}) for _ in range(20)]
    for panel in panels:
        panel.set_view(v="v")
    assert pacer.backlog == 0 and pacer.sent == 20
    with pytest.raises(ValueError, match="or None for no budget"):
        IopubBudget(asyncio.get_running_loop(), per_second=0)


def test_a_later_set_of_a_part_replaces_what_waits_on_that_part_only() -> None:
    batch = [
        {"op": "set", "key": "a", "value": 1},
        {"op": "append", "key": "rows", "items": [{"id": "r1"}]},
        {"op": "merge", "key": "a", "value": {"x": 1}},
    ]
    join_ops(batch, [{"op": "set", "key": "a", "value": 2}, {"op": "remove", "key": "rows"}])
    assert batch == [
        {"op": "append", "key": "rows", "items": [{"id": "r1"}]},
        {"op": "set", "key": "a", "value": 2},
        {"op": "remove", "key": "rows"},
    ]


def test_walk_and_pace_are_kept_for_the_former_callers() -> None:
    import ipywidgets as w

    box = w.VBox([w.HTML("a"), w.Button(description="b")])
    assert len(walk(box)) == 3
    loop = asyncio.new_event_loop()
    try:
        comm_pacer(loop).pace(walk(box))  # nothing to do: a panel paces itself
        assert comm_pacer(loop).backlog == 0
    finally:
        loop.close()


async def test_a_hub_panels_batches_share_the_budget_and_its_page_ends_equal(
    recorded: list[Any],
) -> None:
    """A hub streams through the same budget as the chats: its batches count against the
    loop's rate, wait in line when there is no room (joined, as every panel's), and its
    page, replaying them in sequence, ends with the hub's state."""
    import nb_hitl
    from nb_hitl.agent import ReActAgent
    from nb_hitl.message import Msg
    from nb_hitl.model import ScriptedModel
    from nb_hitl.pipeline import MsgHub

    def speaker(name: str, text: str) -> ReActAgent:
        return ReActAgent(name, f"You are {name}.", ScriptedModel([text], tokens_per_second=400))

    pacer = budget(20, 2)
    alice = speaker("Alice", " ".join(f"tab{i}" for i in range(60)))
    bob = speaker("Bob", " ".join(f"space{i}" for i in range(60)))
    hub = MsgHub([alice, bob], announcement=Msg("Host", "Tabs or spaces?", "user"))
    panel = nb_hitl.show(hub, inspector=False)
    panel.start(msg=Msg("User", "Go.", "user"))
    await panel.wait()
    await until(lambda: pacer.backlog == 0, what="the queue drained")
    got = batches(recorded, panel)
    assert got and pacer.sent >= len(got)  # every hub batch went out through the budget
    assert pacer.merged > 0  # and some waited for room and joined
    opened = next(d for cid, kind, d in recorded if cid == panel.model_id and kind == "comm_open")
    state, seq = dict(opened["state"]["snapshot"]["state"]), opened["state"]["snapshot"]["seq"]
    for msg in got:
        assert msg["t"] == "ops" and msg["seq"] == seq + 1, (msg["seq"], seq)
        seq = msg["seq"]
        for op in msg["ops"]:
            panel._apply_to(state, op)
    assert seq == panel.seq
    assert state == panel.view_state
    texts = " ".join(str(row) for row in state["rows"])
    assert "tab59" in texts and "space59" in texts
