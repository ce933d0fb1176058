"""The panel's colours in one place: CSS variables per theme (the rules are in ``_css.py``).

Every colour the widgets draw is a CSS variable. The neutral ones (text, muted text, page,
borders) come from JupyterLab's own variables (``--jp-ui-font-color1``, ``--jp-layout-color0``,
``--jp-border-color1``...), with fallbacks for front ends that have none. The accents (status,
badges, chart series, the hub's speakers) are ``--nb-hitl-<name>``: ``LIGHT`` by default and
``DARK`` under a dark theme (``body[data-jp-theme-light="false"]``, which every JupyterLab and
Notebook 7 dark theme sets; VS Code's ``body.vscode-dark`` too, untested). Each accent keeps a
contrast of at least 4.5:1 as text on its theme's page and as a badge's background under the
badge ink (white on the light accents, near-black on the dark ones); ``tests/test_theme.py``
checks the figures.

New widgets use the variables through ``var(name)`` (``var("blue")`` is
``var(--nb-hitl-blue, #1a5fb4)``) or a class of ``CSS``; SVG text uses ``currentColor``.

Layout: the panel's two columns (``nb-hitl-columns``) sit side by side when the cell is wide and
stack when it is narrow (flex-wrap on minimum widths, no fixed widths); rows of controls wrap;
buttons never shrink below their label; badges and table cells never break inside a word.
"""

from __future__ import annotations

LIGHT: dict[str, str] = {
    "blue": "#1a5fb4",
    "green": "#1b7340",
    "orange": "#a84a00",
    "red": "#c4001a",
    "purple": "#6f42c1",
    "grey": "#5f6b7a",
    "teal": "#0f6e7a",
    "violet": "#8e3aa8",
    "brown": "#7a5200",
}
"""Accents on a light page (each at least 5:1 against white, and white on it)."""

DARK: dict[str, str] = {
    "blue": "#78aeff",
    "green": "#5cc98a",
    "orange": "#f0a35c",
    "red": "#ff8a8a",
    "purple": "#c39bf5",
    "grey": "#a8b3c2",
    "teal": "#4fc3d1",
    "violet": "#e09af0",
    "brown": "#d9b25c",
}
"""The same accents for dark themes (each at least 7:1 against ``#111111``)."""

SPEAKERS: tuple[str, ...] = (
    "#1a5fb4",  # blue
    "#26734d",  # green
    "#7b2cbf",  # purple
    "#0f6e7a",  # teal
    "#a3246b",  # magenta
    "#6b6b00",  # olive
    "#7a4b00",  # brown
    "#4b5563",  # slate
)
"""The hub's speaker colours on a light page: at least 4.5:1 on white, none is the orange of
"interrupted" or the red of "error"."""

DARK_SPEAKERS: tuple[str, ...] = (
    "#78aeff",
    "#5cc98a",
    "#c39bf5",
    "#4fc3d1",
    "#f27cb8",
    "#c9c94a",
    "#d9a55c",
    "#a8b3c2",
)
"""The same hues, lighter, for dark themes: at least 4.5:1 on ``#111111``."""

BUTTONS: dict[str, str] = {"success": "#2e7d32", "warning": "#a85400", "info": "#0277bd"}
"""Backgrounds of ipywidgets' styled buttons whose defaults put white text below 4.5:1 (its
success green is 4.1:1, warning orange 2.8:1); the same in both themes, under white text."""

INK = {"light": "#ffffff", "dark": "#111111"}
"""Text on a badge (an accent background) in each theme."""

DARK_SCOPES = 'body[data-jp-theme-light="false"], body.vscode-dark'
"""Selectors of a page in a dark theme."""
LIGHT_SCOPES = ":root, [data-nbh-theme]"
"""Where the (light) variables are defined: the page, and a panel in a shadow root."""
SHADOW_DARK = '[data-nbh-theme="dark"]'
"""A panel in a shadow root of a dark page (marimo's dark theme)."""

NEUTRAL = {
    "fg": "var(--jp-ui-font-color1, #1f2933)",
    "bg": "var(--jp-layout-color0, #ffffff)",
    "border": "var(--jp-border-color1, #9aa5b1)",
    "rule": "var(--jp-border-color2, rgba(127, 127, 127, 0.25))",
    "surface": "var(--jp-layout-color1, #ffffff)",
    "muted": "var(--jp-ui-font-color1, #1f2933)",
}
"""The neutral colours, JupyterLab's own; ``muted`` is refined by ``color-mix`` where the
browser has it (JupyterLab's ``--jp-ui-font-color2`` is too faint on a tinted row)."""


def var(name: str) -> str:
    """``var(--nb-hitl-<name>, <light fallback>)`` for an accent or a neutral colour."""
    fallback = LIGHT.get(name) or NEUTRAL[name]
    return f"var(--nb-hitl-{name}, {fallback})"


def paint(
    fill: str | None = None, stroke: str | None = None, *, fill_opacity: float | None = None
) -> str:
    """A ``style`` attribute colouring an SVG shape from the theme (``var`` names); CSS, not
    presentation attributes, because only CSS reads variables."""
    parts = []
    if fill:
        parts.append(f"fill:{var(fill)}")
    if stroke:
        parts.append(f"stroke:{var(stroke)}")
    if fill_opacity is not None:
        parts.append(f"fill-opacity:{fill_opacity}")
    return f' style="{";".join(parts)}"'


def variables() -> str:
    """The variables' definitions: light on ``:root``, dark under ``DARK_SCOPES``.

    A panel drawn in a shadow root (marimo's ``mo.ui.anywidget``), where this stylesheet's
    ``:root`` and ``body`` match nothing, carries the page's theme on its root instead
    (``data-nbh-theme``, set by ``js/src/shared/host.js``): the same values are defined there.
    """
    light = "".join(f"--nb-hitl-{k}: {v}; " for k, v in LIGHT.items())
    dark = "".join(f"--nb-hitl-{k}: {v}; " for k, v in DARK.items())
    speakers = "".join(f"--nb-hitl-speaker-{i}: {c}; " for i, c in enumerate(SPEAKERS))
    night = "".join(f"--nb-hitl-speaker-{i}: {c}; " for i, c in enumerate(DARK_SPEAKERS))
    neutral = "".join(f"--nb-hitl-{k}: {v}; " for k, v in NEUTRAL.items())
    neutral += "".join(f"--nb-hitl-button-{k}: {v}; " for k, v in BUTTONS.items())
    neutral += f"--nb-hitl-button-ink: {INK['light']}; "
    muted = "color-mix(in srgb, var(--nb-hitl-fg) 72%, var(--nb-hitl-bg))"
    return (
        f"{LIGHT_SCOPES} {{ {neutral}{light}{speakers}--nb-hitl-ink: {INK['light']}; }}\n"
        f"{DARK_SCOPES}, {SHADOW_DARK} {{ {dark}{night}--nb-hitl-ink: {INK['dark']}; }}\n"
        "@supports (color: color-mix(in srgb, red, blue)) {\n"
        f"  {LIGHT_SCOPES} {{ --nb-hitl-muted: {muted}; }} }}\n"
    )


__all__ = [
    "BUTTONS",
    "DARK",
    "DARK_SCOPES",
    "DARK_SPEAKERS",
    "INK",
    "LIGHT",
    "NEUTRAL",
    "SPEAKERS",
    "paint",
    "var",
    "variables",
]
