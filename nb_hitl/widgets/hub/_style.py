"""The hub panel's look: one stable colour per participant, and the "who is speaking" bar.

Colours go on rows as a class (``nb-hitl-speaker-N``), never inline in message HTML, so the
chat's own rendering (``nb_hitl._render``) and its interrupted and error styles stay in
charge: those use ``!important`` and win over a speaker's colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nb_hitl._render import esc

PALETTE: tuple[str, ...] = (
    "#1a5fb4",  # blue
    "#26734d",  # green
    "#7b2cbf",  # purple
    "#0f6e7a",  # teal
    "#a3246b",  # magenta
    "#6b6b00",  # olive
    "#7a4b00",  # brown
    "#4b5563",  # slate
)
"""Speaker colours: each has a contrast of at least 4.5:1 on white (WCAG AA for text), and
none is the orange of "interrupted" or the red of "error"."""

DARK_PALETTE: tuple[str, ...] = (
    "#78aeff",
    "#5cc98a",
    "#c39bf5",
    "#4fc3d1",
    "#f27cb8",
    "#c9c94a",
    "#d9a55c",
    "#a8b3c2",
)
"""The same hues, lighter, for JupyterLab's dark themes: at least 4.5:1 on its ``#111111``."""


def speaker_class(index: int) -> str:
    """The CSS class of the ``index``-th participant's rows and chip."""
    return f"nb-hitl-speaker-{index % len(PALETTE)}"


def _css() -> str:
    rules = []
    dark = '[data-jp-theme-light="false"]'
    for i, (colour, night) in enumerate(zip(PALETTE, DARK_PALETTE, strict=True)):
        c = f"nb-hitl-speaker-{i}"
        for scope, col, ink in (("", colour, "white"), (f"{dark} ", night, "#111111")):
            rules.append(
                f"{scope}.{c}.nb-hitl-msg, {scope}.{c} .nb-hitl-msg "
                f"{{ border-left-color: {col}; }}\n"
                f"{scope}.{c} .nb-hitl-head b, {scope}.nb-hitl-chip.{c} {{ color: {col}; }}\n"
                f"{scope}.nb-hitl-chip.{c}.nb-hitl-speaking {{ background: {col}; color: {ink}; }}"
            )
    return (
        "<style>\n"
        ".nb-hitl-hub { font-family: var(--jp-ui-font-family, sans-serif); }\n"
        ".nb-hitl-hub .widget-html-content { line-height: 1.4; }\n"
        ".nb-hitl-chip { display: inline-block; font-size: 12px; padding: 0 8px; margin: 0 4px"
        " 2px 0; border: 1px solid currentColor; border-radius: 10px; }\n"
        ".nb-hitl-chip.nb-hitl-speaking { font-weight: bold; }\n"
        ".nb-hitl-now { font-size: 12px; color: #52606d; }\n"
        ".nb-hitl-hub-pause { border-left: 4px solid #e67e22; padding: 4px 8px; margin: 4px 0;"
        " background: rgba(230,126,34,0.08); }\n"
        ".nb-hitl-hub .widget-button { width: auto; min-width: 0; flex-shrink: 0; }\n"
        ".nb-hitl-hub .widget-textarea { max-width: calc(100% - 4px); min-width: 0; }\n"
        + "\n".join(rules)
        + "\n</style>"
    )


HUB_CSS = _css()
"""The hub's own styles (the chat's ``CSS`` is included next to it)."""


def speakers_html(
    names: Sequence[str],
    classes: dict[str, str],
    speaking: Iterable[str],
    now: str,
) -> str:
    """The participants as coloured chips (the speaking ones filled) and a status line."""
    active = set(speaking)
    chips = []
    for name in names:
        cls = f"nb-hitl-chip {classes.get(name, '')}"
        mark = "&#9679; " if name in active else ""
        if name in active:
            cls += " nb-hitl-speaking"
        chips.append(f'<span class="{cls}" data-name="{esc(name)}">{mark}{esc(name)}</span>')
    return f'<div>{"".join(chips)}</div><div class="nb-hitl-now">{esc(now)}</div>'


__all__ = ["DARK_PALETTE", "HUB_CSS", "PALETTE", "speaker_class", "speakers_html"]
