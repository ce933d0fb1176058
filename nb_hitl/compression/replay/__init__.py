"""Replaying a recorded conversation under other compression settings (the explorer's engine).

``replay_compression`` (``_replay.py``) walks a conversation call by call as a ``ReActAgent``
with a given ``CompressionConfig`` would have lived it and returns a ``CompressionReplay``
(``_result.py``); ``sweep_compression`` (``_sweep.py``) does so for a grid of settings.
``_source.py`` makes a source ready (a list of ``Msg``, a memory, an agent, a session file);
``_policy.py`` holds the summary-size policies (``FixedSummary``, ``RatioSummary``, ...).
It reads session files, so it sits above ``nb_hitl.session``: may import compression, session
and everything below them; never agent (which re-exports these names) or above.

``__all__`` is what ``nb_hitl.agent`` re-exports. The compression explorer (``nb_hitl.widgets``)
drives the engine step by step, so these are importable here too, for nb_hitl's own packages
(no compatibility promise): ``prepare`` (a source made ready once), ``check_keep_recent``,
``run_replay`` (one replay of a prepared source), ``sweep_prepared`` and ``METRICS`` (a grid
over it), ``as_policy`` and ``summary_settings`` (the summary-size policy and the summary
settings a config implies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    # the ``X as X`` names are for nb_hitl's own packages above (see the docstring)
    from ._policy import (
        FixedSummary,
        ModelSummary,
        RatioSummary,
        ScriptedSummary,
        SummaryOutcome,
        SummaryRequest,
    )
    from ._policy import as_policy as as_policy
    from ._policy import summary_settings as summary_settings
    from ._replay import check_keep_recent as check_keep_recent
    from ._replay import replay_compression, replay_compression_async
    from ._replay import run_replay as run_replay
    from ._result import CompressionReplay, ReplayCall, ReplayProgress
    from ._source import prepare as prepare
    from ._sweep import METRICS as METRICS
    from ._sweep import CompressionSweep, sweep_compression
    from ._sweep import sweep_prepared as sweep_prepared

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
                "as_policy",
                "summary_settings",
            ),
            "._replay": (
                "replay_compression",
                "replay_compression_async",
                "check_keep_recent",
                "run_replay",
            ),
            "._result": ("CompressionReplay", "ReplayCall", "ReplayProgress"),
            "._source": ("prepare",),
            "._sweep": ("CompressionSweep", "sweep_compression", "METRICS", "sweep_prepared"),
        },
    )
