"""How big a summary is, in a compression replay: the pluggable summary policies.

A replay decides *when* compression happens with the agent's own rules; how many tokens the
summary then adds to every later prompt is up to a policy:

- ``FixedSummary(tokens)``: every summary costs a fixed budget (fast; a what-if);
- ``RatioSummary(ratio)``: a summary is ``ratio`` of what it replaces (the folded messages and
  the previous summary), at least ``minimum`` tokens; ``RatioSummary()`` is the estimate the
  compression plan states (1/4, at least 50);
- ``ScriptedSummary()``: the very summary ``ScriptedModel`` writes (deterministic, offline), so
  a replay matches an offline agent to the token;
- ``ModelSummary(model)``: asks a real model, as the agent would (``replay_compression_async``).

The summary's own tokens in later prompts are exact whenever a policy writes its text. The
summariser's prompt and answer are counted exactly for ``ModelSummary``; the others estimate
them (prompt: instructions plus the previous summary plus the folded messages' prompt tokens,
as the transcript it reads differs by a few tokens per message; answer: the summary's size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg
from nb_hitl.token import TokenCounter

from .._config import DEFAULT_COMPRESSION_PROMPT, DEFAULT_SUMMARY_TEMPLATE, SummarySchema
from .._summary import render_summary, summarize, summary_request

if TYPE_CHECKING:
    from .._config import CompressionConfig


@dataclass(frozen=True)
class SummaryRequest:
    """One compression of a replay, handed to the summary policy."""

    call: int
    """The model call (1-based) right before which this compression happens."""
    messages: list[Msg]
    """The messages folded into the summary, oldest first."""
    previous: str
    """The previous summary's text ("" for none, or when the policy writes no text)."""
    previous_tokens: int
    """Tokens the previous summary took in the prompt."""
    folded_tokens: int
    """Prompt tokens of the folded messages."""
    overhead_tokens: int
    """Tokens of the summariser's instructions and framing (estimate for the fast policies)."""
    instructions: str
    """The compression prompt."""
    schema: type[BaseModel]
    """The structured summary's schema."""
    template: str
    """How the structured summary is written into the system prompt."""
    formatter: Any = None
    """The compression formatter (``compression_formatter``, else the agent's formatter)."""


@dataclass(frozen=True)
class SummaryOutcome:
    """What a policy made of a request."""

    tokens: int | None
    """Tokens the summary adds to the prompt (None: count ``text`` as the agent would)."""
    text: str | None = None
    """The summary's text, for policies that write one."""
    input_tokens: int = 0
    """Tokens the summariser read."""
    output_tokens: int = 0
    """Tokens the summariser wrote."""


def _estimated_input(request: SummaryRequest) -> int:
    # The transcript the summariser reads is about as long as the folded messages' prompt
    # tokens (a "[role name]: " prefix per line instead of the chat framing).
    return request.overhead_tokens + request.previous_tokens + request.folded_tokens


class FixedSummary:
    """Every summary takes ``tokens`` tokens of the prompt.

    Args:
        tokens: the summary's size in tokens (a budget you would ask the model to respect).
    """

    name = "fixed"
    writes_text = False

    def __init__(self, tokens: int = 400) -> None:
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
            raise ConfigError(f"FixedSummary needs a positive number of tokens (got {tokens!r}).")
        self.tokens = tokens

    def summarize(self, request: SummaryRequest, counter: TokenCounter) -> SummaryOutcome:
        """The fixed size; the summariser's prompt is estimated."""
        return SummaryOutcome(self.tokens, None, _estimated_input(request), self.tokens)

    def __repr__(self) -> str:
        return f"FixedSummary({self.tokens})"


class RatioSummary:
    """A summary is ``ratio`` of what it replaces (folded messages plus the previous summary).

    Args:
        ratio: the summary's size relative to what it replaces (0 < ratio <= 1).
        minimum: the least size of a summary, in tokens (never more than what it replaces).
    """

    name = "ratio"
    writes_text = False

    def __init__(self, ratio: float = 0.25, minimum: int = 50) -> None:
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
            raise ConfigError(f"RatioSummary needs 0 < ratio <= 1 (got {ratio!r}), e.g. 0.25.")
        if isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 0:
            raise ConfigError(f"RatioSummary needs minimum >= 0 tokens (got {minimum!r}).")
        self.ratio = float(ratio)
        self.minimum = minimum

    def size(self, replaced: int) -> int:
        """Summary tokens for ``replaced`` tokens (the plan's after-estimate uses the same)."""
        return min(replaced, max(self.minimum, int(replaced * self.ratio)))

    def summarize(self, request: SummaryRequest, counter: TokenCounter) -> SummaryOutcome:
        """``ratio`` of the folded tokens plus the previous summary's."""
        tokens = self.size(request.folded_tokens + request.previous_tokens)
        return SummaryOutcome(tokens, None, _estimated_input(request), tokens)

    def __repr__(self) -> str:
        return f"RatioSummary({self.ratio:g}, minimum={self.minimum})"


