"""The kernel-wide comm pacer: updates go out at once while there is room, else in order."""

from __future__ import annotations

import asyncio
from typing import Any

import ipywidgets as w
import pytest
from widget_helpers import RecordingComm, until

from nb_hitl.widgets._pacer import CommPacer, walk


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    import comm

    RecordingComm.log = []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return RecordingComm.log


def updates(log: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [d for kind, d in log if kind == "comm_msg"]


async def test_updates_go_out_at_once_while_there_is_room(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=50, burst=5)
    box = w.VBox([w.HTML("a"), w.Button(description="b")])
    pacer.pace(walk(box))
    box.children[0].value = "new"
    assert updates(recorded)[-1]["state"] == {"value": "new"} and pacer.backlog == 0


async def test_a_burst_is_queued_in_order_merged_and_drained(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=200, burst=3)
    rows = [w.HTML("") for _ in range(5)]
    pacer.pace(rows)
    recorded.clear()
    for i, row in enumerate(rows):
        row.value = f"first {i}"
    rows[0].send({"delta": 1})  # custom messages are never merged
    for i, row in enumerate(rows):
        row.value = f"last {i}"  # replaces its queued update, keeping its place in line
    assert len(updates(recorded)) == 3 and pacer.backlog > 0
    await until(lambda: pacer.backlog == 0, what="the queue drained")
    sent = updates(recorded)
    values = [d["state"]["value"] for d in sent if d.get("method") == "update"]
    assert values == ["first 0", "first 1", "first 2", "last 3", "last 4", "last 0", "last 1",
                      "last 2"]  # fmt: skip
    assert {"method": "custom", "content": {"delta": 1}} in sent
    assert [r.value for r in rows] == [f"last {i}" for i in range(5)]  # the kernel's state
    assert pacer.merged == 2


async def test_an_urgent_update_goes_first_after_its_widgets_own(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=20, burst=1)
    other, row = w.HTML(""), w.HTML("")
    pacer.pace([other, row])
    other.value = "x"  # takes the only token
    row.value = "queued"
    other.value = "y"
    with pacer.urgent(row):
        row.add_class("nb-hitl-interrupted")
    sent = [d["state"] for d in updates(recorded)[-3:]]
    assert sent == [{"value": "x"}, {"value": "queued"}, {"_dom_classes": ("nb-hitl-interrupted",)}]
    assert pacer.backlog == 1  # the other widget's update still waits its turn
    await until(lambda: pacer.backlog == 0)


async def test_a_closed_widgets_queued_updates_are_dropped(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=50, burst=1)
    first, gone = w.HTML(""), w.HTML("")
    pacer.pace([first, gone])
    first.value = "sent"
    gone.value = "never"
    gone.close()
    await until(lambda: pacer.backlog == 0)
    assert {"value": "never"} not in [d.get("state") for d in updates(recorded)]


async def test_no_pacing_sends_everything_and_bad_rates_are_refused(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=None)
    rows = [w.HTML("") for _ in range(20)]
    pacer.pace(rows)
    for row in rows:
        row.value = "v"
    assert pacer.backlog == 0 and pacer.sent == 20
    with pytest.raises(ValueError, match="or None for no pacing"):
        CommPacer(asyncio.get_running_loop(), per_second=0)
