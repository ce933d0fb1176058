"""What the interrupt harness adds for permissions, questions and decisions from outside.

An agent plan picks a permission mode and one rule; episodes may call ``ask`` (the built-in
``ask_user``, with well-formed or malformed questions) and decide approvals or answer questions
from another thread at a random moment, twice. Invariants: a decided call runs at most once,
the second outside decision is refused ("already decided", or closed by an interrupt that
came between the two) or both are refused because the call was closed, and nothing else is
ever raised.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any

from nb_hitl.agent import PermissionPolicy, ReActAgent
from nb_hitl.agent.approvals._ask_user import current_tool_call
from nb_hitl.exceptions import ApprovalError

MODES = ("ask", "ask", "allow_reads", "allow_all", "deny_all")
RULES = ("none", "allow_approval", "deny_sync", "ask_async_call", "allow_any_reply")
QUESTION = {"question": "Which one?", "options": ["a", "b"]}
BAD_QUESTION = {"question": "Which one?", "options": ["only"]}


def policy_for(mode: str, rule: str) -> PermissionPolicy:
    """A policy (never the user's file: tests stay independent)."""
    policy = PermissionPolicy(mode, user_rules=False)  # type: ignore[arg-type]
    return policy


def add_rule(agent: ReActAgent, rule: str) -> None:
    policy = agent.permissions
    if rule == "allow_approval":
        policy.allow("approval", {"ms": "1*"})
    elif rule == "deny_sync":
        policy.deny("sync")
    elif rule == "ask_async_call":
        policy.ask("async", scope="call")
    elif rule == "allow_any_reply":
        policy.allow("*", scope="reply")


def question_args(kind: str) -> dict[str, Any]:
    return {"questions": [BAD_QUESTION if kind == "ask_bad" else QUESTION]}


class RunCounter:
    """How many times each call id's approval tool really ran."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()
        self.lock = threading.Lock()

    def ran(self) -> None:
        running = current_tool_call.get()
        if running is not None:
            with self.lock:
                self.runs[running[1].id] += 1

    def check(self) -> str | None:
        twice = [k for k, n in self.runs.items() if n > 1]
        return f"approved calls ran more than once: {twice}" if twice else None


def outside_twice(
    loop: asyncio.AbstractEventLoop, delay_ms: int, decide: Any, errors: list[str]
) -> asyncio.Future[None]:
    """Run ``decide()`` twice from another thread after ``delay_ms``; wrong outcomes go to
    ``errors``: the second must be refused as already decided, unless both were refused
    because the call or question closed meanwhile."""

    def job() -> None:
        time.sleep(delay_ms / 1000)
        outcomes: list[str] = []
        for _ in range(2):
            try:
                decide()
                outcomes.append("ok")
            except ApprovalError as exc:
                outcomes.append(str(exc))
            except Exception as exc:  # anything else is a bug
                errors.append(f"an outside decision raised {exc!r}")
                return
        # the second is refused as already decided, or because an interrupt closed the call
        # between the two (it never ran: the runs counter checks that)
        refused = "already" in outcomes[1] or "no longer waiting" in outcomes[1]
        if outcomes[0] == "ok" and not refused:
            errors.append(f"a second outside decision was not refused: {outcomes[1]!r}")
        if outcomes.count("ok") > 1:
            errors.append("two outside decisions were both accepted")

    return loop.run_in_executor(None, job)
