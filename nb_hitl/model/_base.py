"""The model interface every chat model implements, and the response it returns or streams.

A call ``model(messages, tools=..., tool_choice=..., structured_model=..., **kwargs)`` works
both ways:

- ``await model(...)`` as in AgentScope 1.x: a ``ChatResponse`` when ``model.stream`` is
  ``False``, an async generator of cumulative ``ChatResponse`` chunks when it is ``True``;
- ``async for chunk in model(...)``: the cumulative chunks whatever ``stream`` is (one chunk
  for a non-streaming model). The agent uses this form to draw partial answers.

Custom models subclass ``ChatModelBase`` either the AgentScope way (``async def
__call__(self, messages, tools=None, tool_choice=None, structured_model=None, **kwargs)``
returning a ``ChatResponse`` or an async generator of them) or the nb_hitl way (``def
_astream(...)``, an async generator of cumulative chunks). Closing the stream (``aclose()``)
must release every resource at once: the agent does so on interrupt.
"""

from __future__ import annotations

import functools
import inspect
import uuid
from collections.abc import AsyncGenerator, Callable, Generator
from datetime import datetime
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nb_hitl.message import TextBlock, ThinkingBlock, ToolUseBlock

ResponseBlock = Union[TextBlock, ThinkingBlock, ToolUseBlock]  # noqa: UP007


def _timestamp() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


