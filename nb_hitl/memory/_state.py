"""Reading a memory state dict (AgentScope 1.x's shape and nb_hitl's older one), all or nothing."""

from __future__ import annotations

import os
from typing import Any

from pydantic import ValidationError

from nb_hitl.message import Msg


def new_id() -> str:
    """A fresh message id (the same form ``Msg`` uses)."""
    return os.urandom(8).hex()


def _marks(value: Any, where: str) -> set[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(m, str) for m in value):
        raise ValueError(f"Memory state: the marks of {where} must be a list of strings.")
    return set(value)


def _msg(value: Any, where: str) -> Msg:
    if not isinstance(value, dict):
        raise ValueError(f"Memory state: {where} must be a message dict (Msg.to_dict()).")
    try:
        return Msg.from_dict(value)
    except (ValidationError, TypeError) as exc:  # Msg.__init__ raises TypeError too
        raise ValueError(f"Memory state: {where} is not a valid message: {exc}") from exc


def _agentscope_shape(state: dict[str, Any]) -> tuple[list[Msg], dict[str, set[str]]]:
    content = state["content"]
    if not isinstance(content, list):
        raise ValueError("Memory state: 'content' must be a list of [message, marks] pairs.")
    messages: list[Msg] = []
    marks: dict[str, set[str]] = {}
    for i, item in enumerate(content):
        where = f"content[{i}]"
        if isinstance(item, (list, tuple)) and len(item) == 2:
            msg = _msg(item[0], where)
            found = _marks(item[1], where)
        elif isinstance(item, dict):  # a bare message, as AgentScope's older states hold
            msg, found = _msg(item, where), set()
        else:
            raise ValueError(
                f"Memory state: {where} must be a [message dict, marks list] pair or a message "
                "dict."
            )
        messages.append(msg)
        if found:
            marks[msg.id] = found
    return messages, marks


def _legacy_shape(state: dict[str, Any], strict: bool) -> tuple[list[Msg], dict[str, set[str]]]:
    raw = state["messages"]
    if not isinstance(raw, list):
        raise ValueError("Memory state: 'messages' must be a list of message dicts.")
    messages = [_msg(d, f"messages[{i}]") for i, d in enumerate(raw)]
    raw_marks = state.get("marks", {})
    if not isinstance(raw_marks, dict):
        raise ValueError("Memory state: 'marks' must map message ids to lists of marks.")
    marks = {str(k): _marks(v, f"message {k}") for k, v in raw_marks.items()}
    if strict and set(marks) - {m.id for m in messages}:
        raise ValueError("Memory state has marks for messages it does not hold.")
    return messages, marks


def parse_state(state: Any, strict: bool) -> tuple[list[Msg], dict[str, set[str]], str]:
    """Validate a memory state dict; return messages, marks by id and the summary.

    Raises:
        TypeError: ``state`` is not a dict.
        KeyError: ``strict`` and there is no message list.
        ValueError: anything malformed, or one message id twice.
    """
    if not isinstance(state, dict):
        raise TypeError(f"A memory state must be a dict, got {type(state).__name__}.")
    if "content" in state:
        messages, marks = _agentscope_shape(state)
        summary = state.get("_compressed_summary", "")
    elif "messages" in state:
        messages, marks = _legacy_shape(state, strict)
        summary = state.get("summary", "")
    elif strict:
        raise KeyError(
            "The memory state has no 'content' (the message list InMemoryMemory.state_dict() "
            "writes); pass strict=False to load it as empty."
        )
    else:
        messages, marks = [], {}
        summary = state.get("_compressed_summary", "")
    if not isinstance(summary, str):
        raise ValueError("Memory state: the compressed summary must be a string.")
    ids = [m.id for m in messages]
    if len(set(ids)) != len(ids):
        raise ValueError("Memory state holds the same message id twice.")
    held = set(ids)
    return messages, {k: v for k, v in marks.items() if v and k in held}, summary
