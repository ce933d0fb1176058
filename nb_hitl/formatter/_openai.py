"""Turn a list of ``Msg`` into OpenAI chat-completions messages."""

from __future__ import annotations

import json
from typing import Any

from nb_hitl.message import Msg, TextBlock, ToolResultBlock, ToolUseBlock


class OpenAIChatFormatter:
    """Formats messages for the OpenAI chat API (and every server compatible with it).

    - ``system``/``user``/``assistant`` messages keep their role; ``name`` is sent for user and
      assistant messages unless ``include_names=False``.
    - ``tool_use`` blocks become the assistant's ``tool_calls`` (arguments that were not valid
      JSON, kept in ``raw_input``, are sent verbatim).
    - ``tool_result`` blocks become ``tool`` messages, whatever message carries them.
    - thinking blocks are not sent back.
    - An assistant message with tool calls and no text gets ``content: ""`` (some servers,
      llama.cpp among them, reject ``null``).
    """

    def __init__(self, include_names: bool = True) -> None:
        self.include_names = include_names

    async def format(self, msgs: list[Msg]) -> list[dict[str, Any]]:
        """Format ``msgs`` (AgentScope's formatters are async; this one does no I/O)."""
        return self.format_sync(msgs)

    def format_sync(self, msgs: list[Msg]) -> list[dict[str, Any]]:
        """Format ``msgs`` without awaiting."""
        out: list[dict[str, Any]] = []
        for msg in msgs:
            out.extend(self.format_msg(msg))
        return out

    def format_msg(self, msg: Msg) -> list[dict[str, Any]]:
        """Format one message into zero or more chat messages."""
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for block in msg.get_content_blocks():
            if isinstance(block, TextBlock):
                if block.text:
                    texts.append(block.text)
            elif isinstance(block, ToolUseBlock):
                # A finished call whose arguments were not valid JSON keeps them verbatim
                # (its tool_result says so); the agent drops half-streamed ones on interrupt.
                arguments = (
                    block.raw_input
                    if block.raw_input is not None
                    else json.dumps(block.input, ensure_ascii=False)
                )
                calls.append(
                    {
                        "id": block.id,
                        "type": "function",
                        "function": {"name": block.name, "arguments": arguments},
                    }
                )
            elif isinstance(block, ToolResultBlock):
                results.append(
                    {"role": "tool", "tool_call_id": block.id, "content": block.output_text()}
                )
        out: list[dict[str, Any]] = list(results)
        if texts or calls:
            entry: dict[str, Any] = {"role": msg.role, "content": "\n".join(texts)}
            if self.include_names and msg.role in ("user", "assistant") and msg.name:
                entry["name"] = _safe_name(msg.name)
            if calls:
                entry["role"] = "assistant"
                entry["tool_calls"] = calls
            out.append(entry)
        return out


def _safe_name(name: str) -> str:
    # OpenAI restricts `name` to [a-zA-Z0-9_-]{1,64}.
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c in "_-" else "_" for c in name)[:64]
    return cleaned or "_"
