"""Characters a person cannot see: bidi controls shown visibly, zero-width text seen as blank.

A right-to-left override makes ``report\\u202efdp.exe`` display as ``reportexe.pdf``; where a
person approves something, every such control is shown as its ``\\uXXXX`` escape instead
(inside JSON strings the escape means the same character, so edited arguments round-trip).
Input made only of zero-width characters looks empty and is treated like whitespace.
"""

from __future__ import annotations

import re

__all__ = ["INVISIBLE", "is_blank", "show_invisible", "unshow_invisible"]

INVISIBLE = (
    "\u061c"  # Arabic letter mark
    "\u200b\u200c\u200d\u200e\u200f"  # zero-width space/non-joiner/joiner, LRM, RLM
    "\u202a\u202b\u202c\u202d\u202e"  # LRE, RLE, PDF, LRO, RLO
    "\u2060\u2061\u2062\u2063\u2064"  # word joiner, invisible operators
    "\u2066\u2067\u2068\u2069"  # LRI, RLI, FSI, PDI
    "\u180e\ufeff"  # Mongolian vowel separator, zero-width no-break space
)
"""Characters that change how text displays, or are not displayed at all."""

_INVISIBLE_RE = re.compile(f"[{INVISIBLE}]")
_BLANK_RE = re.compile(f"[\\s{INVISIBLE}]*")


def show_invisible(text: str) -> str:
    """``text`` with every bidi control and zero-width character as a visible ``\\uXXXX``."""
    return _INVISIBLE_RE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


_SHOWN_RE = re.compile("|".join(re.escape(f"\\u{ord(c):04x}") for c in INVISIBLE))


def unshow_invisible(text: str) -> str:
    """``show_invisible`` undone: each ``\\uXXXX`` of an invisible character is the character
    again (a rule box's text, which is no JSON, round-trips through the card)."""
    return _SHOWN_RE.sub(lambda m: chr(int(m[0][2:], 16)), text)


def is_blank(text: str) -> bool:
    """True for text made only of whitespace and invisible characters (e.g. ``\\u200b``)."""
    return _BLANK_RE.fullmatch(text) is not None
