"""Replaying a recorded conversation under other compression settings (the explorer's engine).

``replay_compression`` (``_replay.py``) walks a conversation call by call as a ``ReActAgent``
with a given ``CompressionConfig`` would have lived it and returns a ``CompressionReplay``
(``_result.py``); ``sweep_compression`` (``_sweep.py``) does so for a grid of settings.
``_source.py`` makes a source ready (a list of ``Msg``, a memory, an agent, a session file);
``_policy.py`` holds the summary-size policies (``FixedSummary``, ``RatioSummary``, ...).
It reads session files, so it sits above ``nb_hitl.session``: may import compression, session
and everything below them; never agent (which re-exports these names) or above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from ._policy import (
        FixedSummary,
        ModelSummary,
        RatioSummary,
        ScriptedSummary,
        SummaryOutcome,
        SummaryRequest,
    )
    from ._replay import replay_compression, replay_compression_async
    from ._result import CompressionReplay, ReplayCall, ReplayProgress
    from ._sweep import CompressionSweep, sweep_compression

__all__ = [
    "CompressionReplay",
    "CompressionSweep",
    "FixedSummary",
    "ModelSummary",
    "RatioSummary",
    "ReplayCall",
    "ReplayProgress",
    "ScriptedSummary",
    "SummaryOutcome",
    "SummaryRequest",
    "replay_compression",
    "replay_compression_async",
    "sweep_compression",
]

# Each name loads its module on first use. Type checkers read the imports above instead.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._policy": (
                "FixedSummary",
                "ModelSummary",
                "RatioSummary",
                "ScriptedSummary",
                "SummaryOutcome",
                "SummaryRequest",
            ),
            "._replay": ("replay_compression", "replay_compression_async"),
            "._result": ("CompressionReplay", "ReplayCall", "ReplayProgress"),
            "._sweep": ("CompressionSweep", "sweep_compression"),
        },
    )
