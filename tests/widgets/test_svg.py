"""The inspector's inline SVG: the token bar and the step-by-step tokens chart."""

from __future__ import annotations

import re

from nb_hitl.widgets._svg import steps_chart, token_bar


def widths(svg: str) -> list[float]:
    return [float(w) for w in re.findall(r'<rect x="[\d.]+" y="8" width="([\d.]+)"', svg)]


def test_bar_parts_are_proportional_and_lines_are_drawn() -> None:
    svg = token_bar(1000, 800, compress_tokens=500, recent_tokens=200, after=600, fixed_tokens=100)
    fixed, other, compress, recent = widths(svg)
    assert abs(compress / recent - 2.5) < 0.01 and abs(other / fixed - 2.0) < 0.01
    assert 'class="nb-hitl-threshold-line"' in svg and 'class="nb-hitl-keep-line"' in svg
    assert 'data-total="1000"' in svg and 'data-threshold="800"' in svg


def test_no_threshold_means_no_threshold_line() -> None:
    assert "nb-hitl-threshold-line" not in token_bar(100, 0, 0, 50, 100)
    assert "trigger_threshold" not in steps_chart([("turn", 10, "a"), ("turn", 20, "b")], 0)


def test_chart_has_a_point_per_turn_and_compression_marks() -> None:
    svg = steps_chart([("turn", 100, "t1"), ("turn", 900, "t2"), ("compress", 300, "c")], 800)
    assert svg.count("<circle") == 2
    assert svg.count('class="nb-hitl-compression-mark"') == 1
    assert "trigger_threshold: 800" in svg
    assert steps_chart([], 800).startswith("<svg")
