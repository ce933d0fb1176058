"""ToolResponse: what a tool function returns or yields."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from nb_hitl.message import TextBlock


class ToolResponse(BaseModel):
    """A tool's output. Streaming tools yield several, each holding the output so far.

    A tool may also return a plain ``str`` or any JSON-able value; the toolkit wraps it.
    """

    content: list[TextBlock] = Field(default_factory=list)
    """Output blocks."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Data for the caller, not sent to the model."""
    is_last: bool = True
    """False on intermediate chunks of a streaming tool."""
    is_error: bool = False
    """True when the tool reports a failure the model should see as an error."""
    is_interrupted: bool = False
    """True when the call was cut short by an interrupt."""

    @classmethod
    def text(cls, text: str, **kwargs: Any) -> ToolResponse:
        """Build a response holding one text block."""
        return cls(content=[TextBlock(text=text)], **kwargs)

    def get_text(self) -> str:
        """The output text, blocks joined by newlines."""
        return "\n".join(b.text for b in self.content)
