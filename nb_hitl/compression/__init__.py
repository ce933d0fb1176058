"""Memory compression: the settings, the plan, the summaries, and replaying what-ifs.

``CompressionConfig`` and ``plan_compression`` (``_config.py``) decide what would be
summarised and why, with the selection rules in ``_select.py`` and the summariser in
``_summary.py``; ``CompressionResult`` (``_result.py``) is what one compression did.
``replay_compression`` / ``sweep_compression`` (``_replay*.py``, ``_sweep.py``) replay a recorded
conversation under other settings for the compression explorer. Doing a compression on a live
agent is the agent's part (``nb_hitl.agent``, which re-exports these names too).
May import message, model, formatter, token, tool and memory; never session, agent or above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from ._config import CompressionConfig, CompressionPlan, SummarySchema, plan_compression
    from ._replay import replay_compression, replay_compression_async
    from ._replay_result import CompressionReplay, ReplayCall, ReplayProgress
    from ._replay_summary import (
        FixedSummary,
        ModelSummary,
        RatioSummary,
        ScriptedSummary,
        SummaryOutcome,
        SummaryRequest,
    )
    from ._result import CompressionResult
    from ._sweep import CompressionSweep, sweep_compression

__all__ = [
    "CompressionConfig",
    "CompressionPlan",
    "CompressionReplay",
    "CompressionResult",
    "CompressionSweep",
    "FixedSummary",
    "ModelSummary",
    "RatioSummary",
    "ReplayCall",
    "ReplayProgress",
    "ScriptedSummary",
    "SummaryOutcome",
    "SummaryRequest",
    "SummarySchema",
    "plan_compression",
    "replay_compression",
    "replay_compression_async",
    "sweep_compression",
]

# Each name loads its module on first use: ``from nb_hitl.compression import CompressionConfig``
# needs none of the replay code. Type checkers read the imports above instead.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._config": (
                "CompressionConfig",
                "CompressionPlan",
                "SummarySchema",
                "plan_compression",
            ),
            "._replay": ("replay_compression", "replay_compression_async"),
            "._replay_result": ("CompressionReplay", "ReplayCall", "ReplayProgress"),
            "._replay_summary": (
                "FixedSummary",
                "ModelSummary",
                "RatioSummary",
                "ScriptedSummary",
                "SummaryOutcome",
                "SummaryRequest",
            ),
            "._result": ("CompressionResult",),
            "._sweep": ("CompressionSweep", "sweep_compression"),
        },
    )
