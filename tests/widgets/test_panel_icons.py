"""The panels' own icons (``js/src/shared/icons.js``, painted by ``icons.css`` in every front
end, marimo included, which has no Font Awesome): every icon name nb_hitl draws, in its Python
(buttons' ``icon="..."``, ``fa fa-...`` marks in kernel-rendered HTML) and in its front ends
(``fa-NAME`` classes, ``icon: "NAME"`` specs, ``icon("NAME")``), has a drawing there. That the
icons paint is ``tests/browser/test_panel_in_marimo.py``; that the CSS is made from the JS,
``js/test/shared_host.test.js``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ICONS_JS = ROOT / "js" / "src" / "shared" / "icons.js"
ICONS_CSS = ROOT / "js" / "src" / "shared" / "icons.css"


def drawn() -> set[str]:
    """The names icons.js draws (the keys of its ``ICONS`` map)."""
    body = ICONS_JS.read_text().split("export const ICONS = {", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r'^  "?([a-z][a-z-]*)"?:', body, flags=re.MULTILINE))


def used_in_python() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "nb_hitl").rglob("*.py"):
        text = path.read_text()
        names |= set(re.findall(r'\bicon="([a-z][a-z-]*)"', text))
        names |= set(re.findall(r"\bfa fa-([a-z][a-z-]*)", text))
    return names


def used_in_front_ends() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "js" / "src").rglob("*.js"):
        if path == ICONS_JS:
            continue
        text = path.read_text()
        names |= set(re.findall(r"\bfa fa-([a-z][a-z-]*)", text))
        names |= set(re.findall(r'\bicon: "([a-z][a-z-]*)"', text))
        names |= set(re.findall(r'\bicon\("([a-z][a-z-]*)"\)', text))
    return names


def test_every_icon_nb_hitl_uses_is_drawn_by_the_panels() -> None:
    names = drawn()
    assert {"check", "pencil", "times", "paper-plane", "wrench", "copy", "stop"} <= names
    missing = (used_in_python() | used_in_front_ends()) - names
    assert not missing, f"draw these in js/src/shared/icons.js: {sorted(missing)}"
    css = ICONS_CSS.read_text()
    scope = ":is(.nbh-panel, [data-nbh-theme])"  # and a panel's root in a shadow root (marimo)
    for name in names:
        assert f"{scope} i.fa.fa-{name} {{\n  --nbh-icon: url(" in css, name
