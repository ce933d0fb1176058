"""The stylesheet's colours: every accent readable in both themes, as text and as a badge, and
every colour in the rules a CSS variable (JupyterLab's, or ours switched per theme)."""

from __future__ import annotations

import re

import pytest

from nb_hitl._render._css import CSS, FILLED_RULES
from nb_hitl._render._theme import BUTTONS, DARK, DARK_SPEAKERS, INK, LIGHT, SPEAKERS, var

PAGES = {"light": ("#ffffff", "#f2f2f2"), "dark": ("#111111", "#2a2a2a")}
"""Each theme's page and its most tinted row (a user or interrupted message over the page)."""


def _luminance(colour: str) -> float:
    def chan(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * chan(r) + 0.7152 * chan(g) + 0.0722 * chan(b)


def contrast(a: str, b: str) -> float:
    x, y = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_accent_reads_as_text_and_as_a_badge_in_both_themes(theme: str) -> None:
    palette = LIGHT if theme == "light" else DARK
    speakers = SPEAKERS if theme == "light" else DARK_SPEAKERS
    assert set(palette) == set(LIGHT) and len(speakers) == len(SPEAKERS)
    for name, colour in [*palette.items(), *enumerate(speakers)]:
        for page in PAGES[theme]:
            assert contrast(colour, page) >= 4.5, (theme, name, colour, page)
        assert contrast(colour, INK[theme]) >= 4.5, (theme, name, "badge ink")


def test_the_dark_scope_switches_every_accent() -> None:
    dark = CSS.split('body[data-jp-theme-light="false"]', 1)[1].split("}", 1)[0]
    for name, colour in DARK.items():
        assert f"--nb-hitl-{name}: {colour};" in dark
    for i, colour in enumerate(DARK_SPEAKERS):
        assert f"--nb-hitl-speaker-{i}: {colour};" in dark
    assert f"--nb-hitl-ink: {INK['dark']};" in dark


def test_every_colour_in_the_rules_is_a_variable() -> None:
    # Literal colours are allowed only as translucent tints (rgba over whatever the page is).
    literal = re.findall(r"#[0-9a-fA-F]{3,8}\b|\brgb\(|\bwhite\b(?!-)|\bblack\b", FILLED_RULES)
    assert literal == []
    pattern = r"(?<![-\w])(color|background|background-color|fill|stroke):\s*([^;]+);"
    for prop, value in re.findall(pattern, FILLED_RULES):
        keywords = ("var(--", "rgba(", "currentColor", "none", "inherit", "transparent")
        assert any(k in value for k in keywords), (prop, value)


def test_var_gives_the_light_colour_as_the_fallback() -> None:
    assert var("blue") == f"var(--nb-hitl-blue, {LIGHT['blue']})"
    assert var("fg").startswith("var(--nb-hitl-fg, var(--jp-ui-font-color1")


def test_styled_buttons_keep_white_labels_readable() -> None:
    for style, colour in BUTTONS.items():
        assert contrast(colour, "#ffffff") >= 4.5, style
        assert f".jupyter-button.mod-{style}" in CSS
