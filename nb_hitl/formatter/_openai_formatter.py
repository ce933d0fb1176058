"""OpenAIChatFormatter: a list of ``Msg`` to OpenAI chat-completions messages."""

from __future__ import annotations

from typing import Any

from nb_hitl.message import AudioBlock, ContentBlock, ImageBlock, Msg, TextBlock, ToolResultBlock

from ._formatter_base import FormatterBase, safe_name
from ._media import openai_image_url, openai_input_audio
from ._multiagent import DEFAULT_HISTORY_PROMPT, _MultiAgentFormatter, history_items


class OpenAIChatFormatter(FormatterBase):
    """Formats messages for the OpenAI chat API, as AgentScope 1.x's formatter does.

    - every message becomes ``{"role", "name", "content"}`` with the text (and images, audio)
      as content parts: ``[{"type": "text", "text": ...}, {"type": "image_url", ...}]``;
    - ``tool_use`` blocks become the message's ``tool_calls``; a reply that only calls tools
      has ``content: None``;
    - each ``tool_result`` block becomes a ``tool`` message (with the tool's ``name``) placed
      before its carrier message; images, audio and video in a result are named in its text,
      and with ``promote_tool_result_images=True`` the images follow in a user message;
    - images: web URLs as they are, local files and base64 inline as data URLs; audio (not in
      assistant messages) as ``input_audio``; thinking and video blocks are not sent.

    ``plain_content=True`` sends what strict OpenAI-compatible servers take: text-only content
    as one string (text blocks joined by newlines), ``""`` instead of ``None`` for a
    tool-call-only reply, and ``name`` only on user and assistant messages (none on tool
    messages). llama.cpp's server needs it: it rejects ``content: null`` next to tool calls.
    ``ReActAgent`` uses ``OpenAIChatFormatter(plain_content=True)`` when given no formatter;
    pass ``formatter=OpenAIChatFormatter(plain_content=True)`` with such a server. (nb_hitl's
    ``OpenAIChatModel`` also sends ``""`` for this formatter's ``None`` on the wire.)

    Differences kept on purpose (each is also said where it happens): names are made valid
    for the API (``"Ann Lee"`` -> ``"Ann_Lee"``); a call whose arguments were not valid JSON
    (``raw_input`` set) is sent with them verbatim; web audio is not downloaded; base64 media
    in a tool result is not written to a temporary file; truncation (``max_tokens``) is
    not supported.

    Args:
        promote_tool_result_images: also send the images of tool results, in a user message
            after the tool messages (most APIs take no images in tool results).
        token_counter: accepted for AgentScope's signature.
        max_tokens: not supported (see ``FormatterBase``).
        include_names: send ``name`` fields (nb_hitl's option).
        plain_content: the strict-server format described above (nb_hitl's option).
    """

    support_tools_api: bool = True
    support_multiagent: bool = True
    support_vision: bool = True

    def __init__(
        self,
        promote_tool_result_images: bool = False,
        token_counter: Any = None,
        max_tokens: int | None = None,
        *,
        include_names: bool = True,
        plain_content: bool = False,
    ) -> None:
        super().__init__(token_counter=token_counter, max_tokens=max_tokens)
        self.promote_tool_result_images = promote_tool_result_images
        self.include_names = include_names
        self.plain_content = plain_content

    promoted_intro = "image"

    def _content_part(self, msg: Msg, block: ContentBlock) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return {"type": "text", "text": block.text}
        if isinstance(block, ImageBlock):
            return {"type": "image_url", "image_url": {"url": openai_image_url(block.source)}}
        if isinstance(block, AudioBlock) and msg.role != "assistant":
            # Audio a model spoke is not sent back (the API rejects it in later calls).
            return {"type": "input_audio", "input_audio": openai_input_audio(block.source)}
        return None  # thinking, video and an assistant's audio are not sent.

    def _tool_message(
        self, block: ToolResultBlock, text: str, media: list[tuple[str, Any]]
    ) -> dict[str, Any]:
        if self.plain_content:
            text = block.output_text() if not media else text
            return {"role": "tool", "tool_call_id": block.id, "content": text}
        return super()._tool_message(block, text, media)

    def _entry(
        self, msg: Msg, parts: list[dict[str, Any]], calls: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        if not self.plain_content:
            if not parts and not calls:
                return None
            entry: dict[str, Any] = {"role": msg.role}
            if self.include_names:
                entry["name"] = safe_name(msg.name)
            entry["content"] = parts or None
            if calls:
                entry["tool_calls"] = calls
            return entry
        texts = [p["text"] for p in parts if p["type"] == "text" and p["text"]]
        media = [p for p in parts if p["type"] != "text"]
        if not texts and not media and not calls:
            return None
        content: Any = (
            [p for p in parts if p["type"] != "text" or p["text"]] if media else "\n".join(texts)
        )
        entry = {"role": "assistant" if calls else msg.role, "content": content}
        if self.include_names and msg.role in ("user", "assistant") and msg.name:
            entry["name"] = safe_name(msg.name)
        if calls:
            entry["tool_calls"] = calls
        return entry


class OpenAIMultiAgentFormatter(_MultiAgentFormatter):
    """AgentScope's OpenAI formatter for conversations with more than a user and an agent.

    The ``<history>`` text comes first in the user message, then its images (``image_url``),
    then its audio (``input_audio``, not from assistant messages). The system message keeps
    its text blocks as content parts. Tool sequences go through ``OpenAIChatFormatter``.

    Args:
        conversation_history_prompt: the text before the first ``<history>`` block.
        promote_tool_result_images: as ``OpenAIChatFormatter``'s, for tool sequences.
        token_counter: accepted for AgentScope's signature.
        max_tokens: not supported (see ``FormatterBase``).
    """

    def __init__(
        self,
        conversation_history_prompt: str = DEFAULT_HISTORY_PROMPT,
        promote_tool_result_images: bool = False,
        token_counter: Any = None,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(conversation_history_prompt, token_counter, max_tokens)
        self.promote_tool_result_images = promote_tool_result_images

    def _system_message(self, msg: Msg) -> dict[str, Any]:
        texts = msg.get_content_blocks("text")
        return {"role": "system", "content": [{"type": "text", "text": b.text} for b in texts]}

    def _chat_formatter(self) -> FormatterBase:
        return OpenAIChatFormatter(promote_tool_result_images=self.promote_tool_result_images)

    def _history_message(self, msgs: list[Msg], prompt: str) -> list[dict[str, Any]]:
        lines: list[str] = []
        images: list[dict[str, Any]] = []
        audios: list[dict[str, Any]] = []
        for msg, item in history_items(msgs):
            if isinstance(item, str):
                lines.append(item)
            elif isinstance(item, ImageBlock):
                url = openai_image_url(item.source)
                images.append({"type": "image_url", "image_url": {"url": url}})
            elif isinstance(item, AudioBlock) and msg.role != "assistant":
                audio = openai_input_audio(item.source)
                audios.append({"type": "input_audio", "input_audio": audio})
        content: list[dict[str, Any]] = []
        if lines:  # as AgentScope: images alone get no <history> heading
            text = prompt + "<history>\n" + "\n".join(lines) + "\n</history>"
            content.append({"type": "text", "text": text})
        content.extend(images)
        content.extend(audios)
        return [{"role": "user", "content": content}] if content else []


__all__ = ["OpenAIChatFormatter", "OpenAIMultiAgentFormatter"]
