"""Checking a run's input before it starts: new user messages, and resume answers.

Everything here raises ``ServeError`` (422, with what to fix) before anything changes.
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ResumeEntry

from nb_hitl.exceptions import ServeError
from nb_hitl.message import Msg

from ._convert import QUESTION_REASON

__all__ = ["MAX_TEXT", "check_resume", "user_msg"]

MAX_TEXT = 200_000
"""Characters of one input message (a larger one is refused with 422)."""


def check_resume(
    entries: list[ResumeEntry], waiting: list[dict[str, Any]]
) -> dict[str, ResumeEntry]:
    """The run's resume entries by interrupt id, each checked against what the thread waits on."""
    from nb_hitl.agent.approvals import check_answers, parse_questions

    by_id = {i["id"]: i for i in waiting}
    if not by_id:
        raise ServeError(
            422,
            "nothing_to_resume",
            "The thread waits on no interrupt (it finished, or was stopped); send a new "
            "user message instead of `resume`.",
        )
    out: dict[str, ResumeEntry] = {}
    for entry in entries:
        interrupt = by_id.get(entry.interrupt_id)
        if interrupt is None:
            raise ServeError(
                422,
                "unknown_interrupt",
                f"No pending interrupt {entry.interrupt_id!r} on this thread; pending: "
                f"{sorted(by_id)}. Answer those ids (GET .../threads/ID/messages lists them).",
            )
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        if entry.status == "resolved" and interrupt.get("reason") == QUESTION_REASON:
            questions = (interrupt.get("metadata") or {}).get("questions", [])
            answers = payload["answers"] if "answers" in payload else entry.payload
            try:
                check_answers(parse_questions([snake(q) for q in questions]), answers)
            except Exception as exc:
                raise ServeError(422, "bad_answer", f"{exc}") from exc
        elif entry.status == "resolved":
            word = payload.get("decision")
            if word not in ("approve", "edit", "deny"):
                raise ServeError(
                    422,
                    "bad_decision",
                    f"Resume entry for {entry.interrupt_id!r} needs payload "
                    '{"decision": "approve" | "edit" | "deny"} (with "arguments" for '
                    f'edit, "reason" for deny); got {entry.payload!r:.200}.',
                )
            if word == "edit" and not isinstance(payload.get("arguments"), dict):
                raise ServeError(
                    422, "bad_decision", 'An "edit" decision needs "arguments": {...}.'
                )
        out[entry.interrupt_id] = entry
    return out


def snake(question: dict[str, Any]) -> dict[str, Any]:
    q = dict(question)
    if "multiSelect" in q:
        q["multi_select"] = q.pop("multiSelect")
    if "allowOther" in q:
        q["allow_other"] = q.pop("allowOther")
    return q


def user_msg(message: Any, agent: Any) -> Msg:
    """A new AG-UI input message as an nb_hitl ``Msg`` (user text only), keeping its id."""
    role = getattr(message, "role", "?")
    if role != "user":
        raise ServeError(
            422,
            "bad_input",
            f"Message {message.id!r} has role {role!r} and is not in this thread's history. "
            "The server keeps the history: send only new user messages (ids it has not seen); "
            "GET .../threads/ID/messages shows the history it has.",
        )
    content = message.content
    if isinstance(content, list):
        texts = [getattr(p, "text", None) for p in content]
        if any(t is None for t in texts):
            raise ServeError(
                422, "bad_input", f"Message {message.id!r}: only text parts are accepted."
            )
        content = "\n".join(t for t in texts if t)
    if not isinstance(content, str) or not content.strip():
        raise ServeError(422, "bad_input", f"Message {message.id!r} has no text.")
    if len(content) > MAX_TEXT:
        raise ServeError(
            422,
            "bad_input",
            f"Message {message.id!r} has {len(content)} characters; the limit is {MAX_TEXT}.",
        )
    name = message.name if isinstance(message.name, str) and message.name else "User"
    return Msg(name, content, "user", id=message.id)
