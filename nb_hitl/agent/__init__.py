"""Agents: the interruptible reply task, the ReAct loop, tool approval, and the human's turn.

An agent is a reply lifecycle plus named parts it owns, each a class with its own state that
reads the agent through a small ``...Host`` protocol. ``AgentBase`` (``_base.py``, with
``_lifecycle.py``) runs each reply as a task of its own that ``interrupt()`` cancels gracefully;
it runs AgentScope's hooks (``_hooks.py``) and owns the ``console`` (``_console.py``) and the
hub ``subscribers`` (``_broadcast.py``). ``ReActAgent`` (``_react.py``: the loop, over
``ReActAgentBase``, ``_react_base.py``) owns ``tool_calls`` (``_acting.py``), ``approvals``
(``ApprovalGate``, the ``approvals/`` sub-package), ``resumer`` (``resume/``), ``steering``
(``_steering.py``), ``compressor`` (``_compressor.py``) and ``branch_table``
(``_branches.py``), and keeps AgentScope's names as one-line delegations; structured output is
``_structured.py``. ``UserAgent`` (``_user*.py``) is the person.
The compression and replay names are re-exported from ``nb_hitl.compression`` (AgentScope's
``ReActAgent.CompressionConfig`` lives here). May import session, compression and everything
below them; never pipeline, widgets or extension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from nb_hitl.compression import (
        CompressionConfig,
        CompressionPlan,
        CompressionResult,
        SummarySchema,
        plan_compression,
    )
    from nb_hitl.compression.replay import (
        CompressionReplay,
        CompressionSweep,
        FixedSummary,
        ModelSummary,
        RatioSummary,
        ReplayCall,
        ReplayProgress,
        ScriptedSummary,
        SummaryOutcome,
        SummaryRequest,
        replay_compression,
        replay_compression_async,
        sweep_compression,
    )

    from ._base import DEFAULT_INTERRUPT_TEXT, AgentBase
    from ._branches import BranchInfo
    from ._react import ReActAgent
    from ._react_base import ReActAgentBase
    from ._registry import live_agents
    from ._user import InputSource, QueueInput, ScriptedInput, TerminalInput, UserAgent
    from ._user_input import TerminalUserInput, UserInputBase, UserInputData
    from .approvals import (
        DENIED_PREFIX,
        PendingApproval,
        PendingQuestion,
        PermissionPolicy,
        PermissionRule,
        Question,
        QuestionOption,
        Verdict,
        ask_user,
        permissions_file,
    )
    from .resume import ResumePoint

__all__ = [
    "DEFAULT_INTERRUPT_TEXT",
    "DENIED_PREFIX",
    "AgentBase",
    "BranchInfo",
    "CompressionConfig",
    "CompressionPlan",
    "CompressionReplay",
    "CompressionResult",
    "CompressionSweep",
    "FixedSummary",
    "InputSource",
    "ModelSummary",
    "PendingApproval",
    "PendingQuestion",
    "PermissionPolicy",
    "PermissionRule",
    "Question",
    "QuestionOption",
    "QueueInput",
    "RatioSummary",
    "ReActAgent",
    "ReActAgentBase",
    "ReplayCall",
    "ReplayProgress",
    "ResumePoint",
    "ScriptedInput",
    "ScriptedSummary",
    "SummaryOutcome",
    "SummaryRequest",
    "SummarySchema",
    "TerminalInput",
    "TerminalUserInput",
    "UserAgent",
    "UserInputBase",
    "UserInputData",
    "Verdict",
    "ask_user",
    "live_agents",
    "permissions_file",
    "plan_compression",
    "replay_compression",
    "replay_compression_async",
    "sweep_compression",
]

# Each name loads its module on first use: ``from nb_hitl.agent import AgentBase`` needs none of
# the ReAct, compression-replay or user-input code.
# Type checkers read the imports above instead, so a misspelt name is still an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            ".approvals": (
                "DENIED_PREFIX",
                "PendingApproval",
                "PendingQuestion",
                "PermissionPolicy",
                "PermissionRule",
                "Question",
                "QuestionOption",
                "Verdict",
                "ask_user",
                "permissions_file",
            ),
            "._base": ("DEFAULT_INTERRUPT_TEXT", "AgentBase"),
            "._branches": ("BranchInfo",),
            "._react": ("ReActAgent",),
            "._react_base": ("ReActAgentBase",),
            "._registry": ("live_agents",),
            ".resume": ("ResumePoint",),
            "._user": ("InputSource", "QueueInput", "ScriptedInput", "TerminalInput", "UserAgent"),
            "._user_input": ("TerminalUserInput", "UserInputBase", "UserInputData"),
            "nb_hitl.compression": (
                "CompressionConfig",
                "CompressionPlan",
                "CompressionResult",
                "SummarySchema",
                "plan_compression",
            ),
            "nb_hitl.compression.replay": (
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
            ),
        },
    )
