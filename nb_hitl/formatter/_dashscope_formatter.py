"""DashScopeChatFormatter: a list of ``Msg`` to DashScope (Qwen) chat messages."""

from __future__ import annotations

from typing import Any

from nb_hitl.message import AudioBlock, ContentBlock, ImageBlock, Msg, TextBlock, VideoBlock

from ._formatter_base import FormatterBase
from ._media import dashscope_media_url
from ._multiagent import DEFAULT_HISTORY_PROMPT, _MultiAgentFormatter, history_items


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

    nb_hitl's ``DashScopeChatModel`` sends these parts as they are to DashScope's own API (the
    ``dashscope`` SDK), and as ``image_url`` / ``input_audio`` / ``video_url`` parts to its
    OpenAI-compatible mode.

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


class DashScopeMultiAgentFormatter(_MultiAgentFormatter):
    """AgentScope's DashScope formatter for conversations with more than a user and an agent.

    Text and media keep their order inside the ``<history>`` message (``{"text": ...}``,
    ``{"image": url}``, ``{"audio": url}``, ``{"video": url}``); all-text content is sent as
    one string. The system message's content is its text as a string. Tool sequences go
    through ``DashScopeChatFormatter``.

    Args:
        conversation_history_prompt: the text before the first ``<history>`` block.
        promote_tool_result_images: as ``DashScopeChatFormatter``'s, for tool sequences.
        promote_tool_result_audios: the same for audio.
        promote_tool_result_videos: the same for video.
        token_counter: accepted for AgentScope's signature.
        max_tokens: not supported (see ``FormatterBase``).
    """

    def __init__(
        self,
        conversation_history_prompt: str = DEFAULT_HISTORY_PROMPT,
        promote_tool_result_images: bool = False,
        promote_tool_result_audios: bool = False,
        promote_tool_result_videos: bool = False,
        token_counter: Any = None,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(conversation_history_prompt, token_counter, max_tokens)
        self.promote_tool_result_images = promote_tool_result_images
        self.promote_tool_result_audios = promote_tool_result_audios
        self.promote_tool_result_videos = promote_tool_result_videos

    def _system_message(self, msg: Msg) -> dict[str, Any]:
        return {"role": "system", "content": msg.get_text_content()}

    def _chat_formatter(self) -> FormatterBase:
        return DashScopeChatFormatter(
            promote_tool_result_images=self.promote_tool_result_images,
            promote_tool_result_audios=self.promote_tool_result_audios,
            promote_tool_result_videos=self.promote_tool_result_videos,
        )

    def _history_message(self, msgs: list[Msg], prompt: str) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        lines: list[str] = []
        for _, item in history_items(msgs):
            if isinstance(item, str):
                lines.append(item)
                continue
            if lines:  # the text so far, then the media where it was said
                parts.append({"text": "\n".join(lines)})
                lines = []
            parts.append({item.type: dashscope_media_url(item.source)})
        if lines:
            parts.append({"text": "\n".join(lines)})
        if not parts:
            return []
        if parts[0].get("text"):
            parts[0] = {"text": prompt + "<history>\n" + parts[0]["text"]}
        else:
            parts.insert(0, {"text": prompt + "<history>\n"})
        if parts[-1].get("text"):
            parts[-1] = {"text": parts[-1]["text"] + "\n</history>"}
        else:
            parts.append({"text": "</history>"})
        return [{"role": "user", "content": join_text(parts)}]


__all__ = ["DashScopeChatFormatter", "DashScopeMultiAgentFormatter"]
