"""The ``Msg`` class: one message of a conversation, positional like AgentScope's."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ._blocks import (
    BlockType,
    ContentBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

Role = Literal["user", "assistant", "system"]


def _new_id() -> str:
    return os.urandom(8).hex()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Msg(BaseModel):
    """A message: who said it, what (text or typed blocks), in which role.

    ``Msg("User", "Please continue.", "user")`` works as in AgentScope. ``metadata`` carries
    flags such as ``_is_interrupted`` (the message ``handle_interrupt()`` returns) and
    ``_partial`` (an assistant message cut short by an interrupt).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    name: str
    """Who produced the message (an agent's or a person's name)."""
    content: str | list[ContentBlock]
    """Plain text, or a list of content blocks."""
    role: Role
    """``user``, ``assistant`` or ``system`` (tool results travel as ``system`` like AgentScope)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form JSON-able flags and data."""
    id: str = Field(default_factory=_new_id)
    """Unique id; memory marks and token caches key on it."""
    timestamp: str = Field(default_factory=_now)
    """ISO 8601 creation time (UTC)."""

    def __init__(
        self,
        name: str,
        content: str | list[Any] | None = None,
        role: Role = "assistant",
        metadata: dict[str, Any] | None = None,
        **data: Any,
    ) -> None:
        super().__init__(
            name=name,
            content="" if content is None else content,
            role=role,
            metadata=dict(metadata) if metadata else {},
            **data,
        )

    # -- reading -----------------------------------------------------------------------------
    @overload
    def get_content_blocks(self, block_type: Literal["text"]) -> list[TextBlock]: ...
    @overload
    def get_content_blocks(self, block_type: Literal["thinking"]) -> list[ThinkingBlock]: ...
    @overload
    def get_content_blocks(self, block_type: Literal["tool_use"]) -> list[ToolUseBlock]: ...
    @overload
    def get_content_blocks(self, block_type: Literal["tool_result"]) -> list[ToolResultBlock]: ...
    @overload
    def get_content_blocks(self, block_type: None = None) -> list[ContentBlock]: ...

    def get_content_blocks(self, block_type: BlockType | None = None) -> list[Any]:
        """Return the content as blocks, optionally only those of one ``type``."""
        blocks: list[Any] = (
            [TextBlock(text=self.content)] if isinstance(self.content, str) else list(self.content)
        )
        if isinstance(self.content, str) and not self.content:
            blocks = []
        if block_type is None:
            return blocks
        return [b for b in blocks if b.type == block_type]

    def has_content_blocks(self, block_type: BlockType) -> bool:
        """Whether the message holds at least one block of ``block_type``."""
        return bool(self.get_content_blocks(block_type))

    def get_text_content(self) -> str | None:
        """Return the text blocks joined by newlines, or ``None`` if there is no text."""
        if isinstance(self.content, str):
            return self.content
        texts = [b.text for b in self.content if isinstance(b, TextBlock)]
        return "\n".join(texts) if texts else None

    @property
    def is_interrupted(self) -> bool:
        """True for the message that ``handle_interrupt()`` returned."""
        return bool(self.metadata.get("_is_interrupted"))

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict (AgentScope's name for ``model_dump``)."""
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Msg:
        """Rebuild a message from ``to_dict()`` output."""
        return cls.model_validate(data)

    def __repr__(self) -> str:
        text = self.get_text_content() or ""
        if not text:
            text = " ".join(
                f"<{b.type} {getattr(b, 'name', '')}>".replace(" >", ">")
                for b in self.get_content_blocks()
            )
        if len(text) > 60:
            text = text[:57] + "..."
        flag = " interrupted" if self.is_interrupted else ""
        return f"Msg(id={self.id!r}, name={self.name!r}, role={self.role!r}{flag}, text={text!r})"

    __str__ = __repr__

    def _repr_html_(self) -> str:
        """Static, escaped HTML for notebook output: the chat widget's renderer and styles."""
        from nb_hitl._render import CSS, msg_html

        return f'{CSS}<div class="nb-hitl-chat">{msg_html(self)}</div>'


MsgListAdapter: TypeAdapter[list[Msg]] = TypeAdapter(list[Msg])
"""Round-trips a whole history: ``MsgListAdapter.dump_json(msgs)`` / ``validate_json``."""
