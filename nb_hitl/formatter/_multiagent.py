"""Multi-agent formatters: many speakers folded into one ``<history>`` user message.

AgentScope 1.x's ``OpenAIMultiAgentFormatter`` and ``DashScopeMultiAgentFormatter``:

- a leading ``system`` message stays a system message;
- the rest is cut into runs: messages with tool calls or tool results (a *tool sequence*) and
  messages without (an *agent-message* run);
- each agent-message run becomes one ``user`` message whose text is every text block as
  ``name: text`` lines inside ``<history>`` ... ``</history>``; the first run starts with
  ``conversation_history_prompt``; images (and audio) are sent as parts of that message;
- each tool sequence is formatted by the provider's chat formatter (structured ``tool_calls``
  and ``tool`` messages, so the API pairs them).

Thinking blocks are not sent. The differences of the chat formatters apply to tool sequences
(names made valid for the API, no truncation).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from nb_hitl.message import AudioBlock, ImageBlock, Msg, TextBlock, VideoBlock

from ._base import FormatterBase
from ._dashscope import DashScopeChatFormatter, join_text
from ._media import dashscope_media_url, openai_image_url, openai_input_audio
from ._openai import OpenAIChatFormatter

DEFAULT_HISTORY_PROMPT = (
    "# Conversation History\n"
    "The content between <history></history> tags contains your conversation history\n"
)
"""AgentScope's default ``conversation_history_prompt``."""


def group_messages(msgs: Sequence[Msg]) -> Iterator[tuple[str, list[Msg]]]:
    """Consecutive runs of ``("tool_sequence", msgs)`` and ``("agent_message", msgs)``."""
    kind: str | None = None
    group: list[Msg] = []
    for msg in msgs:
        this = (
            "tool_sequence"
            if msg.has_content_blocks(["tool_use", "tool_result"])
            else "agent_message"
        )
        if kind is not None and this != kind:
            yield kind, group
            group = []
        kind = this
        group.append(msg)
    if kind is not None:
        yield kind, group


class _MultiAgentFormatter(FormatterBase):
    """What both multi-agent formatters share: the system message, the runs, the tool part."""

    support_tools_api: bool = True
    support_multiagent: bool = True
    support_vision: bool = True

    def __init__(
        self,
        conversation_history_prompt: str = DEFAULT_HISTORY_PROMPT,
        token_counter: Any = None,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(token_counter=token_counter, max_tokens=max_tokens)
        self.conversation_history_prompt = conversation_history_prompt

    def format_sync(self, msgs: Sequence[Msg]) -> list[dict[str, Any]]:
        """Format ``msgs`` without awaiting."""
        self.assert_list_of_msgs(msgs)
        out: list[dict[str, Any]] = []
        start = 0
        if msgs and msgs[0].role == "system":
            out.append(self._system_message(msgs[0]))
            start = 1
        first = True
        for kind, group in group_messages(msgs[start:]):
            if kind == "tool_sequence":
                out.extend(self._chat_formatter().format_sync(group))
            else:
                prompt = self.conversation_history_prompt if first else ""
                out.extend(self._history_message(group, prompt))
                first = False
        return out

    def format_msg(self, msg: Msg) -> list[dict[str, Any]]:
        """One message formatted on its own (what token counters count per message; an agent
        message then carries the history heading, so per-message counts are upper bounds)."""
        return self.format_sync([msg])

    def _system_message(self, msg: Msg) -> dict[str, Any]:
        raise NotImplementedError

    def _chat_formatter(self) -> FormatterBase:
        raise NotImplementedError

    def _history_message(self, msgs: list[Msg], prompt: str) -> list[dict[str, Any]]:
        raise NotImplementedError


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
        for msg in msgs:
            for block in msg.get_content_blocks():
                if isinstance(block, TextBlock):
                    lines.append(f"{msg.name}: {block.text}")
                elif isinstance(block, ImageBlock):
                    url = openai_image_url(block.source)
                    images.append({"type": "image_url", "image_url": {"url": url}})
                elif isinstance(block, AudioBlock) and msg.role != "assistant":
                    audio = openai_input_audio(block.source)
                    audios.append({"type": "input_audio", "input_audio": audio})
        content: list[dict[str, Any]] = []
        if lines:  # as AgentScope: images alone get no <history> heading
            text = prompt + "<history>\n" + "\n".join(lines) + "\n</history>"
            content.append({"type": "text", "text": text})
        content.extend(images)
        content.extend(audios)
        return [{"role": "user", "content": content}] if content else []


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
        for msg in msgs:
            for block in msg.get_content_blocks():
                if isinstance(block, TextBlock):
                    lines.append(f"{msg.name}: {block.text}")
                elif isinstance(block, (ImageBlock, AudioBlock, VideoBlock)):
                    if lines:  # the text so far, then the media where it was said
                        parts.append({"text": "\n".join(lines)})
                        lines = []
                    parts.append({block.type: dashscope_media_url(block.source)})
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


__all__ = ["DashScopeMultiAgentFormatter", "OpenAIMultiAgentFormatter"]
