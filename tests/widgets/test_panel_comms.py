"""Comms: each panel is one model (a handful of comms), a card drawn inside opens none, and
every layout may be changed (the shared, frozen looks that once cut comms are gone).

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


async def test_each_panel_opens_a_handful_of_comms_and_a_card_none(opened: list[Any]) -> None:
    first = nb_hitl.show(friday())
    assert comm_opens(opened) <= 5  # 164, then 91 with shared looks, 12, now one model
    opened.clear()
    nb_hitl.show(friday("Second"))
    assert comm_opens(opened) <= 5
    opened.clear()
    nb_hitl.show(MsgHub([friday(f"A{i}") for i in range(3)]))
    assert comm_opens(opened) <= 5  # 125 before
    opened.clear()
    first.chat.agent.memory.add_sync(long_task_transcript()[:30])
    first.inspector.open_explorer()
    assert comm_opens(opened) == 0  # drawn inside the inspector (45 before)
    opened.clear()
    card = ApprovalCard(first.chat.agent, ToolUseBlock(id="c", name="echo", input={"q": "hi"}))
    first.chat.append_widget(card)
    card.deny_button.click()  # the deny box opens inside the card's row
    assert comm_opens(opened) == 0  # a row of the panel's transcript (63 before shared looks)
    # Layouts are the panel's own, and any widget's may be changed (nothing is shared).
    first.layout.width = "900px"
    first.chat.layout.width = "600px"
    button = w.Button(description="mine")
    button.layout.width = "9em"
    assert first.layout.width == "900px" and button.layout.width == "9em"


def test_shared_look_error_stays_importable_and_is_never_raised() -> None:
    """``SharedLookError`` (a shared layout was changed) is kept for code that catches it."""
    assert issubclass(SharedLookError, NbHitlError) and issubclass(SharedLookError, AttributeError)
    try:  # what old notebooks wrote around a layout change: the change now just happens
        label = w.HTML("x")
        label.layout.width = "10em"
    except SharedLookError:  # pragma: no cover - the point: never raised
        pytest.fail("SharedLookError raised")
    assert label.layout.width == "10em"
