"""Agents: the interruptible reply task, the ReAct loop, and the human's turn."""

from ._approval import DENIED_PREFIX, PendingApproval
from ._base import DEFAULT_INTERRUPT_TEXT, AgentBase
from ._compression import (
    CompressionConfig,
    CompressionPlan,
    SummarySchema,
    plan_compression,
)
from ._compression_agent import CompressionResult
from ._react import ReActAgent
from ._user import InputSource, QueueInput, ScriptedInput, TerminalInput, UserAgent

__all__ = [
    "DEFAULT_INTERRUPT_TEXT",
    "DENIED_PREFIX",
    "AgentBase",
    "CompressionConfig",
    "CompressionPlan",
    "CompressionResult",
    "InputSource",
    "PendingApproval",
    "QueueInput",
    "ReActAgent",
    "ScriptedInput",
    "SummarySchema",
    "TerminalInput",
    "UserAgent",
    "plan_compression",
]
