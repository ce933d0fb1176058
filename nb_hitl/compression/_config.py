"""Memory compression settings and the plan: what would be summarised, and why.

``plan_compression()`` is pure and cheap (per-message counts are cached by the token counter),
so a memory inspector can call it on every slider move. Doing the compression lives in
``nb_hitl/agent/_compression_agent.py``.

Rules the plan follows (each boundary move is explained in ``CompressionPlan.reasons``):

- the last ``keep_recent`` messages of the uncompressed history stay verbatim;
- a ``tool_use`` and its ``tool_result`` messages are never split: the boundary moves back to
  the ``tool_use`` message;
- the question the agent is answering and pinned messages are kept wherever they are (with
  their tool-call partners), and a tool call still waiting for its result is kept.
"""

from __future__ import annotations

import difflib
import string
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg
from nb_hitl.model import ChatModelBase
from nb_hitl.token import TokenCounter, as_token_counter

from ._select import select_kept

DEFAULT_COMPRESSION_PROMPT = (
    "You compress the earlier part of a conversation between a user and an AI agent, so the "
    "agent can go on with its task in a shorter context. The summary replaces those messages: "
    "keep every fact, decision, name, number, file, tool result and open question the agent "
    "still needs. If a previous summary is given, fold all of its facts into the new one."
)

DEFAULT_SUMMARY_TEMPLATE = """<system-info>Summary of the earlier conversation (older messages \
were compressed into it):
# Task overview
{task_overview}
# Current state
{current_state}
# Important discoveries
{important_discoveries}
# Next steps
{next_steps}
# Context to preserve
{context_to_preserve}
</system-info>"""

SUMMARY_RATIO = 4
"""The plan's after-estimate assumes a summary about 1/SUMMARY_RATIO of what it replaces."""


class SummarySchema(BaseModel):
    """The structured summary a compression asks the model for (AgentScope's fields)."""

    task_overview: str = Field(description="The user's task and its goal, in a few sentences.")
    """The user's task and its goal."""
    current_state: str = Field(description="What has been done so far and where the work is.")
    """What has been done so far."""
    important_discoveries: str = Field(
        description="Facts, results, errors and decisions found so far that still matter."
    )
    """Facts and results that still matter."""
    next_steps: str = Field(description="What is left to do, in order.")
    """What is left to do."""
    context_to_preserve: str = Field(
        description="Exact details to keep verbatim: names, numbers, paths, ids, user preferences."
    )
    """Details to keep verbatim."""


def template_fields(template: str) -> list[str]:
    """Names of the ``{fields}`` a summary template uses."""
    names = []
    for _, field, _, _ in string.Formatter().parse(template):
        if field is not None:
            names.append(field.split(".", 1)[0].split("[", 1)[0])
    return names


