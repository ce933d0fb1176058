"""The one rule for names that hold secrets (foundation: no message, model or agent here).

``nb_hitl.model._secrets`` re-exports it for the model layer; the memory stores use it too.
"""

from __future__ import annotations

__all__ = ["is_secret_name"]

SECRET_NAME_WORDS = ("key", "token", "secret", "password", "passwd", "auth", "credential")


def is_secret_name(name: str) -> bool:
    """Whether an attribute, setting or parameter called ``name`` looks like it holds a secret.

    The one rule for every place that must keep secrets out (sessions, JSONSession state,
    saved compression settings, URL query parameters, stored memory rows): ``api_key``,
    ``hf_token``, ``client_secret``, ``db_password``, ``auth_header`` and the like.
    """
    lower = name.lower()
    return any(word in lower for word in SECRET_NAME_WORDS)
