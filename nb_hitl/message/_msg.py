"""The ``Msg`` class: one message of a conversation, positional like AgentScope's."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Annotated, Any, Literal, SupportsIndex, overload

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from ._blocks import (
    AudioBlock,
    BlockType,
    ContentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    VideoBlock,
    to_block,
)
from ._metadata import MetaKey

Role = Literal["user", "assistant", "system"]
_ROLES = frozenset(("user", "assistant", "system"))
_SET_BY_INIT = frozenset(("name", "content", "role", "metadata", "invocation_id"))
"""The fields ``Msg(name, content, role, metadata=...)`` marks as set (``model_fields_set``)."""


def _new_id() -> str:
    return os.urandom(8).hex()


_SECOND: list[tuple[int, str]] = [(-1, "")]
"""The last whole second ``_now()`` formatted, and its date and time up to the seconds."""


def _now() -> str:
    """The time now in UTC to the millisecond, ``"2026-12-03T09:52:45.123+00:00"``: what
    ``datetime.now(timezone.utc).isoformat(timespec="milliseconds")`` gives, without it.

    Every message takes one, the interrupted message too, on a path that runs once in a while
    and so with the CPU's caches cold: there ``datetime.now(...).isoformat()`` cost ~20 us on
    the bench machine (``bench/agentscope_side_by_side.py``), this ~2 us. The date and time
    to the second are formatted once per second; the milliseconds are cut, not rounded, as
    ``isoformat`` cuts them, and zero-padded by ``str`` rather than a ``:03d`` format spec,
    whose code is cold there: ~12 us less per call with the CPU's caches flushed (25 vs 37 us
    median, the two alternating, 300 calls each).
    """
    now = time.time()
    second = int(now)
    cached, prefix = _SECOND[0]
    if second != cached:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _SECOND[0] = (second, prefix)
    millis = str(1000 + int((now - second) * 1000))  # "1000".."1999": its digits, zero-padded
    return f"{prefix}.{millis[1:]}+00:00"


class BlockList(list[Any]):
    """The list a ``Msg`` keeps its blocks in: items added later are validated too.

    AgentScope code appends plain dicts to ``msg.content``; here they become blocks (or raise a
    ``ValidationError`` naming the problem) instead of sitting in the list unchecked.
    """

    def append(self, item: Any) -> None:
        super().append(to_block(item))

    def extend(self, items: Iterable[Any]) -> None:
        super().extend(to_block(i) for i in items)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        super().insert(index, to_block(item))

    def __setitem__(self, index: Any, item: Any) -> None:
        if isinstance(index, slice):
            super().__setitem__(index, [to_block(i) for i in item])
        else:
            super().__setitem__(index, to_block(item))

    def __iadd__(self, items: Iterable[Any]) -> BlockList:  # type: ignore[misc]
        self.extend(items)
        return self


def _block_list(content: str | list[Any]) -> str | list[Any]:
    return content if isinstance(content, str) else BlockList(content)


class Msg(BaseModel):
    """A message: who said it, what (text or typed blocks), in which role.

    ``Msg("User", "Please continue.", "user")`` works as in AgentScope. ``metadata`` carries
    flags such as ``_is_interrupted`` (the message ``handle_interrupt()`` returns) and
    ``_partial`` (an assistant message cut short by an interrupt).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    name: str
    """Who produced the message (an agent's or a person's name)."""
    content: Annotated[str | list[ContentBlock], AfterValidator(_block_list)]
    """Plain text, or a list of content blocks (plain dicts are validated into blocks)."""
    role: Role
    """``user``, ``assistant`` or ``system`` (tool results travel as ``system`` like AgentScope)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form JSON-able flags and data."""
    id: str = Field(default_factory=_new_id)
    """Unique id; memory marks and token caches key on it."""
    timestamp: str = Field(default_factory=_now)
    """ISO 8601 creation time (UTC).

    Differs on purpose from AgentScope's local ``"%Y-%m-%d %H:%M:%S.fff"``: a timezone-aware
    time stays right when a saved session is opened elsewhere."""
    invocation_id: str | None = None
    """The id of the model API call that produced the message, if any."""
    usage: dict[str, Any] | None = None
    """What the model call that produced the message used (``ChatUsage`` as a dict: tokens,
    time), if it reported it. Kept out of ``metadata``, which holds a structured reply's
    validated fields only, as AgentScope's does."""

    def __init__(
        self,
        name: str,
        content: str | list[Any] | None = None,
        role: Role = "assistant",
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
        invocation_id: str | None = None,
        **data: Any,
    ) -> None:
        if timestamp is not None:
            data["timestamp"] = timestamp
        super().__init__(
            name=name,
            content="" if content is None else content,
            role=role,
            metadata=dict(metadata) if metadata else {},
            invocation_id=invocation_id,
            **data,
        )

    @classmethod
    def _of_text(cls, name: str, text: str, role: Role, metadata: dict[str, Any]) -> Msg:
        """``Msg(name, text, role, metadata=metadata)``, the same message, without running the
        validator over what is valid already: a ``str`` name and text, a role, and a new dict
        of metadata, which it keeps (not a copy). ``handle_interrupt()`` builds its message so:
        pydantic's validator, run once in a while and so cold in the CPU's caches, was the
        largest single cost between an interrupt and the interrupted message. Any other input
        (or a subclass of ``Msg``) goes through ``Msg()`` and its validation."""
        if (
            cls is not Msg
            or type(name) is not str
            or type(text) is not str
            or role not in _ROLES
            or type(metadata) is not dict
        ):
            return cls(name, text, role, metadata=metadata)
        msg = cls.__new__(cls)
        fields = {
            "name": name,
            "content": text,
            "role": role,
            "metadata": metadata,
            "id": _new_id(),
            "timestamp": _now(),
            "invocation_id": None,
            "usage": None,
        }
        object.__setattr__(msg, "__dict__", fields)
        object.__setattr__(msg, "__pydantic_fields_set__", set(_SET_BY_INIT))
        object.__setattr__(msg, "__pydantic_extra__", None)
        object.__setattr__(msg, "__pydantic_private__", None)
        return msg

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
    def get_content_blocks(self, block_type: Literal["image"]) -> list[ImageBlock]: ...
    @overload
    def get_content_blocks(self, block_type: Literal["audio"]) -> list[AudioBlock]: ...
    @overload
    def get_content_blocks(self, block_type: Literal["video"]) -> list[VideoBlock]: ...
    @overload
    def get_content_blocks(
        self, block_type: list[BlockType] | None = None
    ) -> list[ContentBlock]: ...

    def get_content_blocks(
        self, block_type: BlockType | list[BlockType] | None = None
    ) -> list[Any]:
        """Return the content as blocks, optionally only those of one ``type`` (or of a list).

        Text content is one ``TextBlock``. Differs on purpose from AgentScope for empty text:
        ``""`` gives no block here (AgentScope gives one empty ``TextBlock``), so an empty
        message renders, formats and counts as nothing.
        """
        if isinstance(self.content, str):
            blocks: list[Any] = [TextBlock(text=self.content)] if self.content else []
        else:
            blocks = list(self.content)
        if block_type is None:
            return blocks
        wanted = {block_type} if isinstance(block_type, str) else set(block_type)
        return [b for b in blocks if b.type in wanted]

    def has_content_blocks(self, block_type: BlockType | list[BlockType] | None = None) -> bool:
        """Whether the message holds at least one block of ``block_type`` (any block if None)."""
        return bool(self.get_content_blocks(block_type))

    def get_text_content(self, separator: str = "\n") -> str | None:
        """Return the text blocks joined by ``separator``, or ``None`` if there is no text."""
        if isinstance(self.content, str):
            return self.content
        texts = [b.text for b in self.content if isinstance(b, TextBlock)]
        return separator.join(texts) if texts else None

    @property
    def is_interrupted(self) -> bool:
        """True for the message that ``handle_interrupt()`` returned."""
        return bool(self.metadata.get(MetaKey.IS_INTERRUPTED))

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict (AgentScope's name for ``model_dump``), in AgentScope's shape:
        ``id``, ``name``, ``role``, ``content``, ``metadata``, ``timestamp``.

        An ``invocation_id`` or ``usage`` that is set is included too (AgentScope has neither),
        so ``from_dict`` round-trips them; ``None`` is left out, as AgentScope writes the dict.
        """
        data = self.model_dump(mode="json")
        for key in ("invocation_id", "usage"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Msg:
        """Rebuild a message from ``to_dict()`` output (AgentScope's dicts load too).

        Keys AgentScope may leave out (``metadata``, ``timestamp``, ``invocation_id``, ``id``)
        get their defaults; a missing ``name``, ``content`` or ``role`` is a ``ValidationError``.
        """
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


MsgListAdapter: TypeAdapter[list[Msg]] = TypeAdapter(list[Msg], config=ConfigDict(defer_build=True))
"""Round-trips a whole history: ``MsgListAdapter.dump_json(msgs)`` / ``validate_json``."""
