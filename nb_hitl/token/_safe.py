"""Encoding that cannot wedge a caller: pathological texts cut, tokenizer failures named.

tiktoken's pre-tokenizer overflows its stack (a Rust panic, ``pyo3_runtime.PanicException``,
which derives from ``BaseException``) on a run of about a million whitespace characters;
500,000 still encode. ``split_long_runs`` cuts longer runs; ``measure`` turns any other
tokenizer failure into a ``TokenCountError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nb_hitl.exceptions import TokenCountError

WHITESPACE_RUN = 50_000
"""Whitespace runs longer than this are encoded in pieces of this length."""
_LONG_RUN = re.compile(rf"\s{{{WHITESPACE_RUN},}}")


def split_long_runs(text: str, run: int = WHITESPACE_RUN) -> list[str]:
    """``text`` cut so that no piece holds a whitespace run longer than ``run`` characters."""
    pieces: list[str] = []
    start = 0
    pattern = _LONG_RUN if run == WHITESPACE_RUN else re.compile(rf"\s{{{run},}}")
    for match in pattern.finditer(text):
        pieces.append(text[start : match.start()])
        pieces.extend(
            text[i : min(i + run, match.end())] for i in range(match.start(), match.end(), run)
        )
        start = match.end()
    pieces.append(text[start:])
    return [p for p in pieces if p]


def measure(encode: Callable[[str], int], text: str) -> int:
    """``encode(text)``, with any tokenizer failure turned into a ``TokenCountError``.

    tiktoken reports some failures as a Rust panic (``pyo3_runtime.PanicException``), a
    ``BaseException`` that ``except Exception`` handlers miss.
    """
    try:
        return encode(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        raise TokenCountError(
            f"Counting tokens failed on a text of {len(text):,} characters "
            f"({type(exc).__name__}: {str(exc)[:200]}). Nothing was changed; shorten or clean "
            "up that text (e.g. a huge run of whitespace) and try again."
        ) from exc
