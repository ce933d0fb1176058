"""The widgets' comm seam (``_comm.WidgetComm``): what the pacer and the marimo host share.

Every message a tapped widget sends (trait updates and ``widget.send`` custom messages) goes
through its comm in the order the widget made them; the pacer may hold and merge them, but
the front end must see each widget's messages in the kernel's order and end with the
kernel's state.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import ipywidgets as w
import pytest
from widget_helpers import RecordingComm, until

from nb_hitl.widgets import MarimoHost
from nb_hitl.widgets._comm import WidgetComm, tap, tapped
from nb_hitl.widgets._pacer import CommPacer


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    import comm

    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return RecordingComm.by_comm


def sent_by(log: list[tuple[str, str, dict[str, Any]]], widget: w.Widget) -> list[dict[str, Any]]:
    return [d for cid, kind, d in log if cid == widget.model_id and kind == "comm_msg"]


def front_end_state(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The state a front end ends with after applying ``messages`` in order."""
    state: dict[str, Any] = {}
    for m in messages:
        if m.get("method") == "update":
            state.update(m["state"])
    return state


SLOW = 0.5
"""Updates per second: slow enough that nothing queued in a test goes out before it drains."""


def jam(pacer: CommPacer) -> w.HTML:
    """Take the pacer's only token, so what follows queues."""
    other = w.HTML("")
    pacer.pace([other])
    other.value = "takes the token"
    return other


async def test_pacing_uses_the_comm_not_a_private_ipywidgets_method(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=100, burst=5)
    label = w.HTML("")
    kernel_comm = label.comm
    pacer.pace([label])
    comm = tapped(label)
    assert isinstance(comm, WidgetComm) and comm.inner is kernel_comm and comm.pacer is pacer
    assert "_send" not in vars(label)  # Widget._send is left as ipywidgets made it
    assert label.model_id == kernel_comm.comm_id  # the front end knows it by the same id
    # A front-end message still arrives through the kernel's comm (its comm manager's route).
    kernel_comm.handle_msg({"content": {"data": {"method": "update", "state": {"value": "x"}}}})
    assert label.value == "x"
    label.close()
    assert comm.closed and [kind for _cid, kind, _d in recorded][-1] == "comm_close"


async def test_custom_messages_and_updates_keep_their_order_under_a_backlog(
    recorded: list[Any],
) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=SLOW, burst=1)
    jam(pacer)
    row = w.HTML("")
    pacer.pace([row])
    row.value = "a"
    row.send({"delta": 1})
    row.value = "b"  # after the delta: not merged into "a" (it would jump the delta)
    row.value = "c"  # merged into "b", in its place
    row.send({"delta": 2})
    row.add_class("done")
    row.value = "d"  # may jump the class update (other traits), not the delta before it
    pacer.set_rate(None)  # what waits goes out now, in order
    got = [
        m["content"]["delta"] if m["method"] == "custom" else m["state"]
        for m in sent_by(recorded, row)
    ]
    assert got == [{"value": "a"}, 1, {"value": "c"}, 2, {"_dom_classes": ("done",)},
                   {"value": "d"}]  # fmt: skip
    assert pacer.merged == 1


async def test_an_update_never_jumps_another_update_of_its_traits(recorded: list[Any]) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=SLOW, burst=1)
    jam(pacer)
    button = w.Button(description="")
    pacer.pace([button])
    for i in range(3):
        button.description = f"d{i}"
        button.tooltip = f"t{i}"  # disjoint traits: each merges into its own, in place
    with button.hold_sync():
        button.description, button.tooltip = "both", "both"  # one update of two traits
    button.description = "last"  # must not jump the two-trait update
    pacer.set_rate(None)  # what waits goes out now, in order
    sent = sent_by(recorded, button)
    assert front_end_state(sent) == {"description": "last", "tooltip": "both"}
    assert [m["state"] for m in sent][:2] == [{"description": "d2"}, {"tooltip": "t2"}]
    assert pacer.merged == 4


async def test_an_update_from_a_comm_thread_waits_behind_its_widgets_queue(
    recorded: list[Any],
) -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=SLOW, burst=1)
    jam(pacer)
    box = w.Text("")
    pacer.pace([box])
    box.placeholder = "queued first"
    box.value = "queued too"
    thread = threading.Thread(target=lambda: setattr(box, "value", "from the front end's thread"))
    thread.start()
    thread.join()
    await until(lambda: pacer.backlog == 3, what="the thread's update queued on the loop")
    pacer.set_rate(None)  # what waits goes out now, in order
    sent = sent_by(recorded, box)
    assert front_end_state(sent)["value"] == "from the front end's thread" == box.value
    assert [m["state"] for m in sent][-1] == {"value": "from the front end's thread"}


async def test_a_hosted_widget_is_paced_then_drawn_by_its_host_in_order() -> None:
    pacer = CommPacer(asyncio.get_running_loop(), per_second=SLOW, burst=1)
    label, button = w.HTML("start"), w.Button(description="go")
    root = w.VBox([label, button])
    pacer.pace([root, label, button])
    host = MarimoHost(root)
    pages: list[dict[str, Any]] = []
    host.send = lambda content, buffers=None: pages.append(content)  # type: ignore[method-assign]
    comm = tapped(label)
    assert comm is not None and comm.route is host and comm.pacer is pacer  # one seam, both
    jam(pacer)
    for i in range(20):
        label.value = f"v{i}"  # one queued update, merged 19 times
    button.description = "stop"
    assert pacer.backlog == 2 and pacer.merged == 19
    pacer.set_rate(None)  # what waits goes out now, in order
    host.flush()
    drawn = "".join(html for p in pages for _cid, html in p["replace"])
    assert "v19" in drawn and "v0<" not in drawn and "stop" in drawn
    # The page's messages reach the widget through the same comm.
    typed = {"method": "update", "state": {"description": "x"}}
    host._on_front_end(host, {"w": button.model_id, "data": typed}, [])
    assert button.description == "x"
    cid = label.model_id
    label.close()
    assert cid not in host._widgets and comm.closed  # forgotten by the host too


async def test_tap_is_idempotent_and_keeps_the_kernel_comm(recorded: list[Any]) -> None:
    label = w.HTML("")
    first = tap(label)
    assert tap(label) is first and tapped(label) is first
    label.value = "through the tap"
    assert sent_by(recorded, label)[-1]["state"] == {"value": "through the tap"}
