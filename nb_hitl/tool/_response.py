"""ToolResponse: what a tool function returns or yields."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nb_hitl.message import TextBlock, ToolOutputBlock


def _timestamp_id() -> str:
    # AgentScope 1.x ids a response by its creation time, to the microsecond.
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")


class ToolResponse(BaseModel):
    """A tool's output. Streaming tools yield several, each holding the output so far.

    The fields are AgentScope 1.x's (``content``, ``metadata``, ``stream``, ``is_last``,
    ``is_interrupted``, ``id``) plus ``is_error``. A tool may also return a plain ``str`` or any
    JSON-able value; the toolkit wraps it.
    """

    model_config = ConfigDict(defer_build=True)

    content: list[ToolOutputBlock] = Field(default_factory=list)
    """Output blocks: text, image, audio or video (as AgentScope)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Data for the caller, not sent to the model."""
    stream: bool = False
    """Whether the output is streamed (set by the tool, as in AgentScope)."""
    is_last: bool = True
    """False on intermediate chunks of a streaming tool."""
    is_error: bool = False
    """True when the tool reports a failure the model should see as an error."""
    is_interrupted: bool = False
    """True when the call was cut short by an interrupt."""
    id: str = Field(default_factory=_timestamp_id)
    """The response's identity (its creation time, as AgentScope writes it)."""

    def __init__(self, content: list[Any] | None = None, **data: Any) -> None:
        # AgentScope's ToolResponse is a dataclass: ``ToolResponse([TextBlock(...)])`` works too.
        super().__init__(content=[] if content is None else content, **data)

    @field_validator("metadata", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value  # AgentScope's default is None

    @classmethod
    def text(cls, text: str, **kwargs: Any) -> ToolResponse:
        """Build a response holding one text block."""
        return cls(content=[TextBlock(text=text)], **kwargs)

    def get_text(self) -> str:
        """The output text, text blocks joined by newlines (media blocks left out)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))
