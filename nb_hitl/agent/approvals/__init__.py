"""Approvals: which tool calls run, which wait for a person, which are refused, and the answers.

An agent owns one ``ApprovalGate`` (``agent.approvals``, ``_gate.py``): the permission policy
(``_policy.py``: a mode and ordered ``PermissionRule`` s, ``_rule.py``, with the user's
``permissions.json`` and the project's, ``_file.py``; patterns, ``_match.py``; the
``can_use_tool`` callback, ``_callback.py``), the calls waiting for a decision and the one path that
applies a decision (``decide``), the parked calls a saved session brings back (``_state.py``),
and the question inbox of ``ask_user`` (``_questions.py``, ``_ask_user.py``). Decisions from any
thread make one hop onto the agent's loop (``_hop.py``). ``ApprovalMethods`` (``_agent.py``)
writes the agent's AgentScope-style methods, each handing over to the gate; it is not a base
class: ``ReActAgent`` names each method in its body and registers with it, so
``isinstance(agent, ApprovalMethods)`` tells a widget that an agent takes decisions.
``_host.py`` is what the gate reads of its agent (``GateHost``).

May import ``nb_hitl.message``, ``events``, ``exceptions``, ``tool`` (by its public names) and
``nb_hitl.agent``'s base and user modules; nothing above ``agent``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from ._agent import ApprovalMethods
    from ._ask_user import Question, QuestionOption, ask_user, check_answers, parse_questions
    from ._callback import Allow, Ask, CanUseTool, Deny, ToolContext
    from ._file import project_permissions_file
    from ._gate import ApprovalGate
    from ._policy import MODE_TEXT, MODES, PermissionPolicy, Verdict, permissions_file
    from ._questions import PendingQuestion
    from ._rule import SOURCE_TEXT, PermissionRule
    from ._state import DENIED_PREFIX, Decision, PendingApproval, parse_arguments

__all__ = [
    "DENIED_PREFIX",
    "MODES",
    "MODE_TEXT",
    "SOURCE_TEXT",
    "Allow",
    "ApprovalGate",
    "ApprovalMethods",
    "Ask",
    "CanUseTool",
    "Decision",
    "Deny",
    "PendingApproval",
    "PendingQuestion",
    "PermissionPolicy",
    "PermissionRule",
    "Question",
    "QuestionOption",
    "ToolContext",
    "Verdict",
    "ask_user",
    "check_answers",
    "parse_arguments",
    "parse_questions",
    "permissions_file",
    "project_permissions_file",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._agent": ("ApprovalMethods",),
            "._callback": ("Allow", "Ask", "CanUseTool", "Deny", "ToolContext"),
            "._file": ("project_permissions_file",),
            "._ask_user": (
                "Question",
                "QuestionOption",
                "ask_user",
                "check_answers",
                "parse_questions",
            ),
            "._gate": ("ApprovalGate",),
            "._policy": ("MODES", "MODE_TEXT", "PermissionPolicy", "Verdict", "permissions_file"),
            "._questions": ("PendingQuestion",),
            "._rule": ("SOURCE_TEXT", "PermissionRule"),
            "._state": ("DENIED_PREFIX", "Decision", "PendingApproval", "parse_arguments"),
        },
    )
