"""What one compression of an agent's memory did: ``CompressionResult``.

``ReActAgent.compress_memory()`` returns it and the ``CompressionFinished`` event carries it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CompressionResult(BaseModel):
    """What one compression did."""

    model_config = ConfigDict(defer_build=True)

    compressed_ids: list[str]
    """Messages marked compressed, oldest first."""
    tokens_before: int
    """Prompt tokens before."""
    tokens_after: int
    """Prompt tokens after (counted, not estimated)."""
    summary: str
    """The new summary, as stored in memory (rendered with ``summary_template``)."""
    previous_summary: str = ""
    """The summary it replaced (folded into the new one)."""
    structured: dict[str, Any] = Field(default_factory=dict)
    """The structured summary the model returned."""
    trigger: str = "auto"
    """``auto`` (before a reasoning step) or ``manual`` (``compress_memory()``)."""
