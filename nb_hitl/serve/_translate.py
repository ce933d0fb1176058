"""nb_hitl events -> AG-UI events, for one run.

A ``RunTranslator`` reads the agent's events (``nb_hitl.events``) in order and returns the
AG-UI events each one means:

- ``MessageUpdated`` (the live assistant message grew): ``TEXT_MESSAGE_START`` the first time a
  message has text, then ``TEXT_MESSAGE_CONTENT`` with the new text. The delta is computed from
  the whole message so far against what was sent, so an update the event bus shed for a slow
  reader loses nothing.
- ``MessageAdded`` (a message committed to memory): an open text message gets its last text and
  ``TEXT_MESSAGE_END`` (with the message's metadata, e.g. ``_partial``); a message committed
  without streaming (the interrupted message, a steering message) is sent whole, metadata on
  its ``TEXT_MESSAGE_START``; an assistant message's tool calls become
  ``TOOL_CALL_START``/``ARGS``/``END``; a tool result message becomes ``TOOL_CALL_RESULT``.

The user messages of the run's own input are in the run's ``MESSAGES_SNAPSHOT`` already and are
not sent again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from nb_hitl.events import Event, MessageAdded, MessageUpdated
from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock

from ._convert import plain_metadata, result_text, tool_arguments

__all__ = ["RunTranslator"]

_ROLES = {"user": "user", "assistant": "assistant", "system": "system"}


@dataclass
class RunTranslator:
    """Turns one run's nb_hitl events into AG-UI events (see the module docstring)."""

    known_ids: set[str] = field(default_factory=set)
    """Messages the client has already (the snapshot sent at the start of the run)."""
    sent_text: dict[str, str] = field(default_factory=dict)
    """Open (streaming) text messages: id -> the text sent so far."""
    done_ids: set[str] = field(default_factory=set)
    """Messages whose events are complete."""
    sent_calls: set[str] = field(default_factory=set)
    """Tool calls whose START/ARGS/END were sent."""
    sent_results: set[str] = field(default_factory=set)
    """Tool results sent (by memory message id and call id)."""

    def translate(self, event: Event) -> list[BaseEvent]:
        """The AG-UI events ``event`` stands for (often none)."""
        msg = getattr(event, "msg", None)
        if not isinstance(msg, Msg):
            return []
        if isinstance(event, MessageUpdated):
            return self._update(msg)
        if isinstance(event, MessageAdded):
            return self._added(msg)
        return []

    def close_open(self) -> list[BaseEvent]:
        """``TEXT_MESSAGE_END`` for every text message still open (a run that ends early)."""
        out: list[BaseEvent] = [TextMessageEndEvent(message_id=mid) for mid in self.sent_text]
        self.done_ids.update(self.sent_text)
        self.sent_text.clear()
        return out

    # -- streaming ---------------------------------------------------------------------------
    def _update(self, msg: Msg) -> list[BaseEvent]:
        if msg.id in self.done_ids or msg.id in self.known_ids:
            return []
        text = msg.get_text_content() or ""
        out: list[BaseEvent] = []
        if msg.id not in self.sent_text:
            if not text:
                return []
            # Its metadata so far goes first: a continuation (``agent.resume()``) is drawn with
            # its seam from its first word, as in the kernel.
            out.append(
                TextMessageStartEvent(
                    message_id=msg.id,
                    role=_ROLES.get(msg.role, "assistant"),
                    name=msg.name,
                    metadata=plain_metadata(msg.metadata) or None,
                )
            )
            self.sent_text[msg.id] = ""
        out += self._grow(msg.id, text)
        return out

    def _grow(self, message_id: str, text: str) -> list[BaseEvent]:
        sent = self.sent_text[message_id]
        if len(text) <= len(sent) or not text.startswith(sent):
            # Nothing new, or the text was rewritten (not a continuation): the run's closing
            # MESSAGES_SNAPSHOT carries the committed text.
            return []
        self.sent_text[message_id] = text
        return [TextMessageContentEvent(message_id=message_id, delta=text[len(sent) :])]

    # -- committed ---------------------------------------------------------------------------
    def _added(self, msg: Msg) -> list[BaseEvent]:
        if msg.id in self.known_ids or msg.id in self.done_ids:
            return []
        blocks = [] if isinstance(msg.content, str) else list(msg.content)
        results = [b for b in blocks if isinstance(b, ToolResultBlock)]
        if results:
            self.done_ids.add(msg.id)
            return self._results(msg, results)
        text = msg.get_text_content() or ""
        meta = plain_metadata(msg.metadata) or None
        out: list[BaseEvent] = []
        if msg.id in self.sent_text:
            out += self._grow(msg.id, text)
            out.append(TextMessageEndEvent(message_id=msg.id, metadata=meta))
            del self.sent_text[msg.id]
        elif text:
            role = _ROLES.get(msg.role, "assistant")
            out.append(
                TextMessageStartEvent(message_id=msg.id, role=role, name=msg.name, metadata=meta)
            )
            out.append(TextMessageContentEvent(message_id=msg.id, delta=text))
            out.append(TextMessageEndEvent(message_id=msg.id))
        self.done_ids.add(msg.id)
        for block in blocks:
            if isinstance(block, ToolUseBlock) and block.id not in self.sent_calls:
                self.sent_calls.add(block.id)
                out.append(
                    ToolCallStartEvent(
                        tool_call_id=block.id, tool_call_name=block.name, parent_message_id=msg.id
                    )
                )
                out.append(ToolCallArgsEvent(tool_call_id=block.id, delta=tool_arguments(block)))
                out.append(ToolCallEndEvent(tool_call_id=block.id))
        return out

    def _results(self, msg: Msg, results: list[ToolResultBlock]) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        meta = plain_metadata(msg.metadata)
        for i, block in enumerate(results):
            message_id = msg.id if len(results) == 1 else f"{msg.id}:{i}"
            if message_id in self.sent_results:
                continue
            self.sent_results.add(message_id)
            out.append(
                ToolCallResultEvent(
                    message_id=message_id,
                    tool_call_id=block.id,
                    content=result_text(block),
                    role="tool",
                    metadata={
                        **meta,
                        "is_error": block.is_error,
                        "is_interrupted": block.is_interrupted,
                    },
                )
            )
        return out
