"""The rules for secrets (foundation: no message, model or agent here).

Which names hold secrets (``is_secret_name``), and whether a text holds a secret or a leaked
fragment of one (``find_secret``, ``secret_spans``). ``nb_hitl.model._secrets`` redacts with
them; the memory stores, sessions and the AG-UI server check with them.
"""

from __future__ import annotations

__all__ = ["MIN_FRAGMENT", "MIN_SECRET", "find_secret", "is_secret_name", "secret_spans"]

SECRET_NAME_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "credential")


def is_secret_name(name: str) -> bool:
    """Whether an attribute, setting or parameter called ``name`` looks like it holds a secret.

    The one rule for every place that must keep secrets out (sessions, JSONSession state,
    saved compression settings, URL query parameters, stored memory rows): ``api_key``,
    ``hf_token``, ``client_secret``, ``db_password``, ``auth_header`` and the like.
    """
    lower = name.lower()
    return any(word in lower for word in SECRET_NAME_WORDS)


MIN_SECRET = 6
"""Shorter values are not treated as secrets (they would redact ordinary words)."""
MIN_FRAGMENT = 8
"""A run of this many characters that begins like a secret counts as a leaked fragment."""


def secret_spans(text: str, secret: str) -> list[tuple[int, int]]:
    """Where ``secret`` or a fragment of it (its first ``MIN_FRAGMENT``+ characters) occurs."""
    if len(secret) < MIN_SECRET:
        return []
    if len(secret) < MIN_FRAGMENT:
        spans, start = [], text.find(secret)
        while start >= 0:
            spans.append((start, start + len(secret)))
            start = text.find(secret, start + len(secret))
        return spans
    head = secret[:MIN_FRAGMENT]
    spans = []
    start = text.find(head)
    while start >= 0:
        # The longest prefix of the secret found here: a binary search over slice
        # comparisons (done in C), since a text may hold many runs that start like a key.
        lo, hi = MIN_FRAGMENT, min(len(secret), len(text) - start)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if text[start : start + mid] == secret[:mid]:
                lo = mid
            else:
                hi = mid - 1
        spans.append((start, start + lo))
        start = text.find(head, start + lo)
    return spans


def find_secret(text: str, secret: str | None) -> bool:
    """Whether ``text`` holds ``secret`` or a fragment of it (8+ leading characters)."""
    return bool(secret) and bool(secret_spans(text, secret or ""))
