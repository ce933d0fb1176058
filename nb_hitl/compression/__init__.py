"""Memory compression: the settings, the plan, the selection rules and the summariser.

``CompressionConfig`` (``_config.py``) holds the settings; ``plan_compression`` (``_plan.py``)
decides what would be summarised and why, with the selection rules in ``_select.py``; the
summariser is ``_summary.py``; ``CompressionResult`` (``_result.py``) is what one compression
did. Doing a compression on a live agent is the agent's part (``nb_hitl.agent``, which
re-exports these names). Replaying a recorded conversation under other settings is
``nb_hitl.compression.replay``. May import message, formatter, token, tool, memory and model;
never session, agent or anything above them.

``__all__`` is AgentScope's names (``nb_hitl.agent`` re-exports each). The agent's compressor
and the session schema also use the defaults, the template rule and the summariser, importable
here for nb_hitl's own packages (no compatibility promise): ``DEFAULT_COMPRESSION_PROMPT``,
``DEFAULT_SUMMARY_TEMPLATE``, ``SUMMARIZE_PROMPT``, ``check_summary_template``,
``default_counter``, ``summarize``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    # the ``X as X`` names are for nb_hitl's own packages above (see the docstring)
    from ._config import DEFAULT_COMPRESSION_PROMPT as DEFAULT_COMPRESSION_PROMPT
    from ._config import DEFAULT_SUMMARY_TEMPLATE as DEFAULT_SUMMARY_TEMPLATE
    from ._config import CompressionConfig, SummarySchema
    from ._config import check_summary_template as check_summary_template
    from ._config import default_counter as default_counter
    from ._plan import CompressionPlan, plan_compression
    from ._result import CompressionResult
    from ._summary import SUMMARIZE_PROMPT as SUMMARIZE_PROMPT
    from ._summary import summarize as summarize

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
            "._config": (
                "CompressionConfig",
                "SummarySchema",
                "DEFAULT_COMPRESSION_PROMPT",
                "DEFAULT_SUMMARY_TEMPLATE",
                "check_summary_template",
                "default_counter",
            ),
            "._plan": ("CompressionPlan", "plan_compression"),
            "._result": ("CompressionResult",),
            "._summary": ("SUMMARIZE_PROMPT", "summarize"),
        },
        submodules=("replay",),
    )