def check_summary_template(template: str) -> None:
    """Raise ``ValueError`` unless ``template`` uses only plain ``{field}`` placeholders.

    Format specs and conversions (``{task_overview:>5000000}``, ``{x!r}``), attribute and
    index access are refused: a template loaded from a file must not be able to pad a summary
    to megabytes or reach into objects.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(
            f"summary_template is not a valid template ({exc}); write literal braces as "
            "{{ and }}, and fields as {task_overview}."
        ) from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field or field.isdigit():
            raise ValueError(
                "summary_template must use named fields such as {task_overview}, not {} "
                "or {0}; write literal braces as {{ and }}."
            )
        if spec or conversion or not field.isidentifier():
            shown = "{" + field + (f"!{conversion}" if conversion else "")
            shown += (f":{spec}" if spec else "") + "}"
            raise ValueError(
                f"summary_template may only use plain placeholders such as {{task_overview}}; "
                f"{shown[:60]!s} has a format spec, conversion, index or attribute. Remove "
                "it (write literal braces as {{ and }})."
            )


class CompressionConfig(BaseModel):
    """When and how a ``ReActAgent`` summarises old memory (AgentScope's field names).

    Invalid values raise ``ConfigError`` at construction, saying what to change.
    """

    model_config = ConfigDict(
        arbitrary_types_allowed=True, validate_assignment=True, extra="forbid"
    )

    enable: bool = True
    """Compress automatically before a reasoning step when the plan triggers."""
    agent_token_counter: TokenCounter = Field(default_factory=TokenCounter)
    """Counts the prompt (default: exact ``o200k_base`` counts)."""
    trigger_threshold: int
    """Compress when the prompt (system, summary, history, tool schemas) passes this many tokens."""
    keep_recent: int = 3
    """How many of the latest uncompressed messages always stay verbatim."""
    compression_prompt: str = DEFAULT_COMPRESSION_PROMPT
    """Instructions given to the compression model."""
    summary_template: str = DEFAULT_SUMMARY_TEMPLATE
    """How the structured summary is written into the system prompt (``{field}`` per field)."""
    summary_schema: type[BaseModel] = SummarySchema
    """The pydantic model the compression model must fill."""
    compression_model: ChatModelBase | None = None
    """The model that writes summaries (default: the agent's model)."""
    compression_formatter: Any = None
    """The formatter of the compression prompt (default: the agent's formatter)."""

    _watchers: list[weakref.WeakMethod[Callable[[CompressionConfig], None]]] = PrivateAttr(
        default_factory=list
    )

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(_explain(exc)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        # Assignments are validated like the constructor, with the same clear error; a
        # refused value is never left behind (pydantic sets it before "after" validators run).
        before = dict(self.__dict__)
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise ConfigError(_explain(exc)) from None
        if not name.startswith("_") and before.get(name) != self.__dict__.get(name):
            self._notify()

    def __copy__(self) -> CompressionConfig:
        new = super().__copy__()
        new._watchers = []  # a copy is nobody's settings until an agent takes it
        return new

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> CompressionConfig:
        watchers, self._watchers = self._watchers, []  # weak references do not deep-copy
        try:
            return super().__deepcopy__(memo)
        finally:
            self._watchers = watchers

    def watch(self, callback: Callable[[CompressionConfig], None]) -> None:
        """Call the bound method ``callback(config)`` after every change of a setting (held
        weakly: an agent watching its config is not kept alive by it)."""
        self._watchers.append(weakref.WeakMethod(callback))

    def unwatch(self, callback: Callable[[CompressionConfig], None]) -> None:
        """Stop calling ``callback``."""
        self._watchers = [w for w in self._watchers if w() not in (None, callback)]

    def _notify(self) -> None:
        for ref in list(self._watchers):
            callback = ref()
            if callback is not None:
                callback(self)

    @field_validator("summary_template")
    @classmethod
    def _plain_template(cls, value: str) -> str:
        check_summary_template(value)
        return value

    @field_validator("trigger_threshold")
    @classmethod
    def _positive_threshold(cls, value: int) -> int:
        if value <= 0:
            raise ValueError(
                f"trigger_threshold must be a positive number of tokens (got {value}); "
                "e.g. trigger_threshold=3000, below the model's context window."
            )
        return value

    @field_validator("keep_recent")
    @classmethod
    def _non_negative_keep(cls, value: int) -> int:
        if value < 0:
            raise ValueError(
                f"keep_recent must be 0 or more messages (got {value}); the default is 3."
            )
        return value

    @field_validator("agent_token_counter", mode="before")
    @classmethod
    def _any_counter(cls, value: Any) -> TokenCounter:
        # AgentScope's counters (CharTokenCounter, your TokenCounterBase subclass) are adapted.
        try:
            return as_token_counter(value)
        except TypeError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("summary_schema", mode="before")
    @classmethod
    def _schema_is_model(cls, value: Any) -> type[BaseModel]:
        if not (isinstance(value, type) and issubclass(value, BaseModel)):
            raise ValueError(f"summary_schema must be a pydantic model class, got {value!r}.")
        return value

    @model_validator(mode="after")
    def _template_matches_schema(self) -> CompressionConfig:
        known = list(self.summary_schema.model_fields)
        for name in template_fields(self.summary_template):
            if not name or name.isdigit():
                raise ValueError(
                    "summary_template must use named fields such as {task_overview}, not {} "
                    "or {0}; write literal braces as {{ and }}."
                )
            if name not in known:
                raise ValueError(
                    f"summary_template uses {{{name}}} but summary_schema "
                    f"{self.summary_schema.__name__} has no field {name!r}. Use one of "
                    f"{', '.join('{' + k + '}' for k in known)}, or add the field to the schema."
                )
        return self


def _explain(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = f"{where} is required (e.g. {where}=3000)"
        elif err["type"] in ("extra_forbidden", "no_such_attribute"):
            known = [n for n in CompressionConfig.model_fields]
            close = difflib.get_close_matches(where, known, n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"
            msg = f"{where} is not a CompressionConfig setting ({hint})"
        elif err["type"] == "is_instance_of":
            msg = f"{where} has the wrong type: {msg}"
        elif where and not msg.startswith(where):
            msg = f"{where}: {msg}"
        problems.append(msg)
    return "Invalid CompressionConfig: " + "; ".join(problems)


class CompressionPlan(BaseModel):
    """What a compression would do now (nothing is changed by making a plan).

    Token counts cover exactly what the next model call sends: the system prompt, the current
    summary (appended to it), the uncompressed history and the tool schemas.
    """

    total_tokens: int
    """Tokens of the next prompt: ``sum(breakdown.values())``."""
    breakdown: dict[str, int]
    """``system`` (prompt, with the 3 reply-priming tokens), ``summary``, ``history``, ``tools``."""
    trigger_threshold: int | None
    """The threshold planned against (None: no threshold, never triggers)."""
    keep_recent: int
    """Latest messages kept verbatim."""
    over_threshold: bool
    """``total_tokens > trigger_threshold``."""
    would_trigger: bool
    """Over the threshold and something can be compressed."""
    enabled: bool = True
    """Whether automatic compression is on (``CompressionConfig.enable``)."""
    compress_ids: list[str]
    """Ids that would be folded into the summary, oldest first."""
    keep_ids: list[str]
    """Ids of the history that stay verbatim, in order."""
    pinned_ids: list[str]
    """Pinned ids (kept)."""
    protected_ids: list[str]
    """The question the agent is answering (kept)."""
    per_message_tokens: dict[str, int]
    """Tokens of each uncompressed message, framing included."""
    tokens_before: int
    """Same as ``total_tokens``."""
    tokens_after_estimate: int
    """Prompt tokens after compressing, assuming a summary ~1/4 of what it replaces."""
    reasons: list[str]
    """Why the plan is what it is, for people (boundary moves, kept messages)."""
    exact: bool
    """False when the counts are approximate (no exact vocabulary)."""
    boundary_index: int
    """Index in the uncompressed history where the kept tail starts."""
    recent_ids: list[str] = Field(default_factory=list)
    """The last ``keep_recent`` messages of the history (what keep_recent itself keeps)."""
    kept_because: dict[str, str] = Field(default_factory=dict)
    """Why a message before the recent tail is kept: ``pinned``, ``question``,
    ``tool partner`` (of a kept message) or ``open call`` (no result yet)."""


def plan_compression(
    history: Sequence[Msg],
    *,
    counter: TokenCounter,
    trigger_threshold: int | None,
    keep_recent: int = 3,
    system_prompt: str = "",
    summary: str = "",
    tools: Sequence[dict[str, Any]] | None = None,
    pinned_ids: Iterable[str] = (),
    protected_ids: Iterable[str] = (),
    formatter: Any = None,
    enabled: bool = True,
    numbers: Sequence[int] | None = None,
) -> CompressionPlan:
    """Plan a compression of ``history`` (the uncompressed messages, in prompt order).

    Args:
        history: the messages the next prompt holds after the system message.
        counter: the token counter (its per-message cache makes re-planning cheap).
        trigger_threshold: compress above this many tokens (None: never).
        keep_recent: how many latest messages stay verbatim.
        system_prompt: the agent's system prompt; ``summary`` is appended to it as the agent does.
        summary: the current compressed summary.
        tools: the tool schemas sent with the prompt.
        pinned_ids: messages never to compress.
        protected_ids: the question the agent is answering (never compressed).
        formatter: the agent's formatter (default ``OpenAIChatFormatter(plain_content=True)``).
        enabled: recorded in the plan (automatic compression on or off).
        numbers: the row number of each history message in reasons (default 1..n; the
            agent passes memory positions, the numbering of the inspector's table).

    Raises:
        ConfigError: ``trigger_threshold <= 0`` or ``keep_recent < 0``.
    """
    if trigger_threshold is not None and trigger_threshold <= 0:
        raise ConfigError(f"trigger_threshold must be a positive number (got {trigger_threshold}).")
    if keep_recent < 0:
        raise ConfigError(f"keep_recent must be 0 or more (got {keep_recent}).")
    entries = counter.msg_counts(history, formatter)
    n = len(history)
    ids = [m.id for m in history]
    per_message = {i: e.tokens for i, e in zip(ids, entries, strict=True)}
    system_only = counter.count_system(system_prompt, formatter)
    system_text = (
        f"{system_prompt}\n\n{summary}" if system_prompt and summary else (system_prompt or summary)
    )
    summary_tokens = counter.count_system(system_text, formatter) - system_only
    breakdown = {
        "system": system_only + 3,  # every reply is primed with 3 tokens
        "summary": summary_tokens,
        "history": sum(per_message.values()),
        "tools": counter.count_tools(tools),
    }
    total = sum(breakdown.values())
    over = trigger_threshold is not None and total > trigger_threshold
    reasons = [
        f"{total} tokens: system prompt {breakdown['system']}, summary {summary_tokens}, "
        f"history {breakdown['history']} ({n} messages), tool schemas {breakdown['tools']}."
    ]
    if not counter.exact:
        reasons.append(
            f"Counts are APPROXIMATE (no exact {counter.encoding_name} vocabulary: "
            f"{counter.fallback_reason})."
        )
    if trigger_threshold is None:
        reasons.append("No trigger threshold is set, so compression never triggers.")
    else:
        sign = ">" if over else "<="
        state = "over" if over else "under"
        reasons.append(f"{state.capitalize()} the threshold: {total} {sign} {trigger_threshold}.")

    chosen = select_kept(entries, ids, keep_recent, pinned_ids, protected_ids, numbers=numbers)
    reasons.extend(chosen.reasons)
    keep, boundary, pinned, protected = (
        chosen.keep,
        chosen.boundary,
        chosen.pinned,
        chosen.protected,
    )
    compress_ids = [ids[i] for i in range(n) if not keep[i]]
    keep_ids = [ids[i] for i in range(n) if keep[i]]
    compressed_tokens = sum(per_message[i] for i in compress_ids)
    if not compress_ids:
        reasons.append("Nothing can be compressed: every message is kept.")
    # The new summary replaces the old one; it is assumed ~1/SUMMARY_RATIO of what it folds in.
    replaced = compressed_tokens + summary_tokens
    new_summary = min(replaced, max(50, replaced // SUMMARY_RATIO)) if compress_ids else 0
    after = total - compressed_tokens - summary_tokens + new_summary if compress_ids else total
    if compress_ids:
        reasons.append(
            f"Compressing {len(compress_ids)} message(s) ({compressed_tokens} tokens) leaves "
            f"about {after} tokens, assuming a summary of ~{new_summary} tokens."
        )
    return CompressionPlan.model_construct(
        total_tokens=total,
        breakdown=breakdown,
        trigger_threshold=trigger_threshold,
        keep_recent=keep_recent,
        over_threshold=over,
        would_trigger=over and bool(compress_ids),
        enabled=enabled,
        compress_ids=compress_ids,
        keep_ids=keep_ids,
        pinned_ids=pinned,
        protected_ids=protected,
        per_message_tokens=per_message,
        tokens_before=total,
        tokens_after_estimate=after,
        reasons=reasons,
        exact=counter.exact,
        boundary_index=boundary,
        recent_ids=[ids[i] for i in range(chosen.recent, n)],
        kept_because={ids[i]: kind for i, kind in chosen.why.items()},
    )


_default_counter: TokenCounter | None = None


def default_counter() -> TokenCounter:
    """The process-wide counter used when an agent has no ``CompressionConfig``."""
    global _default_counter
    if _default_counter is None:
        _default_counter = TokenCounter()
    return _default_counter
