"""DashScopeChatFormatter: a list of ``Msg`` to DashScope (Qwen) chat messages."""

from __future__ import annotations

from typing import Any

from nb_hitl.message import AudioBlock, ContentBlock, ImageBlock, Msg, TextBlock, VideoBlock

from ._base import FormatterBase
from ._media import dashscope_media_url


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

    nb_hitl's ``DashScopeChatModel`` (DashScope's OpenAI-compatible mode) sends these native
    parts as the compatible mode's ``image_url`` / ``input_audio`` / ``video_url`` parts.

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

    def _content_part(self, msg: Msg, block: ContentBlock) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return {"text": block.text}
        if isinstance(block, (ImageBlock, AudioBlock, VideoBlock)):
            return {block.type: dashscope_media_url(block.source)}
        return None  # thinking blocks are not sent

    def _entry(
        self, msg: Msg, parts: list[dict[str, Any]], calls: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        if not parts and not calls:
            return None
        entry: dict[str, Any] = {"role": msg.role, "content": join_text(parts)}
        if calls:
            entry["tool_calls"] = calls
        return entry


def join_text(parts: list[dict[str, Any]]) -> Any:
    """All-text parts as one newline-joined string (empty texts left out); others unchanged."""
    if parts and all(set(p) == {"text"} for p in parts):
        texts = [p["text"] for p in parts if p["text"]]
        if texts:
            return "\n".join(texts)
    return parts


__all__ = ["DashScopeChatFormatter"]
