"""nb_hitl messages and waiting decisions as AG-UI data (the SDK's own pydantic types).

``messages_to_agui(msgs)`` turns a memory's messages into AG-UI ``Message`` objects: a user
message into a ``UserMessage``, an assistant message into an ``AssistantMessage`` (its text and
its tool calls), each tool result into a ``ToolMessage``. Message metadata is kept (so
``_is_interrupted``, ``_partial`` and ``_steered`` reach the client) minus every key that looks
like it holds a secret. ``pending_interrupts(agent)`` describes the approvals and questions a
reply is parked on as AG-UI ``Interrupt`` objects.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Interrupt,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from nb_hitl._secret_names import is_secret_name
from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock

__all__ = [
    "APPROVAL_REASON",
    "QUESTION_REASON",
    "messages_to_agui",
    "pending_interrupts",
    "plain_metadata",
    "result_text",
    "tool_arguments",
]

APPROVAL_REASON = "tool_approval"
"""``Interrupt.reason`` of a tool call waiting for a decision."""
QUESTION_REASON = "ask_user"
"""``Interrupt.reason`` of questions (``ask_user``) waiting for answers."""

DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["approve", "edit", "deny"]},
        "arguments": {"type": "object"},
        "reason": {"type": "string"},
    },
    "required": ["decision"],
}


def plain_metadata(metadata: Any) -> dict[str, Any]:
    """A message's metadata as JSON, without secret-looking keys (at any depth)."""
    if not isinstance(metadata, dict):
        return {}
    out = _scrub(metadata)
    return out if isinstance(out, dict) else {}


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            str(k): _scrub(v)
            for k, v in value.items()
            if not (isinstance(k, str) and is_secret_name(k) and not _harmless(v))
        }
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _harmless(value: Any) -> bool:
    """A number or flag cannot hold a key (``input_tokens: 12`` is kept)."""
    return value is None or isinstance(value, (bool, int, float))


def tool_arguments(call: ToolUseBlock) -> str:
    """A tool call's arguments as the JSON text AG-UI carries (``raw_input`` when it has one)."""
    if call.raw_input:
        return call.raw_input
    return json.dumps(call.input, ensure_ascii=False)


def result_text(block: ToolResultBlock) -> str:
    """A tool result's output as text (text parts joined; other parts named)."""
    if isinstance(block.output, str):
        return block.output
    parts = []
    for part in block.output:
        text = getattr(part, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(part, 'type', 'part')}]")
    return "\n".join(parts)


def _blocks(msg: Msg) -> list[Any]:
    return [] if isinstance(msg.content, str) else list(msg.content)


def _text(msg: Msg) -> str:
    return msg.get_text_content() or ""


def msg_to_agui(msg: Msg) -> list[Message]:
    """One nb_hitl message as AG-UI messages (a tool-result message may hold several)."""
    meta = plain_metadata(msg.metadata) or None
    results = [b for b in _blocks(msg) if isinstance(b, ToolResultBlock)]
    if results:
        return [
            ToolMessage(
                id=msg.id if len(results) == 1 else f"{msg.id}:{i}",
                content=result_text(block),
                tool_call_id=block.id,
                error=result_text(block) if block.is_error else None,
                metadata={**(meta or {}), "is_interrupted": block.is_interrupted} or None,
            )
            for i, block in enumerate(results)
        ]
    if msg.role == "user":
        return [UserMessage(id=msg.id, content=_text(msg), name=msg.name, metadata=meta)]
    if msg.role == "assistant":
        calls = [
            ToolCall(id=b.id, function=FunctionCall(name=b.name, arguments=tool_arguments(b)))
            for b in _blocks(msg)
            if isinstance(b, ToolUseBlock)
        ]
        return [
            AssistantMessage(
                id=msg.id,
                content=_text(msg) or None,
                tool_calls=calls or None,
                name=msg.name,
                metadata=meta,
            )
        ]
    return [SystemMessage(id=msg.id, content=_text(msg), name=msg.name, metadata=meta)]


def messages_to_agui(msgs: list[Msg]) -> list[Message]:
    """A memory's messages as AG-UI messages, in order."""
    return [out for msg in msgs for out in msg_to_agui(msg)]


def _call_label(name: str, arguments: dict[str, Any]) -> str:
    args = json.dumps(arguments, ensure_ascii=False)
    if len(args) > 300:
        args = args[:297] + "..."
    return f"{name}({args})"


def pending_interrupts(agent: Any) -> list[Interrupt]:
    """The approvals and questions ``agent``'s reply waits on, as AG-UI interrupts.

    An approval's id is its tool call id; a question's id is the id of the ``ask_user`` call
    that asks it (stable when the session is loaded by another worker, where the question is
    asked again under a new ``question_id``).
    """
    out: list[Interrupt] = []
    for pending in getattr(agent, "pending_approvals", []):
        out.append(
            Interrupt(
                id=pending.call_id,
                reason=APPROVAL_REASON,
                tool_call_id=pending.call_id,
                message=f"{agent.name} wants to run "
                + _call_label(pending.tool_name, pending.arguments),
                response_schema=DECISION_SCHEMA,
                metadata={
                    "kind": "approval",
                    "toolName": pending.tool_name,
                    "arguments": _scrub(pending.arguments),
                    "why": pending.reason,
                },
            )
        )
    for question in getattr(agent, "pending_questions", []):
        if question.future is not None and question.future.done():
            continue  # answered; the reply has not taken the answer yet
        asked = [q.model_dump(mode="json") for q in question.questions]
        for q in asked:
            q["multiSelect"] = q.pop("multi_select", False)
            q["allowOther"] = q.pop("allow_other", True)
        call_id = question.call_id or question.question_id
        out.append(
            Interrupt(
                id=call_id,
                reason=QUESTION_REASON,
                tool_call_id=question.call_id or None,
                message=question.questions[0].question if question.questions else "",
                metadata={"kind": "question", "questions": asked},
            )
        )
    return out
