"""ScriptedModel: an offline chat model that streams a script, for notebooks and tests.

It is a real model implementation (it streams cumulative ``ChatResponse`` chunks at a set
speed, streams tool-call arguments piece by piece, raises scripted errors), so tests and
walkthroughs exercise the same code paths as an HTTP model, without a key or a network.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Union

from nb_hitl.exceptions import ConfigError, ScriptExhaustedError
from nb_hitl.message import TextBlock, ThinkingBlock, ToolUseBlock

from ._base import ChatModelBase, ChatResponse, ChatUsage, ResponseBlock, ToolChoice

_TOKEN_RE = re.compile(r"\s*\S+|\s+")


def split_tokens(text: str) -> list[str]:
    """Split text into word-sized pieces that stream like tokens (joined they give ``text``)."""
    return _TOKEN_RE.findall(text)


@dataclass
class ScriptedToolCall:
    """A tool call a scripted turn makes. ``raw_arguments`` overrides ``input`` verbatim."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: "call_" + uuid.uuid4().hex[:12])
    raw_arguments: str | None = None

    @property
    def arguments(self) -> str:
        return self.raw_arguments if self.raw_arguments is not None else json.dumps(self.input)


@dataclass
class ScriptedTurn:
    """One model response: optional thinking, streamed text, then streamed tool calls.

    ``error`` raises that exception after ``error_after_tokens`` tokens were streamed
    (0: before the first token).
    """

    text: str = ""
    tool_calls: list[ScriptedToolCall] = field(default_factory=list)
    thinking: str = ""
    error: BaseException | None = None
    error_after_tokens: int = 0
    first_token_delay: float = 0.0


TurnLike = Union[str, ScriptedTurn, BaseException, dict]  # noqa: UP007
Responder = Callable[
    [list[dict[str, Any]], "list[dict[str, Any]] | None"],
    "TurnLike | Awaitable[TurnLike]",
]


@dataclass
class ScriptedCall:
    """What the model received on one call (for tests and teaching)."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    tool_choice: ToolChoice | None
    kwargs: dict[str, Any]


def _as_turn(item: TurnLike) -> ScriptedTurn:
    if isinstance(item, ScriptedTurn):
        return item
    if isinstance(item, str):
        return ScriptedTurn(text=item)
    if isinstance(item, BaseException):
        return ScriptedTurn(error=item)
    if isinstance(item, dict):
        calls = [
            c if isinstance(c, ScriptedToolCall) else ScriptedToolCall(**c)
            for c in item.get("tool_calls", [])
        ]
        return ScriptedTurn(**{**item, "tool_calls": calls})
    raise ConfigError(
        f"Cannot use {type(item).__name__} as a scripted turn: give a str, a ScriptedTurn, "
        f"an exception or a dict of ScriptedTurn fields."
    )


class ScriptedModel(ChatModelBase):
    """An offline model that plays a script of turns, or asks a responder function.

    Args:
        script: turns played in order: a string (streamed text), a ``ScriptedTurn``, a dict of
            its fields, or an exception to raise.
        responder: instead of a script, a function ``(messages, tools) -> turn`` (sync or
            async) computing each reply from the prompt.
        tokens_per_second: streaming speed; slow enough (e.g. 20) for a person to press Stop.
        model_name: the name reported in reprs and events.
    """

    def __init__(
        self,
        script: list[TurnLike] | None = None,
        *,
        responder: Responder | None = None,
        tokens_per_second: float = 200.0,
        model_name: str = "scripted",
    ) -> None:
        if script is not None and responder is not None:
            raise ConfigError("Give ScriptedModel either a script or a responder, not both.")
        if tokens_per_second <= 0:
            raise ConfigError(
                f"tokens_per_second must be > 0 (got {tokens_per_second}); use a large value "
                "such as 1e6 for no delay."
            )
        self.script: list[ScriptedTurn] = [_as_turn(t) for t in (script or [])]
        self.responder = responder
        self.tokens_per_second = float(tokens_per_second)
        self.model_name = model_name
        self.calls: list[ScriptedCall] = []

    @property
    def prompts(self) -> list[list[dict[str, Any]]]:
        """The message lists received, one per call."""
        return [c.messages for c in self.calls]

    @classmethod
    def demo(cls, tokens_per_second: float = 25.0) -> ScriptedModel:
        """A model that gives a believable multi-step, tool-using answer to any question.

        Pair it with ``nb_hitl.demo.demo_toolkit()``; without tools it answers in text only.
        """
        from nb_hitl.demo import demo_responder

        return cls(
            responder=demo_responder,
            tokens_per_second=tokens_per_second,
            model_name="scripted-demo",
        )

    async def _next_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> ScriptedTurn:
        if self.responder is not None:
            result = self.responder(messages, tools)
            if inspect.isawaitable(result):
                result = await result
            return _as_turn(result)
        index = len(self.calls) - 1
        if index >= len(self.script):
            raise ScriptExhaustedError(len(self.calls), len(self.script))
        return self.script[index]

    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[ChatResponse, None]:
        self.calls.append(ScriptedCall(list(messages), tools, tool_choice, dict(kwargs)))
        return self._stream(messages, tools)

    async def _stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> AsyncGenerator[ChatResponse, None]:
        turn = await self._next_turn(messages, tools)
        start = time.perf_counter()
        interval = 1.0 / self.tokens_per_second
        emitted = 0
        if turn.first_token_delay:
            await asyncio.sleep(turn.first_token_delay)
            start = time.perf_counter()

        async def tick() -> None:
            # Pace against a fixed schedule so the rate holds even with scheduling overhead.
            nonlocal emitted
            if turn.error is not None and emitted >= turn.error_after_tokens:
                raise turn.error
            emitted += 1
            delay = start + emitted * interval - time.perf_counter()
            await asyncio.sleep(delay if delay > 0 else 0)

        blocks: list[ResponseBlock] = []
        response_id = uuid.uuid4().hex[:16]

        def chunk(last: bool = False) -> ChatResponse:
            usage = ChatUsage(output_tokens=emitted, time=time.perf_counter() - start)
            return ChatResponse(
                id=response_id,
                content=[b.model_copy() for b in blocks],
                usage=usage if last else None,
                is_last=last,
            )

        if turn.thinking:
            thinking = ThinkingBlock(thinking="")
            blocks.append(thinking)
            for piece in split_tokens(turn.thinking):
                await tick()
                thinking.thinking += piece
                yield chunk()
        if turn.text:
            text = TextBlock(text="")
            blocks.append(text)
            for piece in split_tokens(turn.text):
                await tick()
                text.text += piece
                yield chunk()
        for call in turn.tool_calls:
            block = ToolUseBlock(id=call.id, name=call.name, input={}, raw_input="")
            blocks.append(block)
            arguments = call.arguments
            for i in range(0, max(len(arguments), 1), 8):
                await tick()
                block.raw_input = (block.raw_input or "") + arguments[i : i + 8]
                yield chunk()
            try:
                parsed = json.loads(arguments)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict):
                block.input, block.raw_input = parsed, None
            # Invalid JSON stays in raw_input; the agent turns it into an error tool_result.
        if turn.error is not None:
            raise turn.error
        yield chunk(last=True)
