"""nb_hitl messages to AG-UI messages and back (the SDK's message models, never re-declared).

A run's input carries the conversation so far (``RunAgentInput.messages``), and a server's
``MESSAGES_SNAPSHOT`` brings its own version back. Ids are kept both ways, so the snapshot is
matched message by message. nb_hitl's flags (``_is_interrupted``, ``_partial``...) travel in
the AG-UI message's ``metadata["nb_hitl"]``: a server that keeps metadata gives them back.

Every string from a server is kept as text; drawing it escaped is the widgets' job
(``nb_hitl._render``).
"""

from __future__ import annotations

import json
from typing import Any

from nb_hitl.message import MetaKey, Msg, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock

FLAGS = (
    MetaKey.IS_INTERRUPTED,
    MetaKey.PARTIAL,
    MetaKey.ERROR,
    MetaKey.INTERRUPTED_BY,
    MetaKey.INTERRUPTED_AT,
    MetaKey.PARTIAL_MSG_ID,
    MetaKey.RESUME_INSTRUCTION,
)
"""The metadata keys that travel with a message (in ``metadata["nb_hitl"]``)."""


def _flags(msg: Msg) -> dict[str, Any] | None:
    kept = {k: msg.metadata[k] for k in FLAGS if k in msg.metadata}
    return {"nb_hitl": kept} if kept else None


def _arguments_json(block: ToolUseBlock) -> str:
    if block.raw_input is not None:  # arguments that never parsed: sent as they came
        return block.raw_input
    return json.dumps(block.input, ensure_ascii=False)


def to_agui(messages: list[Msg]) -> list[Any]:
    """``messages`` as AG-UI messages, in order (tool results become one message per call)."""
    from ag_ui.core import (
        AssistantMessage,
        FunctionCall,
        SystemMessage,
        ToolCall,
        ToolMessage,
        UserMessage,
    )

    out: list[Any] = []
    for msg in messages:
        meta = _flags(msg)
        results = msg.get_content_blocks("tool_result")
        if results:
            for i, r in enumerate(results):
                out.append(
                    ToolMessage(
                        id=msg.id if len(results) == 1 else f"{msg.id}:{i}",
                        tool_call_id=r.id,
                        content=r.output_text(),
                        error=r.output_text() if r.is_error else None,
                        metadata=meta,
                    )
                )
            continue
        text = msg.get_text_content() or ""
        if msg.role == "user":
            out.append(UserMessage(id=msg.id, content=text, name=msg.name, metadata=meta))
        elif msg.role == "system":
            out.append(SystemMessage(id=msg.id, content=text, metadata=meta))
        else:
            calls = [
                ToolCall(id=b.id, function=FunctionCall(name=b.name, arguments=_arguments_json(b)))
                for b in msg.get_content_blocks("tool_use")
            ]
            out.append(
                AssistantMessage(
                    id=msg.id,
                    content=text or None,
                    tool_calls=calls or None,
                    name=msg.name,
                    metadata=meta,
                )
            )
    return out


def parse_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, and the raw text when they are not a JSON object."""
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return {}, text
    return (value, None) if isinstance(value, dict) else ({}, text)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep their text
        parts = [getattr(p, "text", None) for p in content]
        return "\n".join(p for p in parts if isinstance(p, str))
    return "" if content is None else str(content)


def _meta(message: Any) -> dict[str, Any]:
    """nb_hitl's metadata of a server's message: ``metadata["nb_hitl"]`` when the client put
    it there, else the message's metadata as it is (nb_hitl's server sends ``Msg.metadata``
    itself: ``_is_interrupted``, ``continued_from``...)."""
    raw = getattr(message, "metadata", None) or {}
    if not isinstance(raw, dict):
        return {}
    kept = raw.get("nb_hitl")
    if isinstance(kept, dict):
        return {k: kept[k] for k in FLAGS if k in kept}
    return {str(k): v for k, v in raw.items()}


def from_agui(message: Any, agent_name: str, user_name: str = "User") -> Msg | None:
    """One AG-UI message (an SDK model) as a ``Msg``; None for kinds nb_hitl does not keep
    (activity messages)."""
    role = getattr(message, "role", "")
    meta = _meta(message)
    mid = str(message.id)
    if role == "user":
        name = getattr(message, "name", None) or user_name
        return Msg(str(name), _text_of(message.content), "user", metadata=meta, id=mid)
    if role in ("system", "developer"):
        return Msg("system", _text_of(message.content), "system", metadata=meta, id=mid)
    if role == "tool":
        output = _text_of(message.content)
        error = getattr(message, "error", None)
        block = ToolResultBlock(
            id=str(message.tool_call_id),
            name=str((getattr(message, "metadata", None) or {}).get("tool_name", "") or "tool"),
            output=output or (str(error) if error else ""),
            is_error=bool(error),
        )
        return Msg("system", [block], "system", metadata=meta, id=mid)
    if role == "reasoning":
        return Msg(
            agent_name,
            [ThinkingBlock(thinking=_text_of(message.content))],
            "assistant",
            metadata=meta,
            id=mid,
        )
    if role != "assistant":
        return None
    blocks: list[Any] = []
    text = _text_of(getattr(message, "content", None))
    if text:
        blocks.append(TextBlock(text=text))
    for call in getattr(message, "tool_calls", None) or []:
        args, raw = parse_arguments(str(call.function.arguments or ""))
        blocks.append(
            ToolUseBlock(id=str(call.id), name=str(call.function.name), input=args, raw_input=raw)
        )
    name = getattr(message, "name", None) or agent_name
    return Msg(str(name), blocks, "assistant", metadata=meta, id=mid)


def same_content(a: Msg, b: Msg) -> bool:
    """Whether two versions of one message say the same (text, calls and results)."""

    def key(m: Msg) -> tuple[Any, ...]:
        return (
            m.role,
            m.get_text_content() or "",
            [(c.id, c.name, c.input) for c in m.get_content_blocks("tool_use")],
            [(r.id, r.output_text()) for r in m.get_content_blocks("tool_result")],
        )

    return key(a) == key(b)


__all__ = ["FLAGS", "from_agui", "parse_arguments", "same_content", "to_agui"]
