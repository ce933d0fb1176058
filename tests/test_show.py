"""``nb_hitl.show``: what it accepts, and a clear refusal of anything else."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest
from ipywidgets.widgets import widget as widget_module

import nb_hitl
from nb_hitl.model import ScriptedModel


def open_widgets() -> int:
    return len(widget_module._instances)


@pytest.mark.parametrize("value", [42, "Friday", ScriptedModel.demo()], ids=["int", "str", "model"])
def test_show_refuses_what_is_not_an_agent_and_leaves_nothing_behind(
    value: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    before = open_widgets()
    with pytest.raises(TypeError) as info:
        nb_hitl.show(value)
    message = str(info.value)
    assert "show() takes an agent" in message and "MsgHub" in message
    assert type(value).__name__ in message
    if isinstance(value, ScriptedModel):
        assert "A model is not an agent" in message and "ReActAgent(" in message
    del info
    gc.collect()
    assert open_widgets() == before  # no half-built panel holds comms
    assert unraisable == []  # no "Exception ignored in: Widget.__del__" later
