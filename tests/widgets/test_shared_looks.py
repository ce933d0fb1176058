"""Shared looks: the panels' widgets share frozen layouts and styles (far fewer comms).

The counts are those ``bench/panel_comms.py`` prints; a bound, not a timing.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pytest
from widget_helpers import RecordingComm

import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.demo import long_task_transcript
from nb_hitl.exceptions import NbHitlError, SharedLookError
from nb_hitl.message import ToolUseBlock
from nb_hitl.pipeline import MsgHub
from nb_hitl.widgets._approval import ApprovalCard
from nb_hitl.widgets._look import is_shared, look, set_display


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    import comm

    RecordingComm.log, RecordingComm.by_comm = [], []
    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    return RecordingComm.log


def comm_opens(log: list[tuple[str, dict[str, Any]]]) -> int:
    return sum(1 for kind, _ in log if kind == "comm_open")


def friday(name: str = "Friday") -> ReActAgent:
    return ReActAgent(name, "You are a test agent.", ScriptedModel(["Hello there."]))


async def test_a_panel_opens_about_half_the_comms_it_did(opened: list[Any]) -> None:
    first = nb_hitl.show(friday())
    assert comm_opens(opened) <= 95  # 164 before the looks were shared (bench/panel_comms.py)
    opened.clear()
    nb_hitl.show(friday("Second"))
    assert comm_opens(opened) <= 75  # the shared looks exist already
    opened.clear()
    nb_hitl.show(MsgHub([friday(f"A{i}") for i in range(3)]))
    assert comm_opens(opened) <= 80  # 125 before
    opened.clear()
    first.chat.agent.memory.add_sync(long_task_transcript()[:30])
    first.inspector.open_explorer()
    assert comm_opens(opened) <= 25  # 45 before
    opened.clear()
    card = ApprovalCard(first.chat.agent, ToolUseBlock(id="c", name="echo", input={"q": "hi"}))
    first.chat.append_widget(card)
    card.deny_button.click()  # the deny box opens inside the card's row
    # 63 before shared looks, 23 with them; a row of a segment now (this empty transcript's
    # first row opens the segment that later rows join).
    assert comm_opens(opened) <= 1
    # What users restyle keeps a layout of its own: the panel and its columns.
    first.layout.width = "900px"
    assert not is_shared(first.chat.layout) and not is_shared(first.inspector.layout)


async def test_a_shared_layout_refuses_changes_with_what_to_do() -> None:
    a = w.Button(description="a", **look(w.Button))
    b = w.Button(description="b", **look(w.Button))
    assert a.layout is b.layout and a.style is b.style and is_shared(a.layout)
    with pytest.raises(SharedLookError, match=r"widget.layout = ipywidgets.Layout\(width='9em'\)"):
        a.layout.width = "9em"
    with pytest.raises(SharedLookError, match=r"widget.style = ButtonStyle\(button_color="):
        a.style.button_color = "red"
    assert issubclass(SharedLookError, NbHitlError) and issubclass(SharedLookError, AttributeError)
    assert b.layout.width is None and b.style.button_color is None  # nothing changed
    a.layout = w.Layout(width="9em")  # what the message says works
    assert a.layout.width == "9em" and b.layout.width is None


async def test_showing_a_widget_gives_it_its_own_layout_only_when_needed() -> None:
    hidden = w.Button(**look(w.Button, layout={"display": "none", "width": "auto"}))
    other = w.Button(**look(w.Button, layout={"display": "none", "width": "auto"}))
    shared_layout = hidden.layout
    set_display(hidden, "none")  # already hidden: still the shared one
    assert hidden.layout is shared_layout
    set_display(hidden, "")
    assert hidden.layout is not shared_layout and not is_shared(hidden.layout)
    assert hidden.layout.display == "" and hidden.layout.width == "auto"  # its values kept
    assert other.layout is shared_layout and other.layout.display == "none"
