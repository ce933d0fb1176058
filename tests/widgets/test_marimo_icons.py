"""The marimo host's icons headless: a button's ``icon`` drawn as ipywidgets draws it, and a
drawing for every icon nb_hitl uses (``_marimo_icons``). That the icons paint in marimo is
``tests/browser/test_panel_in_marimo.py``."""

from __future__ import annotations

import re
from pathlib import Path

import ipywidgets as w

from nb_hitl.widgets._marimo_html import render
from nb_hitl.widgets._marimo_icons import ICON_CSS, ICONS, icon_html

PACKAGE = Path(__file__).resolve().parents[2] / "nb_hitl"


def icons_used() -> set[str]:
    """Every icon name in nb_hitl's source: buttons' ``icon="..."`` and ``fa fa-...`` marks."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        names |= set(re.findall(r'\bicon="([a-z-]+)"', text))
        names |= set(re.findall(r"\bfa fa-([a-z-]+)", text))
        names |= set(re.findall(r"_icon\('([a-z-]+)'\)", text))
    return names


def test_every_icon_nb_hitl_uses_has_a_drawing() -> None:
    used = icons_used()
    assert {"check", "pencil", "times", "paper-plane", "wrench", "copy"} <= used
    assert used <= set(ICONS), f"draw these in _marimo_icons.ICONS: {sorted(used - set(ICONS))}"
    for name in ICONS:
        assert f"i.fa.fa-{name} {{ --nb-hitl-icon: url(" in ICON_CSS


def test_a_button_is_drawn_with_its_icon_first() -> None:
    html = render(w.Button(description="Approve", icon="check"), lambda c: "")
    assert re.search(r'<i class="fa fa-check" aria-hidden="true"></i>Approve</button>$', html)
    alone = render(w.Button(icon="stop"), lambda c: "")
    assert '<i class="fa fa-stop center" aria-hidden="true"></i></button>' in alone
    assert "<i" not in render(w.Button(description="Plain"), lambda c: "")
    toggle = render(w.ToggleButton(description="Pin", icon="thumb-tack"), lambda c: "")
    assert '<i class="fa fa-thumb-tack" aria-hidden="true"></i>Pin' in toggle


def test_icon_names_are_escaped() -> None:
    assert icon_html('x" onclick="alert(1)') == (
        '<i class="fa fa-x&quot; fa-onclick=&quot;alert(1)" aria-hidden="true"></i>'
    )
    assert icon_html("") == icon_html("  ") == ""
