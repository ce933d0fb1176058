"""DashScopeChatFormatter: a list of ``Msg`` to DashScope (Qwen) chat messages."""

from __future__ import annotations

import json
from typing import Any

from nb_hitl.message import (
    AudioBlock,
    ImageBlock,
    Msg,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)

from ._base import FormatterBase
from ._media import dashscope_media_url

_MEDIA = {"image": ImageBlock, "audio": AudioBlock, "video": VideoBlock}


class DashScopeChatFormatter(FormatterBase):
    """Formats messages for DashScope's chat API, as AgentScope 1.x's formatter does.

    - ``{"role", "content"}`` with content parts ``{"text": ...}``, ``{"image": url}``,
      ``{"audio": url}``, ``{"video": url}`` (local files and base64 inline as data URLs);
      a message whose parts are all text gets them as one string, joined by newlines;
    - no ``name`` fields (DashScope identifies speakers by role);
    - ``tool_use`` blocks become ``tool_calls``; a tool-call-only reply has ``content: []``
      (DashScope's vision models fail on ``None``);
    - each ``tool_result`` becomes a ``tool`` message (with the tool's ``name``) before its
      carrier; with ``promote_tool_result_images`` / ``_audios`` / ``_videos`` that media
      follows in a user message;
    - thinking blocks are not sent.

    With nb_hitl's ``DashScopeChatModel`` (DashScope's OpenAI-compatible mode) text and tool
    calls work as is; for images there prefer ``OpenAIChatFormatter``, whose ``image_url``
    parts the compatible mode takes.

    Args:
        promote_tool_result_images: send tool-result images in a user message after them.
        promote_tool_result_audios: the same for audio.
        promote_tool_result_videos: the same for video.
        token_counter: accepted for AgentScope's signature.
        max_tokens: not supported (see ``FormatterBase``).
    """

    support_tools_api: bool = True
    support_multiagent: bool = False
    support_vision: bool = True

    def __init__(
        self,
        promote_tool_result_images: bool = False,
        promote_tool_result_audios: bool = False,
        promote_tool_result_videos: bool = False,
        token_counter: Any = None,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(token_counter=token_counter, max_tokens=max_tokens)
        self.promote_tool_result_images = promote_tool_result_images
        self.promote_tool_result_audios = promote_tool_result_audios
        self.promote_tool_result_videos = promote_tool_result_videos

    def format_msg(self, msg: Msg) -> list[dict[str, Any]]:
        """Format one message into zero or more chat messages (tool results first)."""
        parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        out: list[dict[str, Any]] = []
        promoted: list[Msg] = []
        for block in msg.get_content_blocks():
            if isinstance(block, TextBlock):
                parts.append({"text": block.text})
            elif isinstance(block, (ImageBlock, AudioBlock, VideoBlock)):
                parts.append({block.type: dashscope_media_url(block.source)})
            elif isinstance(block, ToolUseBlock):
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
                text, media = self.convert_tool_result_to_string(block.output)
                out.append(
                    {"role": "tool", "tool_call_id": block.id, "content": text, "name": block.name}
                )
                promoted.extend(self._promoted(block.name, media))
        if parts or calls:
            entry: dict[str, Any] = {"role": msg.role, "content": _join_text(parts)}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        for extra in promoted:
            out.extend(self.format_msg(extra))
        return out

    def _promoted(self, tool_name: str, media: list[tuple[str, Any]]) -> list[Msg]:
        wanted = {
            "image": self.promote_tool_result_images,
            "audio": self.promote_tool_result_audios,
            "video": self.promote_tool_result_videos,
        }
        blocks: list[Any] = []
        for where, block in media:
            kind = block["type"]
            if wanted.get(kind):
                blocks.append(TextBlock(text=f"\n- The {kind} from '{where}': "))
                blocks.append(_MEDIA[kind](source=URLSource(url=where)))
        if not blocks:
            return []
        intro = (
            "<system-info>The following are the media contents from the tool result of "
            f"'{tool_name}':"
        )
        return [
            Msg("user", [TextBlock(text=intro), *blocks, TextBlock(text="</system-info>")], "user")
        ]


def _join_text(parts: list[dict[str, Any]]) -> Any:
    """All-text parts as one newline-joined string (empty texts left out); others unchanged."""
    if parts and all(set(p) == {"text"} for p in parts):
        texts = [p["text"] for p in parts if p["text"]]
        if texts:
            return "\n".join(texts)
    return parts


__all__ = ["DashScopeChatFormatter"]
