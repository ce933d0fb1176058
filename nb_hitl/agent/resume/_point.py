"""What ``agent.resume()`` continues: the ``ResumePoint`` an interrupted reply leaves.

``_resumer.py`` finds the point in memory and runs the continuation; this module holds the
point itself, the text helpers both sides use, and ``carry_point``, which hands a point on to
the interrupted message of a continuation stopped before it began (so the next ``resume()``
continues the same thing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from hashlib import sha256 as _sha256
from typing import Any

from nb_hitl.message import MetaKey, Msg, ToolUseBlock

try:  # CPython's own SHA-256 (the same digest): no OpenSSL dispatch, slower per byte
    from _sha256 import sha256 as _small_sha256  # Python 3.11
except ImportError:  # pragma: no cover - other versions and interpreters
    try:
        from _sha2 import sha256 as _small_sha256  # Python 3.12+
    except ImportError:
        _small_sha256 = _sha256

_SMALL = 2048
"""Texts up to this many bytes are hashed by ``_small_sha256`` (see ``text_digest``)."""


def text_digest(text: str) -> str:
    """A short fingerprint of a partial answer's text (to notice it was edited later): the
    first 16 hex digits of the SHA-256 of its UTF-8.

    It is taken on the interrupt path, once in a while, so with the CPU's caches cold: there
    OpenSSL's SHA-256 (``hashlib``) costs ~30 us before the first byte on the bench machine,
    CPython's built-in one ~10 us for a short answer; OpenSSL's is ~5x faster per byte, so it
    takes the texts past ``_SMALL`` bytes. Both give the same digest (saved ones still match).
    """
    try:
        data = text.encode()  # the fast path; the same bytes as below for any valid text
    except UnicodeEncodeError:  # lone surrogates (a model's broken emoji) are kept as they are
        data = text.encode("utf-8", "surrogatepass")
    if len(data) <= _SMALL:
        return _small_sha256(data).hexdigest()[:16]
    return _sha256(data).hexdigest()[:16]


@dataclass
class ResumePoint:
    """What ``agent.resume()`` would continue (``agent.resume_point()``)."""

    interrupted_id: str
    """The interrupted (or stopped-after-step) message that ended the reply."""
    continued_by: str
    """``"assistant_prefix"``, ``"prompt"``, ``"tools"`` or ``"next_step"`` (module docstring)."""
    partial_id: str | None = None
    """The partial answer being continued (text continuation only)."""
    partial_text: str = ""
    """Its text, exactly as streamed."""
    not_run: list[ToolUseBlock] = field(default_factory=list)
    """Calls the interrupt closed before they started: they run on resume."""
    interrupted_calls: list[ToolUseBlock] = field(default_factory=list)
    """Calls interrupted mid-run: re-run only with ``rerun_interrupted=True``."""
    instruction_id: str | None = None
    """The instruction given to ``resume()`` (set when it runs)."""
    rerun_interrupted: bool = False
    note: str = ""
    """Why the prompt form was used instead of the prefix (a refusing server), if it was."""
    started: bool = False
    """The resumed reply reached its resume step (set inside the reply)."""


def answer_text(msg: Msg | None) -> str:
    """The text of an answer as streamed: its text blocks joined (thinking left out)."""
    if msg is None:
        return ""
    content = msg.content
    if isinstance(content, str):
        return content
    return "".join([b["text"] for b in content if b.get("type") == "text"])


def carry_point(point: ResumePoint, memory: Any, extra: dict[str, Any]) -> None:
    """Put what ``point`` continues into ``extra`` (an interrupted message's metadata):
    its partial answer and its unrun calls, unless the interrupt left its own."""
    partial = memory.get(point.partial_id) if point.partial_id else None
    if partial is not None and MetaKey.PARTIAL_MSG_ID not in extra:
        extra[MetaKey.PARTIAL_MSG_ID] = partial.id
        extra[MetaKey.PARTIAL_DIGEST] = text_digest(answer_text(partial))
    if (point.not_run or point.interrupted_calls) and MetaKey.CLOSED_CALLS not in extra:
        extra[MetaKey.CLOSED_CALLS] = {
            "not_run": [c.id for c in point.not_run],
            "interrupted": [c.id for c in point.interrupted_calls],
        }


__all__ = ["ResumePoint", "answer_text", "carry_point", "text_digest"]
