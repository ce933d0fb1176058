"""What-if controls shared by the MemoryInspector and the CompressionExplorer.

Both show ``trigger_threshold`` and ``keep_recent`` as a slider paired with a number box, and a
one-line note for outcomes and errors.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from nb_hitl._render import esc

from ._look import look
from ._loop import LoopBridge


def _mirror(target: w.Widget) -> Any:
    def copy(change: dict[str, Any]) -> None:
        value = change["new"]
        if isinstance(target, w.IntSlider) and value > target.max:
            target.max = value
        if target.value != value:
            target.value = value

    return copy


def pair(slider: w.IntSlider, box: w.BoundedIntText, bridge: LoopBridge) -> None:
    """Make a slider and its number box mirror each other.

    Typing past the slider's end extends the slider instead of being clamped.
    """
    slider.observe(bridge.callback(_mirror(box)), "value")
    box.observe(bridge.callback(_mirror(slider)), "value")


def slider_pair(
    description: str,
    value: int,
    low: int,
    high: int,
    box_max: int,
    bridge: LoopBridge,
    **slider_options: Any,
) -> tuple[w.IntSlider, w.BoundedIntText]:
    """A slider from ``low`` to ``high`` and a number box up to ``box_max``, mirrored (``pair``)."""
    given = slider_options.pop("layout", True)  # a dict: the shared layout with those values
    options = {**look(w.IntSlider, layout=given if isinstance(given, dict) else True)}
    if isinstance(given, w.Layout):
        options["layout"] = given
    options.update(slider_options)
    slider = w.IntSlider(value=value, min=low, max=high, description=description, **options)
    box = w.BoundedIntText(
        value=value, min=low, max=box_max, **look(w.BoundedIntText, layout={"width": "110px"})
    )
    pair(slider, box, bridge)
    return slider, box


def set_slider(slider: w.IntSlider, value: int, grow: float = 1.5) -> None:
    """Move ``slider`` to ``value``, first widening its end to ``value * grow`` if it is past."""
    if value > slider.max:
        slider.max = int(value * grow)
    slider.value = int(value)


class WhatIfSliders:
    """``threshold`` and ``keep_recent`` read from and written to the what-if sliders.

    Mixed into a widget that has ``threshold_slider`` and ``keep_slider``. Writing a value past
    a slider's end widens the slider.
    """

    threshold_slider: w.IntSlider
    keep_slider: w.IntSlider

    @property
    def threshold(self) -> int:
        """The what-if ``trigger_threshold`` (the slider)."""
        return int(self.threshold_slider.value)

    @threshold.setter
    def threshold(self, value: int) -> None:
        set_slider(self.threshold_slider, value)

    @property
    def keep_recent(self) -> int:
        """The what-if ``keep_recent`` (the slider)."""
        return int(self.keep_slider.value)

    @keep_recent.setter
    def keep_recent(self, value: int) -> None:
        set_slider(self.keep_slider, value)


def note_html(text: str, error: bool = False) -> str:
    """The escaped one-line note (an error in the error colour); empty for no text."""
    cls = "nb-hitl-status-error" if error else "nb-hitl-note"
    return f'<span class="{cls}">{esc(text)}</span>' if text else ""


__all__ = ["WhatIfSliders", "note_html", "pair", "set_slider", "slider_pair"]
