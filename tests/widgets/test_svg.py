"""The inspector's inline SVG token bar (the chart is the page's: js/test/inspector.test.js)."""

from __future__ import annotations

import re

from nb_hitl.widgets._svg import token_bar


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
