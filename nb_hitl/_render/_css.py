"""The stylesheet of every nb_hitl widget and of ``Msg._repr_html_`` (one ``<style>`` block).

Class names start with ``nb-hitl-``; the interrupted and error styles use ``!important`` so
that no other colour (a hub speaker's, for one) hides them. Every colour is a variable of
``_theme.py`` (JupyterLab's own ``--jp-*`` or an ``--nb-hitl-*`` accent switched per theme).

Layout: the panel's two columns (``nb-hitl-columns``) sit side by side when the cell is wide and
stack when it is narrow (flex-wrap on minimum widths, no fixed widths); rows of controls wrap;
buttons never shrink below their label; badges and table cells never break inside a word;
a narrow inspector (a container query) draws each memory row on two lines.

The rules are a real CSS file next to this module, ``widgets.css`` (shipped in the wheel,
linted by biome: ``npm run lint`` in js/); only the theme's variables (``_theme.py``) are
made here. The badge, button and speaker rules in the file follow ``_theme.py``'s lists;
``tests/test_render_css.py`` checks that they still do.
"""

from __future__ import annotations

from pathlib import Path

from ._theme import BUTTONS, SPEAKERS, variables

_BADGES = {
    "": "orange",
    "error": "red",
    "pinned": "purple",
    "compressed": "grey",
    "recent": "green",
    "question": "blue",
    "partner": "teal",
    "compress": "orange",
    "other": "grey",
    "steered": "violet",
    "resumed": "green",
}


def _badges() -> str:
    rules = []
    for name, colour in _BADGES.items():
        sel = ".nb-hitl-badge" + (f".nb-hitl-badge-{name}" if name else "")
        rules.append(f"{sel} {{ background: var(--nb-hitl-{colour}); }}")
    return "\n".join(rules)


def _buttons() -> str:
    roots = (".nb-hitl-panel", ".nb-hitl-chat", ".nb-hitl-inspector", ".nb-hitl-explorer",
             ".nb-hitl-hub", ".nb-hitl-approval")  # fmt: skip
    rules = []
    for style in BUTTONS:
        sel = ", ".join(f"{r} .jupyter-button.mod-{style}" for r in roots)
        rules.append(
            f"{sel} {{ background-color: var(--nb-hitl-button-{style}); "
            "color: var(--nb-hitl-button-ink); }"
        )
    return "\n".join(rules)


def _speakers() -> str:
    rules = []
    for i in range(len(SPEAKERS)):
        c, col = f"nb-hitl-speaker-{i}", f"var(--nb-hitl-speaker-{i})"
        rules.append(
            f".{c}.nb-hitl-msg, .{c} .nb-hitl-msg {{ border-left-color: {col}; }}\n"
            f".{c} .nb-hitl-head b, .nb-hitl-chip.{c} {{ color: {col}; }}\n"
            f".nb-hitl-chip.{c}.nb-hitl-speaking {{ background: {col}; "
            "color: var(--nb-hitl-ink); }"
        )
    return "\n".join(rules)


STYLESHEET = Path(__file__).with_name("widgets.css")
"""The stylesheet's rules as a real CSS file (shipped in the wheel; read once, at import)."""


def _read_rules() -> tuple[str, str, str]:
    """``widgets.css`` split into (every rule, the card rules, the question rules): the file
    without its header comment and the section marks, as the stylesheet is sent."""
    text = STYLESHEET.read_text(encoding="utf-8")
    text = text[text.index("*/\n") + 3 :]  # the header comment (the file's, not sent)

    def section(name: str) -> str:
        return text.split(f"/* @{name} */", 1)[1].split(f"/* @end {name} */\n", 1)[0]

    cards, questions = section("cards"), section("questions")
    rules = text.replace(f"/* @cards */{cards}/* @end cards */\n", cards).replace(
        f"/* @questions */{questions}/* @end questions */\n", questions
    )
    return rules, cards, questions


FILLED_RULES, CARD_RULES, QUESTION_RULES = _read_rules()
"""Every rule of the stylesheet (without the variables' definitions); the approval cards'
rules (also in ``CSS``; ``CARD_CSS`` for a card list shown on its own); the question forms'
rules (also in ``CSS``)."""
RULES = (
    FILLED_RULES.replace(_badges(), "@BADGES@", 1)
    .replace(_buttons(), "@BUTTONS@", 1)
    .replace(CARD_RULES + QUESTION_RULES, "@CARDS@", 1)
    .replace(_speakers(), "@SPEAKERS@", 1)
)
"""The stylesheet's rules with ``@BADGES@``, ``@BUTTONS@``, ``@CARDS@`` and ``@SPEAKERS@``
where those rules are (as before: they follow ``_theme.py``'s lists; a test checks the file
still holds what those lists make)."""

CSS = "\n<style>\n" + variables() + FILLED_RULES + "</style>\n"
"""The widgets' whole stylesheet, as a ``<style>`` element (one per displayed panel)."""


CARD_CSS = f"<style>{CARD_RULES}</style>"
"""The approval cards' rules as a ``<style>`` element."""


__all__ = ["CARD_CSS", "CARD_RULES", "CSS", "FILLED_RULES", "QUESTION_RULES", "RULES"]
