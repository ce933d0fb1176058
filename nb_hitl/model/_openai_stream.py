"""Accumulate OpenAI chat-completion stream chunks into cumulative ``ChatResponse`` objects.

Pure bookkeeping, no I/O and no ``openai`` import: it reads chunks as the SDK's objects or as
plain dicts (the SDK builds its objects without validation, so any field may hold anything),
and raises ``MalformedChunk`` for shapes it cannot read.

- Text and reasoning (``reasoning_content`` as DeepSeek, DashScope and vLLM send it, or
  ``reasoning`` as Ollama and OpenRouter do) grow their own blocks.
- Tool calls are accumulated by ``index``. A call is complete once a later index starts or the
  stream ends; only then are its arguments parsed strictly. Until then ``raw_input`` holds the
  text so far, which is what lets the agent drop half-sent calls on interrupt, and ``input``
  holds what can be read of it so far (``parse_partial``, AgentScope's ``stream_tool_parsing``)
  or ``{}``.
- Some servers (llama.cpp) repeat the id and name in every delta and also send the legacy
  ``function_call`` next to ``tool_calls``; both are handled without duplicating anything.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from nb_hitl.message import TextBlock, ThinkingBlock, ToolUseBlock

from ._base import ChatResponse, ChatUsage, ResponseBlock
from ._partial_json import parse_partial_object

__all__ = ["MalformedChunk", "StreamAccumulator", "field_of"]


class MalformedChunk(ValueError):
    """A chunk did not have the shape of a chat-completion chunk."""


def field_of(obj: Any, name: str) -> Any:
    """Read ``name`` from an SDK object (extra fields included) or from a dict."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    if type(obj).__module__ == "unittest.mock":
        # A test's stand-in: only what was set on it (a Mock makes up any other attribute).
        return vars(obj).get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None)
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _optional_str(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedChunk(f"{what} should be a string, got {type(value).__name__}")
    return value


def _content_text(content: Any) -> str:
    """Delta content as text: a string, or (some servers) a list of ``{"text": ...}`` parts."""
    if isinstance(content, list):
        texts = [field_of(part, "text") for part in content]
        return "".join(_optional_str(t, "a content part's text") for t in texts)
    return _optional_str(content, "'content'")


@dataclass
class _ToolCall:
    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""
    complete: bool = False
    parsed: dict[str, Any] | None = None
    parsed_from: str | None = None
    partial: dict[str, Any] = field(default_factory=dict)
    partial_from: str | None = None

    def block(self, parse_partial: bool = False) -> ToolUseBlock:
        call_id = self.id or f"call_{uuid.uuid4().hex[:12]}"
        self.id = call_id
        if not self.complete:
            partial: dict[str, Any] = {}
            if parse_partial:
                if self.partial_from != self.arguments:  # re-read only when more arrived
                    self.partial_from = self.arguments
                    self.partial = parse_partial_object(self.arguments)
                partial = dict(self.partial)
            return ToolUseBlock(id=call_id, name=self.name, input=partial, raw_input=self.arguments)
        if self.parsed_from != self.arguments:
            self.parsed_from = self.arguments
            self.parsed = _parse_arguments(self.arguments)
        if self.parsed is None:  # invalid JSON: the toolkit answers with an error result
            return ToolUseBlock(id=call_id, name=self.name, input={}, raw_input=self.arguments)
        return ToolUseBlock(id=call_id, name=self.name, input=dict(self.parsed))


def _parse_arguments(arguments: str) -> dict[str, Any] | None:
    if not arguments.strip():
        return {}  # some servers send "" for a tool without parameters
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


@dataclass
class StreamAccumulator:
    """Turns a sequence of chunks into the whole response so far.

    ``add(chunk)`` returns True when the visible content changed (text, reasoning or tool
    calls), so the caller yields only meaningful updates. ``response()`` builds the cumulative
    ``ChatResponse``.
    """

    response_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    text: str = ""
    thinking: str = ""
    calls: dict[int, _ToolCall] = field(default_factory=dict)
    usage: dict[str, int] | None = None
    finish_reason: str | None = None
    model: str | None = None
    chunks: int = 0
    parse_partial: bool = False
    """Show the arguments of a call still streaming in its ``input`` (best effort)."""

    @property
    def started(self) -> bool:
        """True once any content arrived (retrying would then repeat visible output)."""
        return bool(self.text or self.thinking or self.calls)

    def add(self, chunk: Any) -> bool:
        """Fold one chunk in; return whether the visible content changed."""
        if chunk is None or isinstance(chunk, (str, bytes, int, float, list)):
            raise MalformedChunk(f"expected a JSON object, got {type(chunk).__name__}")
        self.chunks += 1
        chunk_id = field_of(chunk, "id")
        if isinstance(chunk_id, str) and chunk_id:
            self.response_id = chunk_id
        model = field_of(chunk, "model")
        if isinstance(model, str) and model:
            self.model = model
        self._add_usage(field_of(chunk, "usage"))
        choices = field_of(chunk, "choices")
        if choices is None:
            return False
        if not isinstance(choices, list):
            raise MalformedChunk(f"'choices' should be a list, got {type(choices).__name__}")
        changed = False
        for choice in choices:
            index = field_of(choice, "index")
            if index not in (0, None):
                continue  # only the first choice is used (n=1)
            changed = self._add_choice(choice) or changed
        return changed

    def _add_usage(self, usage: Any) -> None:
        if usage is None:
            return
        prompt = field_of(usage, "prompt_tokens")
        completion = field_of(usage, "completion_tokens")
        if isinstance(prompt, int) or isinstance(completion, int):
            self.usage = {
                "input_tokens": prompt if isinstance(prompt, int) else 0,
                "output_tokens": completion if isinstance(completion, int) else 0,
            }

    def _add_choice(self, choice: Any) -> bool:
        if isinstance(choice, (str, bytes, int, float, list)):
            raise MalformedChunk(f"a choice should be an object, got {type(choice).__name__}")
        finish = field_of(choice, "finish_reason")
        if isinstance(finish, str) and finish:
            self.finish_reason = finish
        delta = field_of(choice, "delta")
        if delta is None:
            delta = field_of(choice, "message")  # a non-streamed completion
        if delta is None:
            return False
        if isinstance(delta, (str, bytes, int, float, list)):
            raise MalformedChunk(f"'delta' should be an object, got {type(delta).__name__}")
        changed = False
        reasoning = field_of(delta, "reasoning_content") or field_of(delta, "reasoning")
        if reasoning:
            self.thinking += _optional_str(reasoning, "reasoning")
            changed = True
        content = _content_text(field_of(delta, "content"))
        if content:
            self.text += content
            changed = True
        tool_calls = field_of(delta, "tool_calls")
        if tool_calls:
            if not isinstance(tool_calls, list):
                raise MalformedChunk("'tool_calls' should be a list")
            for position, call in enumerate(tool_calls):
                self._add_tool_delta(call, position)
            changed = True
        else:
            legacy = field_of(delta, "function_call")
            if legacy:
                self._add_function(self._call(0), legacy)
                changed = True
        return changed

    def _call(self, index: int) -> _ToolCall:
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = _ToolCall(index)
            for earlier in self.calls.values():  # a later call started: earlier ones are done
                if earlier.index < index:
                    earlier.complete = True
        return call

    def _add_tool_delta(self, delta: Any, position: int) -> None:
        if isinstance(delta, (str, bytes, int, float, list)):
            raise MalformedChunk(f"a tool-call delta should be an object, got {delta!r:.40}")
        index = field_of(delta, "index")
        call_id = _optional_str(field_of(delta, "id"), "tool-call 'id'")
        if index is None:
            index = self._index_without_index(call_id, position)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise MalformedChunk(f"tool-call 'index' should be an integer, got {index!r:.40}")
        call = self._call(index)
        if call_id and not call.id:
            call.id = call_id
        self._add_function(call, field_of(delta, "function"))

    def _index_without_index(self, call_id: str, position: int) -> int:
        """Place a delta that carries no ``index`` (some servers omit it): by its id, else as
        the continuation of the latest call, else by its position in the list."""
        for call in self.calls.values():
            if call_id and call.id == call_id:
                return call.index
        if call_id and self.calls:
            return max(self.calls) + 1  # a new id: a new call
        if not call_id and self.calls:
            return max(self.calls)
        return position

    @staticmethod
    def _add_function(call: _ToolCall, function: Any) -> None:
        if function is None:
            return
        if isinstance(function, (str, bytes, int, float, list)):
            raise MalformedChunk("tool-call 'function' should be an object")
        name = _optional_str(field_of(function, "name"), "tool-call name")
        if name and name != call.name:
            # Standard servers send the name once; llama.cpp repeats it whole in every delta.
            call.name += name
        call.arguments += _optional_str(field_of(function, "arguments"), "tool-call arguments")

    def finish(self) -> None:
        """Mark the stream as ended: every tool call is now complete."""
        for call in self.calls.values():
            call.complete = True

    def blocks(self) -> list[ResponseBlock]:
        """The content so far: reasoning, text, then tool calls in index order."""
        blocks: list[ResponseBlock] = []
        if self.thinking:
            blocks.append(ThinkingBlock(thinking=self.thinking))
        if self.text:
            blocks.append(TextBlock(text=self.text))
        blocks.extend(self.calls[i].block(self.parse_partial) for i in sorted(self.calls))
        return blocks

    def response(self, *, last: bool = False, elapsed: float = 0.0) -> ChatResponse:
        """The cumulative response; the last one carries usage and the finish reason."""
        usage = None
        metadata: dict[str, Any] = {}
        if last:
            if self.usage is not None:
                usage = ChatUsage(**self.usage, time=elapsed)
            metadata = {"finish_reason": self.finish_reason, "model": self.model}
        return ChatResponse(
            id=self.response_id,
            content=self.blocks(),
            usage=usage,
            is_last=last,
            metadata=metadata,
        )