class _DictAccess:
    """``response["content"]`` and ``response.get("usage")`` as AgentScope's dict-based types."""

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:  # type: ignore[attr-defined]
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in type(self).model_fields  # type: ignore[attr-defined]

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when there is no such field."""
        return getattr(self, key) if key in self else default


class ChatUsage(_DictAccess, BaseModel):
    """Token usage a provider reported for one call."""

    model_config = ConfigDict(defer_build=True)

    input_tokens: int = 0
    """Prompt tokens, as billed by the provider."""
    output_tokens: int = 0
    """Completion tokens, as billed by the provider."""
    time: float = 0.0
    """Seconds the call took."""
    type: Literal["chat"] = "chat"
    """Always ``chat`` (AgentScope's tag)."""
    metadata: dict[str, Any] | None = None
    """Provider extras (AgentScope keeps the raw usage object here; nb_hitl JSON-able data)."""


class ChatResponse(_DictAccess, BaseModel):
    """One (possibly partial) model response, with AgentScope 1.x's fields.

    Streaming models yield a sequence of these; each one holds the *whole* response so far
    (cumulative, like AgentScope), so a consumer can always draw the latest one.
    Tool calls whose arguments are still streaming have ``raw_input`` set.
    """

    model_config = ConfigDict(defer_build=True)

    content: list[ResponseBlock] = Field(default_factory=list)
    """Text, thinking and tool_use blocks, in order."""
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:16])
    """Response id (the provider's when it sends one)."""
    created_at: str = Field(default_factory=_timestamp)
    """When the response was created."""
    type: Literal["chat"] = "chat"
    """Always ``chat`` (AgentScope's tag)."""
    usage: ChatUsage | None = None
    """Provider-reported usage, when available (usually only on the last chunk)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Extra data: with ``structured_model``, the structured output (as AgentScope); also the
    finish reason. ``None`` is accepted and stored as ``{}``."""
    is_last: bool = False
    """True on the final chunk of a response (nb_hitl only)."""

    def __init__(self, content: list[Any] | None = None, **data: Any) -> None:
        super().__init__(content=[] if content is None else content, **data)

    @field_validator("metadata", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value


ToolChoice = Union[Literal["auto", "none", "required"], str]  # noqa: UP007


class ModelCall:
    """One model call: ``await`` it (AgentScope) or iterate its chunks (nb_hitl's agent).

    Nothing runs until the call is awaited or iterated, and it can be consumed once.
    """

    def __init__(self, start: Callable[[], Any], stream: bool) -> None:
        self._start = start
        self._stream = stream
        self._chunks: AsyncGenerator[ChatResponse, None] | None = None
        self._used = False

    def _claim(self) -> None:
        if self._used:
            raise RuntimeError(
                "A model call can be awaited or iterated once; call the model again."
            )
        self._used = True

    # -- iteration (every chunk) --------------------------------------------------------------
    def _chunk_stream(self) -> AsyncGenerator[ChatResponse, None]:
        """The chunks' generator, started on first use (the call is claimed then)."""
        if self._chunks is None:
            self._claim()
            self._chunks = _as_chunks(self._start())
        return self._chunks

    def __aiter__(self) -> AsyncGenerator[ChatResponse, None]:
        # The chunks' generator itself: ``async for`` steps it directly, with no coroutine
        # of this class in between (one frame less per chunk, and on an interrupt).
        return self._chunk_stream()

    async def __anext__(self) -> ChatResponse:
        return await self._chunk_stream().__anext__()

    async def aclose(self) -> None:
        """Stop the call and release its resources (the HTTP stream of a remote model)."""
        self._used = True
        if self._chunks is not None:
            await self._chunks.aclose()

    # -- awaiting (AgentScope) ----------------------------------------------------------------
    def __await__(self) -> Generator[Any, None, Any]:
        self._claim()
        return self._result().__await__()

    async def _result(self) -> Any:
        started = self._start()
        if inspect.isawaitable(started):  # an AgentScope-style __call__: its result as is
            return await started
        if self._stream:
            return await _primed(started)
        last: ChatResponse | None = None
        try:
            async for chunk in started:
                last = chunk
        finally:
            await started.aclose()
        return last


async def _primed(chunks: AsyncGenerator[ChatResponse, None]) -> AsyncGenerator[ChatResponse, None]:
    """``chunks`` once its first chunk has arrived: as AgentScope's ``await model(...)``, the
    request is made (and a failure before the first token raised) before the stream returns."""
    try:
        first = await chunks.__anext__()
    except StopAsyncIteration:
        first = None
    except BaseException:
        await chunks.aclose()
        raise
    return _replay(first, chunks)


async def _replay(
    first: ChatResponse | None, rest: AsyncGenerator[ChatResponse, None]
) -> AsyncGenerator[ChatResponse, None]:
    try:
        if first is None:
            return
        yield first
        async for chunk in rest:
            yield chunk
    finally:
        await rest.aclose()


async def _as_chunks(started: Any) -> AsyncGenerator[ChatResponse, None]:
    """Chunks from whatever a model produced: a stream, a coroutine of a response or stream."""
    if inspect.isawaitable(started):
        started = await started
    if isinstance(started, ChatResponse):
        yield started
        return
    try:
        async for chunk in started:
            yield chunk
    finally:
        close = getattr(started, "aclose", None)
        if close is not None:
            await close()


class ChatModelBase:
    """Base class of chat models (see the module docstring for the two ways to subclass).

    Args:
        model_name: the model's name.
        stream: whether ``await model(...)`` gives a stream of chunks (``True``) or one
            final ``ChatResponse`` (``False``).
    """

    model_name: str = ""
    """The model's name."""
    stream: bool = True
    """Whether the model streams its output."""
    supports_structured_model: bool = False
    """Whether nb_hitl's memory compression passes ``structured_model=`` to this model."""
    supports_assistant_prefix: bool = False
    """Whether the model continues a final assistant message (``agent.resume()`` then sends
    the partial answer as that message, with ``continue_final_message=True``, and expects only
    the rest back; see ``nb_hitl.model._continuation``). Otherwise it gets the prompt form."""
    assistant_prefix_refused: str = ""
    """Set (to the reason) when the server refused a continuation request: from then on this
    model gets the prompt form."""

    def __init__(self, model_name: str, stream: bool = True) -> None:
        self.model_name = model_name
        self.stream = stream

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__call__")
        if own is not None and inspect.iscoroutinefunction(own):
            # An AgentScope-style ``async def __call__``: keep its result for ``await`` and
            # make the call iterable too, so the agent can stream it.
            @functools.wraps(own)
            def call(self: ChatModelBase, *args: Any, **kw: Any) -> ModelCall:
                return ModelCall(functools.partial(own, self, *args, **kw), self.stream)

            cls.__call__ = call  # type: ignore[method-assign]

    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> ModelCall:
        """Call the model (``await`` it or iterate it; see the module docstring)."""
        if structured_model is not None:
            kwargs["structured_model"] = structured_model
        return ModelCall(
            functools.partial(self._astream, messages, tools, tool_choice, **kwargs), self.stream
        )

    def _astream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatResponse, None]:
        """Cumulative chunks of one reply (one chunk when the model does not stream)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define async def __call__(self, messages, tools=None, "
            "tool_choice=None, structured_model=None, **kwargs) (AgentScope style) or "
            "_astream(...) (an async generator of cumulative ChatResponse chunks)."
        )

    @property
    def continuation_mode(self) -> Literal["assistant_prefix", "prompt"]:
        """How ``agent.resume()`` asks this model to continue a partial answer."""
        if self.supports_assistant_prefix and not self.assistant_prefix_refused:
            return "assistant_prefix"
        return "prompt"

    def _validate_tool_choice(self, tool_choice: str, tools: list[dict[str, Any]] | None) -> None:
        """Check ``tool_choice`` is ``auto``/``none``/``required`` or an offered tool's name.

        Raises:
            TypeError: ``tool_choice`` is not a string.
            ValueError: it names no offered tool.
        """
        if not isinstance(tool_choice, str):
            raise TypeError(f"tool_choice must be a string, got {type(tool_choice).__name__}.")
        modes = ["auto", "none", "required"]
        if tool_choice in modes:
            return
        names = [t["function"]["name"] for t in tools or []]
        if tool_choice not in names:
            options = ", ".join(sorted(modes + names))
            raise ValueError(f"Invalid tool_choice {tool_choice!r}. Available options: {options}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_name={self.model_name!r}, stream={self.stream})"
