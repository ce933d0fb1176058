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

The provider classes live beside their chat formatters (``_openai_formatter``,
``_dashscope_formatter``, AgentScope's module names). Thinking blocks are not sent. The
differences of the chat formatters apply to tool sequences (names made valid for the API, no
truncation).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from nb_hitl.message import AudioBlock, ImageBlock, Msg, TextBlock, VideoBlock

from ._formatter_base import FormatterBase

MediaBlock = ImageBlock | AudioBlock | VideoBlock

DEFAULT_HISTORY_PROMPT = (
    "# Conversation History\n"
    "The content between <history></history> tags contains your conversation history\n"
)
"""AgentScope's default ``conversation_history_prompt``."""


def history_items(msgs: Sequence[Msg]) -> Iterator[tuple[Msg, str | MediaBlock]]:
    """What an agent-message run says, in order: each text block as a ``name: text`` line,
    each image, audio and video block as it is (the provider formatter places them)."""
    for msg in msgs:
        for block in msg.get_content_blocks():
            if isinstance(block, TextBlock):
                yield msg, f"{msg.name}: {block.text}"
            elif isinstance(block, (ImageBlock, AudioBlock, VideoBlock)):
                yield msg, block


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


__all__ = ["DEFAULT_HISTORY_PROMPT", "group_messages"]
