"""Agents: the interruptible reply task, the ReAct loop, and the human's turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from nb_hitl.compression._config import (
        CompressionConfig,
        CompressionPlan,
        SummarySchema,
        plan_compression,
    )
    from nb_hitl.compression._result import CompressionResult
    from nb_hitl.compression.replay._policy import (
        FixedSummary,
        ModelSummary,
        RatioSummary,
        ScriptedSummary,
        SummaryOutcome,
        SummaryRequest,
    )
    from nb_hitl.compression.replay._replay import replay_compression, replay_compression_async
    from nb_hitl.compression.replay._result import CompressionReplay, ReplayCall, ReplayProgress
    from nb_hitl.compression.replay._sweep import CompressionSweep, sweep_compression

    from ._approval import DENIED_PREFIX, PendingApproval
    from ._ask_user import Question, QuestionOption, ask_user
    from ._base import DEFAULT_INTERRUPT_TEXT, AgentBase
    from ._branches import BranchInfo
    from ._decisions import PendingQuestion
    from ._permission import PermissionPolicy, Verdict, permissions_file
    from ._permission_rule import PermissionRule
    from ._react import ReActAgent
    from ._resume import ResumePoint
    from ._user import InputSource, QueueInput, ScriptedInput, TerminalInput, UserAgent
    from ._user_input import TerminalUserInput, UserInputBase, UserInputData

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
            "._approval": ("DENIED_PREFIX", "PendingApproval"),
            "._ask_user": ("Question", "QuestionOption", "ask_user"),
            "._decisions": ("PendingQuestion",),
            "._permission": ("PermissionPolicy", "Verdict", "permissions_file"),
            "._permission_rule": ("PermissionRule",),
            "._base": ("DEFAULT_INTERRUPT_TEXT", "AgentBase"),
            "nb_hitl.compression._config": (
                "CompressionConfig",
                "CompressionPlan",
                "SummarySchema",
                "plan_compression",
            ),
            "nb_hitl.compression._result": ("CompressionResult",),
            "._react": ("ReActAgent",),
            "nb_hitl.compression.replay._replay": (
                "replay_compression",
                "replay_compression_async",
            ),
            "nb_hitl.compression.replay._result": (
                "CompressionReplay",
                "ReplayCall",
                "ReplayProgress",
            ),
            "nb_hitl.compression.replay._policy": (
                "FixedSummary",
                "ModelSummary",
                "RatioSummary",
                "ScriptedSummary",
                "SummaryOutcome",
                "SummaryRequest",
            ),
            "nb_hitl.compression.replay._sweep": ("CompressionSweep", "sweep_compression"),
            "._resume": ("ResumePoint",),
            "._branches": ("BranchInfo",),
            "._user": ("InputSource", "QueueInput", "ScriptedInput", "TerminalInput", "UserAgent"),
            "._user_input": ("TerminalUserInput", "UserInputBase", "UserInputData"),
        },
    )
