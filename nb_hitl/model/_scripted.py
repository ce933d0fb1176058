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
from typing import Any, Union, get_origin

from pydantic import BaseModel

from nb_hitl.exceptions import ConfigError, ScriptExhaustedError
from nb_hitl.message import TextBlock, ThinkingBlock, ToolUseBlock

from ._base import ChatModelBase, ChatResponse, ChatUsage, ModelCall, ResponseBlock, ToolChoice

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

StructuredResponder = Callable[
    [list[dict[str, Any]], "type[BaseModel]"],
    "TurnLike | Awaitable[TurnLike]",
]
_TAG_LINE = re.compile(r"^(</?[\w-]+>|#+ )")  # markup, not facts
_MAX_FACTS = 150


def structured_summary(
    messages: list[dict[str, Any]], structured_model: type[BaseModel]
) -> dict[str, Any]:
    """A deterministic JSON object for ``structured_model``, built from the prompt's facts.

    The facts are the distinct non-empty lines of every non-system message (lines opening
    with a tag such as ``<conversation>`` or with a markdown heading left out). The first
    ``str``/``list[str]`` field gets the first line, the field whose name contains ``context``
    (else the last field) gets every line, the others the last line. So facts survive rolling
    summaries: a previous summary given in the prompt is carried over line by line. Other
    field types keep their defaults.

    Like a real summary it is much shorter than what it replaces: of a tool result only its
    first line is kept (``(+N more lines)`` noted), every line is cut at 200 characters, and at
    most ``_MAX_FACTS`` lines survive (the earliest ones, which state the task, and the latest).
    """
    lines: list[str] = []
    seen: set[str] = set()
    in_result = False
    skipped = 0

    def close_result() -> None:
        nonlocal skipped
        if skipped and lines:
            lines[-1] += f" (+{skipped} more lines)"
        skipped = 0

    for message in messages:
        if message.get("role") == "system":
            continue
        content = message.get("content") or ""
        if not isinstance(content, str):
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        for raw in content.splitlines():
            line = raw.strip()
            if line.startswith("["):
                close_result()
                in_result = line.startswith("[result of ")
            elif in_result:
                skipped += bool(line)
                continue
            line = line if len(line) <= 200 else line[:197] + "..."
            if line and not _TAG_LINE.match(line) and line not in seen:
                seen.add(line)
                lines.append(line)
        close_result()
        in_result = False
    if len(lines) > _MAX_FACTS:
        head = _MAX_FACTS // 5
        lines = lines[:head] + lines[head - _MAX_FACTS :]
    fields = structured_model.model_fields
    names = list(fields)
    carrier = next((n for n in names if "context" in n), names[-1] if names else "")
    first = lines[:1] or ["(nothing to summarise)"]
    said = [ln for ln in lines if not ln.startswith("[result of ") and " called tool " not in ln]
    last = said[-1:] or lines[-1:] or first
    by_topic = {  # fields of the default SummarySchema, matched by name
        "discover": [ln for ln in said if ln.startswith("[assistant")][-5:],
        "next": [ln for ln in said if ln.startswith("[user")][-1:],
    }
    values: dict[str, Any] = {}
    for position, (name, info) in enumerate(fields.items()):
        as_list = get_origin(info.annotation) is list
        if not as_list and info.annotation is not str:
            continue
        topical = next((v for k, v in by_topic.items() if k in name and v), None)
        chosen = lines if name == carrier else first if position == 0 else topical or last
        values[name] = list(chosen) if as_list else "\n".join(chosen)
    return values


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
        structured_responder: answers calls made with ``structured_model=SomePydanticModel``
            (memory compression does this): a function ``(messages, structured_model) -> turn``.
            By default such calls get a deterministic JSON object valid for the model, built
            from the lines of the non-system messages (see ``structured_summary``); they never
            consume script turns.
        then: what answers once the script is played: another ``ScriptedModel``
            (``ScriptedModel.demo()`` answers anything) or a responder function. Without it a
            call past the script raises ``ScriptExhaustedError``. A notebook whose scripted
            agents stay in a panel after Run All gives them one, so the reader's next message
            is answered.
    """

    supports_structured_model = True
    """Accepts ``structured_model=`` (memory compression passes it only to such models)."""
    supports_assistant_prefix = True
    """Continues a final assistant message: a call made with ``continue_final_message=True``
    (``agent.resume()``) plays the next turn as the rest of that message, as servers with
    prefill do (a responder sees the prompt ending with the partial answer)."""

    def __init__(
        self,
        script: list[TurnLike] | None = None,
        *,
        responder: Responder | None = None,
        tokens_per_second: float = 200.0,
        model_name: str = "scripted",
        structured_responder: StructuredResponder | None = None,
        then: ScriptedModel | Responder | None = None,
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
        self.structured_responder = structured_responder
        self.then = then
        self._script_calls = 0

    @property
    def prompts(self) -> list[list[dict[str, Any]]]:
        """The message lists received, one per call."""
        return [c.messages for c in self.calls]

    @classmethod
    def demo(cls, tokens_per_second: float = 25.0) -> ScriptedModel:
        """A model that gives a believable multi-step, tool-using answer to any question.

        Pair it with ``nb_hitl.demo.demo_toolkit()``; without tools it answers in text only.
        """
        # Lazy: the demo model lives in nb_hitl.demo.model (model layer, but its parent
        # package holds the demo's tools and servers, which a plain ScriptedModel never needs).
        from nb_hitl.demo.model import demo_responder

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
        index = self._script_calls - 1
        if index < len(self.script):
            return self.script[index]
        if isinstance(self.then, ScriptedModel):
            return await self.then._next_turn(messages, tools)
        if self.then is not None:
            result = self.then(messages, tools)
            return _as_turn(await result if inspect.isawaitable(result) else result)
        raise ScriptExhaustedError(self._script_calls, len(self.script))

    async def _structured_turn(
        self, messages: list[dict[str, Any]], structured_model: type[BaseModel]
    ) -> ScriptedTurn:
        if self.structured_responder is not None:
            result = self.structured_responder(messages, structured_model)
            if inspect.isawaitable(result):
                result = await result
            return _as_turn(result)
        summary = structured_summary(messages, structured_model)
        return ScriptedTurn(text=json.dumps(summary, ensure_ascii=False))

    def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: ToolChoice | None = None,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> ModelCall:
        """Play the next turn: ``await`` it (AgentScope) or iterate its chunks.

        With ``structured_model``, the last chunk's ``metadata`` holds the JSON object (as
        AgentScope puts structured output there), and its text holds it as JSON too.
        """
        if structured_model is not None:
            kwargs["structured_model"] = structured_model
        self.calls.append(ScriptedCall(list(messages), tools, tool_choice, dict(kwargs)))
        if structured_model is not None:
            return ModelCall(lambda: self._stream(messages, tools, structured_model), self.stream)
        self._script_calls += 1
        return ModelCall(lambda: self._stream(messages, tools), self.stream)

    async def _stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        structured: type[BaseModel] | None = None,
    ) -> AsyncGenerator[ChatResponse, None]:
        if structured is None:
            turn = await self._next_turn(messages, tools)
        else:
            turn = await self._structured_turn(messages, structured)
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
            metadata: dict[str, Any] = {}
            if last and structured is not None and turn.text:
                try:
                    parsed = json.loads(turn.text)
                except json.JSONDecodeError:
                    parsed = None
                if isinstance(parsed, dict):
                    metadata = parsed  # structured output goes in metadata, as in AgentScope
            return ChatResponse(
                id=response_id,
                content=[b.copy() for b in blocks],
                usage=usage if last else None,
                is_last=last,
                metadata=metadata,
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
            pieces = split_tokens(turn.text)
            if structured is not None:  # JSON arrives in ~20 chunks, however long it is
                step = max(1, -(-len(pieces) // 20))
                pieces = ["".join(pieces[i : i + step]) for i in range(0, len(pieces), step)]
            for piece in pieces:
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
