"""The order a panel's messages keep under the kernel-wide budget.

A panel's op batches go through the
loop's budget (``_budget.IopubBudget``), which may hold them and join a panel's newer ops to
its waiting batch, but the page must see each panel's ops in the kernel's order and end with
the kernel's state.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as w
import pytest
from widget_helpers import RecordingComm, until

from nb_hitl.widgets._budget import IopubBudget, iopub_budget
from nb_hitl.widgets._model import PanelModel, apply_op


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    import comm

    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return RecordingComm.by_comm


def sent_by(log: list[tuple[str, str, dict[str, Any]]], widget: w.Widget) -> list[dict[str, Any]]:
    return [d for cid, kind, d in log if cid == widget.model_id and kind == "comm_msg"]


class Part(PanelModel):
    _esm = "export default { render() {} };"


def ops_of(log: list[tuple[str, str, dict[str, Any]]], panel: PanelModel) -> list[list[Any]]:
    """The ops of each batch ``panel``'s page got, in order."""
    return [d["content"]["ops"] for d in sent_by(log, panel) if d.get("method") == "custom"]


def page_state(panel: PanelModel, log: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    """The state ``panel``'s page ends with: its opening snapshot, then its batches in order."""
    opened = [d for cid, kind, d in log if cid == panel.model_id and kind == "comm_open"]
    state = dict(opened[0]["state"]["snapshot"]["state"])
    for ops in ops_of(log, panel):
        for op in ops:
            apply_op(state, op)
    return state


SLOW = 0.5
"""Messages per second: slow enough that nothing queued in a test goes out before it drains."""


def jam(budget: IopubBudget) -> Part:
    """Take the budget's only token, so what follows waits."""
    budget.set_rate(SLOW, 1)
    other = Part({"v": ""})
    other.set_view(v="takes the token")
    return other


async def test_a_panels_ops_keep_their_order_under_a_backlog(recorded: list[Any]) -> None:
    budget = iopub_budget()
    jam(budget)
    row = Part({"text": "", "log": [], "meta": {}})
    row.set_view(text="a")
    row.apply_ops([{"op": "append", "key": "log", "items": [{"id": "d1"}]}])
    row.set_view(text="b")  # replaces "a" in the waiting batch, after the delta
    row.apply_ops([{"op": "merge", "key": "meta", "value": {"done": True}}])
    row.set_view(text="c")
    budget.set_rate(None)  # what waits goes out now, in order
    assert ops_of(recorded, row) == [
        [
            {"op": "append", "key": "log", "items": [{"id": "d1"}]},
            {"op": "merge", "key": "meta", "value": {"done": True}},
            {"op": "set", "key": "text", "value": "c"},
        ]
    ]
    assert page_state(row, recorded) == row.state and row.seq == 1
    assert budget.merged == 4


async def test_a_set_never_drops_an_op_on_another_part(recorded: list[Any]) -> None:
    budget = iopub_budget()
    jam(budget)
    button = Part({"description": "", "tooltip": ""})
    for i in range(3):
        button.set_view(description=f"d{i}")
        button.set_view(tooltip=f"t{i}")  # disjoint parts: each replaces its own
    button.set_view(description="both", tooltip="both")  # one batch of two parts
    button.set_view(description="last")
    budget.set_rate(None)  # what waits goes out now, in order
    assert page_state(button, recorded) == {"description": "last", "tooltip": "both"}
    assert ops_of(recorded, button) == [
        [
            {"op": "set", "key": "tooltip", "value": "both"},
            {"op": "set", "key": "description", "value": "last"},
        ]
    ]


async def test_a_batch_from_a_comm_thread_waits_behind_its_panels_queue(
    recorded: list[Any],
) -> None:
    budget = iopub_budget()
    jam(budget)
    box = Part({"placeholder": "", "value": ""})
    box.set_view(placeholder="queued first")
    box.set_view(value="queued too")
    thread = threading.Thread(target=lambda: box.set_view(value="from the front end's thread"))
    thread.start()
    thread.join()
    await until(lambda: budget.backlog == 2, what="the thread's batch queued on the loop")
    budget.set_rate(None)  # what waits goes out now, in order
    assert page_state(box, recorded)["value"] == "from the front end's thread"
    assert [m["content"]["seq"] for m in sent_by(recorded, box)] == [1, 2]
    assert ops_of(recorded, box)[-1] == [
        {"op": "set", "key": "value", "value": "from the front end's thread"}
    ]
