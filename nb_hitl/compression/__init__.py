"""Memory compression: the settings, the plan, the selection rules and the summariser.

``CompressionConfig`` (``_config.py``) holds the settings; ``plan_compression`` (``_plan.py``)
decides what would be summarised and why, with the selection rules in ``_select.py``; the
summariser is ``_summary.py``; ``CompressionResult`` (``_result.py``) is what one compression
did. Doing a compression on a live agent is the agent's part (``nb_hitl.agent``, which
re-exports these names). Replaying a recorded conversation under other settings is
``nb_hitl.compression.replay``. May import message, formatter, token, tool, memory and model;
never session, agent or anything above them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from ._config import CompressionConfig, SummarySchema
    from ._plan import CompressionPlan, plan_compression
    from ._result import CompressionResult

__all__ = [
    "CompressionConfig",
    "CompressionPlan",
    "CompressionResult",
    "SummarySchema",
    "plan_compression",
]

# Each name loads its module on first use (``import nb_hitl.compression`` imports no pydantic).
# Type checkers read the imports above instead.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._config": ("CompressionConfig", "SummarySchema"),
            "._plan": ("CompressionPlan", "plan_compression"),
            "._result": ("CompressionResult",),
        },
        submodules=("replay",),
    )
