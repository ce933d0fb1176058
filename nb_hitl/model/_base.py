"""The model interface every chat model implements, and the response it streams."""

from __future__ import annotations

import abc
import uuid
from collections.abc import AsyncGenerator
from typing import Any, Literal, Union

from pydantic import BaseModel, Field

from nb_hitl.message import TextBlock, ThinkingBlock, ToolUseBlock

ResponseBlock = Union[TextBlock, ThinkingBlock, ToolUseBlock]  # noqa: UP007


class ChatUsage(BaseModel):
    """Token usage a provider reported for one call."""

    input_tokens: int = 0
    """Prompt tokens, as billed by the provider."""
    output_tokens: int = 0
    """Completion tokens, as billed by the provider."""
    time: float = 0.0
    """Seconds the call took."""


class ChatResponse(BaseModel):
    """One (possibly partial) model response.

    Streaming models yield a sequence of these; each one holds the *whole* response so far
    (cumulative, like AgentScope), so a consumer can always draw the latest one.
    Tool calls whose arguments are still streaming have ``raw_input`` set.
    """

    content: list[ResponseBlock] = Field(default_factory=list)
    """Text, thinking and tool_use blocks, in order."""
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:16])
    """Response id."""
    usage: ChatUsage | None = None
    """Provider-reported usage, when available (usually only on the last chunk)."""
    is_last: bool = False
    """True on the final chunk of a response."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Extra data, e.g. the finish reason."""


ToolChoice = Union[Literal["auto", "none", "required"], str]  # noqa: UP007


class ChatModelBase(abc.ABC):
    """Base class of chat models.

    A model is called with OpenAI-style messages (what a formatter produced) and tool JSON
    schemas, and returns an async generator of cumulative ``ChatResponse`` chunks. Closing the
    generator (``aclose()``) must release every resource at once: the agent does so on interrupt.
    """

    model_name: str
    stream: bool = True

    @abc.abstractmethod
    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatResponse, None]:
        """Stream a response to ``messages``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_name={self.model_name!r})"
