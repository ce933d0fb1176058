"""Where a secret could show, and the check that no fragment of one does (secret tests share it).

A fragment is any run of 8 characters of a secret, as a server or a shortened message could cut
it; nb_hitl's redaction promises none survives.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from nb_hitl.message import MsgListAdapter


def fragments(secret: str, size: int = 8) -> list[str]:
    """Every run of ``size`` characters of ``secret``."""
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def leaked(text: str, *secrets: str) -> list[str]:
    """The fragments of ``secrets`` found in ``text``."""
    return [piece for secret in secrets for piece in fragments(secret) if piece in text]


def assert_no_fragment(texts: list[str], *secrets: str) -> None:
    """No text holds a fragment of a secret."""
    for text in texts:
        found = leaked(text, *secrets)
        assert not found, f"{found[0]!r} of a secret leaked into {text[:200]!r}"


def exposed(
    model: Any, agent: Any, events: list[Any], records: list[logging.LogRecord]
) -> list[str]:
    """What a person or a saved file could see of a model, its agent, their events and logs."""
    return [
        repr(model),
        str(model),
        repr(vars(model)),
        repr(agent),
        json.dumps(agent.state_dict()),
        MsgListAdapter.dump_json(agent.memory.messages).decode(),
        *[repr(e) for e in events],
        *[f"{r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in records],
    ]
