"""The hub panel's look: one stable colour per participant, and the "who is speaking" bar.

Colours go on rows as a class (``nb-hitl-speaker-N``), never inline in message HTML, so the
chat's own rendering (``nb_hitl._render``) and its interrupted and error styles stay in
charge: those use ``!important`` and win over a speaker's colour. The class reads the colour
from a CSS variable (``--nb-hitl-speaker-N``) that the stylesheet switches per theme.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nb_hitl._render import DARK_SPEAKERS, SPEAKERS, esc

PALETTE: tuple[str, ...] = SPEAKERS
"""Speaker colours on a light page (``nb_hitl._render._theme.SPEAKERS``)."""

DARK_PALETTE: tuple[str, ...] = DARK_SPEAKERS
"""The same hues for dark themes (``nb_hitl._render._theme.DARK_SPEAKERS``)."""


def speaker_class(index: int) -> str:
    """The CSS class of the ``index``-th participant's rows and chip."""
    return f"nb-hitl-speaker-{index % len(PALETTE)}"


HUB_CSS = ""
"""The hub's own styles: none beyond the one stylesheet (``nb_hitl._render.CSS``), which holds
the chips, the pause prompt and the speakers' colours (CSS variables switched per theme)."""


def chips_html(names: Sequence[str], classes: dict[str, str], speaking: Iterable[str]) -> str:
    """The participants as coloured chips (the speaking ones filled), escaped."""
    active = set(speaking)
    chips = []
    for name in names:
        cls = f"nb-hitl-chip {classes.get(name, '')}"
        mark = "&#9679; " if name in active else ""
        if name in active:
            cls += " nb-hitl-speaking"
        chips.append(f'<span class="{cls}" data-name="{esc(name)}">{mark}{esc(name)}</span>')
    return f"<div>{''.join(chips)}</div>"


def speakers_html(
    names: Sequence[str],
    classes: dict[str, str],
    speaking: Iterable[str],
    now: str,
) -> str:
    """The participants as coloured chips (the speaking ones filled) and a status line."""
    return chips_html(names, classes, speaking) + f'<div class="nb-hitl-now">{esc(now)}</div>'


__all__ = [
    "DARK_PALETTE", "HUB_CSS", "PALETTE", "chips_html", "speaker_class", "speakers_html"
]  # fmt: skip
