"""Typed content blocks of a message: text, thinking, tool_use and tool_result.

The names and ``type`` tags mirror AgentScope 1.x (which stores them as typed dicts); here they
are pydantic models so that a whole history round-trips through JSON losslessly.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


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
    """Arguments exactly as streamed so far, before parsing; ``None`` once complete and parsed."""


class ToolResultBlock(_Block):
    """What a tool returned for one ``ToolUseBlock``."""

    type: Literal["tool_result"] = "tool_result"
    id: str
    """The id of the ``ToolUseBlock`` this answers."""
    name: str
    """Name of the tool that ran."""
    output: str | list[TextBlock]
    """The tool's output, as text or text blocks."""
    is_error: bool = False
    """True when the call failed (bad arguments, unknown tool, exception)."""
    is_interrupted: bool = False
    """True when the call was cut short, or never ran, because the reply was interrupted."""

    def output_text(self) -> str:
        """Return the output as a single string."""
        if isinstance(self.output, str):
            return self.output
        return "\n".join(b.text for b in self.output)


ContentBlock = Annotated[
    Union[TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock],  # noqa: UP007
    Field(discriminator="type"),
]
"""Any content block, discriminated by its ``type`` tag."""

BlockType = Literal["text", "thinking", "tool_use", "tool_result"]
