"""Typed content blocks of a message: text, thinking, tool use and result, image, audio, video.

The names, ``type`` tags and keys mirror AgentScope 1.x, which stores blocks as typed dicts.
Here they are pydantic models (validated, lossless through JSON) that also behave like those
dicts, so AgentScope code runs unchanged: ``block["text"]``, ``block.get("type")``,
``"text" in block``, ``{**block}``, ``block == {"type": "text", "text": "hi"}``, and a plain
dict is accepted wherever a block is (``Msg(..., content=[{"type": "text", "text": "hi"}])``).

An optional field that is ``None`` counts as absent, like a key a ``TypedDict`` leaves out:
``block["raw_input"]`` raises ``KeyError`` and ``"raw_input" in block`` is False.

Blocks are not ``dict`` subclasses: ``isinstance(block, dict)`` is False and
``json.dumps(block)`` needs ``block.model_dump()`` (or ``json.dumps(msg.to_dict())``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


class _Block(BaseModel):
    """A pydantic model with the read/write surface of AgentScope's ``TypedDict`` blocks."""

    model_config = ConfigDict(extra="forbid")

    _nb_hitl_only: ClassVar[dict[str, Any]] = {}
    """nb_hitl's extra fields and their defaults: left out when compared with a plain dict."""

    def keys(self) -> list[str]:
        """The keys an AgentScope dict of this block would have (``None`` fields left out)."""
        return [k for k in type(self).model_fields if getattr(self, k) is not None]

    def values(self) -> list[Any]:
        """The values of ``keys()``."""
        return [getattr(self, k) for k in self.keys()]

    def items(self) -> list[tuple[str, Any]]:
        """``(key, value)`` pairs of ``keys()``."""
        return [(k, getattr(self, k)) for k in self.keys()]

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when the block has no such key."""
        value = getattr(self, key, None) if key in type(self).model_fields else None
        return default if value is None else value

    def __getitem__(self, key: str) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in type(self).model_fields:
            raise KeyError(
                f"{type(self).__name__} has no key {key!r}; its keys are "
                f"{', '.join(type(self).model_fields)}."
            )
        setattr(self, key, value)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        # Iterate keys like a dict (pydantic's default yields (name, value) pairs).
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping) and not isinstance(other, BaseModel):
            mine = {
                k: v
                for k, v in self.items()
                if k in other or self._nb_hitl_only.get(k, object()) != v
            }
            return mine == dict(other)
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]


class TextBlock(_Block):
    """Plain text written by a person, a model or a tool."""

    type: Literal["text"] = "text"
    text: str
    """The text itself."""


class ThinkingBlock(_Block):
    """Reasoning content that a model exposed separately from its answer."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    """The reasoning text."""


class Base64Source(_Block):
    """Media data carried inline, base64-encoded."""

    type: Literal["base64"] = "base64"
    media_type: str
    """The MIME type of the data, e.g. ``image/png`` or ``audio/wav``."""
    data: str
    """The base64-encoded bytes (without a ``data:`` prefix)."""


class URLSource(_Block):
    """Media data found at a URL (``https://...``) or a local path (``file://`` or plain)."""

    type: Literal["url"] = "url"
    url: str
    """Where the data is."""


MediaSource = Annotated[
    Union[Base64Source, URLSource],  # noqa: UP007
    Field(discriminator="type"),
]
"""The source of an image, audio or video block."""


class _MediaBlock(_Block):
    """A media block: its ``type`` tag (set by each kind) and where the data is."""

    type: str
    source: MediaSource
    """Where the image, audio or video is."""


class ImageBlock(_MediaBlock):
    """An image, inline (base64) or by URL."""

    type: Literal["image"] = "image"


class AudioBlock(_MediaBlock):
    """An audio clip, inline (base64) or by URL."""

    type: Literal["audio"] = "audio"


class VideoBlock(_MediaBlock):
    """A video, inline (base64) or by URL."""

    type: Literal["video"] = "video"


class ToolUseBlock(_Block):
    """A call the model asked for: a tool name and JSON arguments."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    """The call id the matching ``ToolResultBlock`` repeats."""
    name: str
    """Name of the tool to call."""
    input: dict[str, Any] = Field(default_factory=dict)
    """Parsed JSON arguments."""
    raw_input: str | None = None
    """Arguments exactly as streamed so far, before parsing; ``None`` once complete and parsed.

    Differs on purpose from AgentScope, which also keeps the raw text of complete calls: here a
    set ``raw_input`` means "not (validly) parsed", which the agent and the chat rely on."""


ToolOutputBlock = Annotated[
    Union[TextBlock, ImageBlock, AudioBlock, VideoBlock],  # noqa: UP007
    Field(discriminator="type"),
]
"""A block a tool can return: text, image, audio or video."""


class ToolResultBlock(_Block):
    """What a tool returned for one ``ToolUseBlock``."""

    _nb_hitl_only: ClassVar[dict[str, Any]] = {"is_error": False, "is_interrupted": False}

    type: Literal["tool_result"] = "tool_result"
    id: str
    """The id of the ``ToolUseBlock`` this answers."""
    name: str
    """Name of the tool that ran."""
    output: str | list[ToolOutputBlock]
    """The tool's output, as text or blocks (text, image, audio, video)."""
    is_error: bool = False
    """True when the call failed (bad arguments, unknown tool, exception)."""
    is_interrupted: bool = False
    """True when the call was cut short, or never ran, because the reply was interrupted."""

    def output_text(self) -> str:
        """Return the text of the output as a single string (media blocks left out)."""
        if isinstance(self.output, str):
            return self.output
        return "\n".join(b.text for b in self.output if isinstance(b, TextBlock))


ContentBlock = Annotated[
    Union[  # noqa: UP007
        TextBlock,
        ThinkingBlock,
        ToolUseBlock,
        ToolResultBlock,
        ImageBlock,
        AudioBlock,
        VideoBlock,
    ],
    Field(discriminator="type"),
]
"""Any content block, discriminated by its ``type`` tag."""

BlockType = Literal["text", "thinking", "tool_use", "tool_result", "image", "audio", "video"]
"""The ``type`` tag of a content block (AgentScope's ``ContentBlockTypes``)."""

ContentBlockTypes = BlockType
"""AgentScope's name for ``BlockType``."""