class ScriptedSummary:
    """The summary ``ScriptedModel`` writes (deterministic and offline), text and all.

    Args:
        formatter: formats the summariser's prompt (default: ``ReActAgent``'s default), as
            ``CompressionConfig.compression_formatter`` or the agent's formatter would.
    """

    name = "scripted"
    writes_text = True

    def __init__(self, formatter: Any = None) -> None:
        self.formatter = formatter
        self._cache: dict[tuple[Any, ...], str] = {}

    def summarize(self, request: SummaryRequest, counter: TokenCounter) -> SummaryOutcome:
        """Build the compression prompt and answer it as ``ScriptedModel`` does.

        The summary's text is exact (its tokens in later prompts are counted from it); the
        summariser's own prompt and answer are estimated like the fast policies', which keeps
        a slider move on this policy fast.
        """
        from nb_hitl.model import structured_summary

        key = (tuple(m.id for m in request.messages), request.previous, request.template)
        text = self._cache.get(key)
        if text is None:
            formatter = self.formatter or request.formatter or _default_formatter()
            prompt = formatter.format_sync(_request_msgs(request))
            # ScriptedModel answers with this JSON; the agent validates it into the schema.
            structured = request.schema.model_validate(structured_summary(prompt, request.schema))
            text = render_summary(request.template, structured)
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = text
        return SummaryOutcome(None, text, _estimated_input(request), 0)

    def __repr__(self) -> str:
        return "ScriptedSummary()"


class ModelSummary:
    """Ask ``model`` for every summary, exactly as the agent would (it really calls it).

    Only ``replay_compression_async`` can use it (the model call is awaited).

    Args:
        model: any ``ChatModelBase``.
        formatter: formats the compression prompt (default: ``ReActAgent``'s default).
    """

    name = "model"
    writes_text = True

    def __init__(self, model: Any, formatter: Any = None) -> None:
        from nb_hitl.model import ChatModelBase

        if not isinstance(model, ChatModelBase):
            raise ConfigError(f"ModelSummary needs a ChatModelBase, got {model!r}.")
        self.model = model
        self.formatter = formatter

    async def asummarize(self, request: SummaryRequest, counter: TokenCounter) -> SummaryOutcome:
        """Call the model with the agent's own compression code."""
        formatter = self.formatter or request.formatter or _default_formatter()
        _, text = await summarize(
            request.messages,
            request.previous,
            model=self.model,
            formatter=formatter,
            instructions=request.instructions,
            schema=request.schema,
            template=request.template,
        )
        prompt = formatter.format_sync(_request_msgs(request))
        return SummaryOutcome(None, text, counter.count_sync(prompt), counter.count_text(text))

    def __repr__(self) -> str:
        return f"ModelSummary({self.model!r})"


SummaryPolicy = FixedSummary | RatioSummary | ScriptedSummary | ModelSummary


def as_policy(summary: Any) -> SummaryPolicy:
    """``summary=`` as a policy: a policy, an int (fixed tokens), a float (ratio),
    ``"scripted"``, or a chat model."""
    if isinstance(summary, (FixedSummary, RatioSummary, ScriptedSummary, ModelSummary)):
        return summary
    if summary is None:
        return RatioSummary()
    if isinstance(summary, bool):
        pass
    elif isinstance(summary, int):
        return FixedSummary(summary)
    elif isinstance(summary, float):
        return RatioSummary(summary)
    elif summary == "scripted":
        return ScriptedSummary()
    else:
        from nb_hitl.model import ChatModelBase

        if isinstance(summary, ChatModelBase):
            return ModelSummary(summary)
    raise ConfigError(
        f"summary={summary!r} is not a summary policy. Give FixedSummary(400) or an int "
        "(tokens), RatioSummary(0.25) or a float (ratio), 'scripted' (ScriptedModel's "
        "summaries) or a chat model (real summaries, with replay_compression_async)."
    )


def summary_settings(config: CompressionConfig | None) -> tuple[str, type[BaseModel], str]:
    """The compression prompt, schema and template of ``config`` (defaults without one)."""
    if config is None:
        return DEFAULT_COMPRESSION_PROMPT, SummarySchema, DEFAULT_SUMMARY_TEMPLATE
    return config.compression_prompt, config.summary_schema, config.summary_template


def _default_formatter() -> Any:
    from nb_hitl.formatter import OpenAIChatFormatter

    return OpenAIChatFormatter(plain_content=True)  # ReActAgent's default


def _request_msgs(request: SummaryRequest) -> list[Msg]:
    return summary_request(request.messages, request.previous, request.instructions, request.schema)
