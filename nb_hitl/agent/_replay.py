"""Replay a recorded conversation under any compression setting, call by call.

``replay_compression(messages, config)`` walks a recorded conversation as a ``ReActAgent`` with
that ``CompressionConfig`` would have lived it: before each model call (each assistant message
the agent wrote) it counts the prompt (system prompt, summary, uncompressed history, tool
schemas) and, where the prompt passes ``trigger_threshold``, compresses with the agent's own
rules (``select_kept``: tool pairs never split, the current question and pinned messages kept).
How many tokens the summary then takes is a summary policy's business (``_replay_summary``).

Per-message counts are taken once (the counter's cache), so a replay is a loop over integers;
``sweep_compression`` reuses one preparation for a whole grid of settings.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from nb_hitl.exceptions import ConfigError
from nb_hitl.token import TokenCounter

from ._compression import CompressionConfig
from ._compression_select import select_kept
from ._replay_source import Prepared, prepare
from ._replay_summary import SummaryOutcome, SummaryPolicy, SummaryRequest, as_policy


@dataclass(slots=True)
class ReplayCall:
    """One model call of a replay."""

    call: int
    """The call's number, 1-based."""
    message: int
    """Row number (1-based) of the assistant message this call wrote, as the inspector numbers."""
    message_id: str
    """Id of that assistant message."""
    prompt_tokens: int
    """Tokens of the prompt sent (after any compression here)."""
    tokens_before: int
    """Tokens of the prompt before compressing (equals ``prompt_tokens`` without one)."""
    compressed: bool = False
    """Whether compression happened right before this call."""
    folded_ids: tuple[str, ...] = ()
    """Messages folded into the summary here, oldest first."""
    folded_tokens: int = 0
    """Prompt tokens of those messages."""
    kept_tokens: int = 0
    """History tokens left verbatim in the prompt sent."""
    summary_tokens: int = 0
    """Tokens of the summary in the prompt sent."""
    summariser_input_tokens: int = 0
    """Tokens the summariser read for this compression."""
    summariser_output_tokens: int = 0
    """Tokens the summariser wrote for this compression."""


@dataclass
class ReplayProgress:
    """Where a replay is (passed to ``progress=``)."""

    call: int
    """Model calls replayed so far."""
    calls: int
    """Model calls in the conversation."""
    compressions: int
    """Compressions so far."""
    phase: str
    """``summarising`` (a summary is being written) or ``done``."""


@dataclass
class CompressionReplay:
    """The outcome of a replay: one row per model call, and totals."""

    rows: list[ReplayCall]
    """One row per model call, in order."""
    trigger_threshold: int | None
    """The threshold replayed (None: the no-compression baseline)."""
    keep_recent: int
    """The ``keep_recent`` replayed."""
    policy: str
    """The summary policy, as text (``RatioSummary(0.25, minimum=50)``...)."""
    exact: bool
    """False when the counts are approximate (no exact vocabulary)."""
    summaries: list[str] = field(default_factory=list)
    """The summaries written, in order (text-writing policies only)."""

    @property
    def prompt_tokens(self) -> list[int]:
        """Prompt tokens of each model call."""
        return [r.prompt_tokens for r in self.rows]

    @property
    def billed_input_tokens(self) -> int:
        """Input tokens of all model calls (what the provider bills as prompt tokens)."""
        return sum(r.prompt_tokens for r in self.rows)

    @property
    def peak_prompt_tokens(self) -> int:
        """The largest prompt sent."""
        return max((r.prompt_tokens for r in self.rows), default=0)

    @property
    def compressions(self) -> int:
        """How many times memory was compressed."""
        return sum(r.compressed for r in self.rows)

    @property
    def compression_calls(self) -> list[int]:
        """Numbers of the calls right before which compression happened."""
        return [r.call for r in self.rows if r.compressed]

    @property
    def summariser_tokens(self) -> int:
        """Tokens the summariser read and wrote, all compressions together."""
        return sum(r.summariser_input_tokens + r.summariser_output_tokens for r in self.rows)

    @property
    def total_tokens(self) -> int:
        """``billed_input_tokens + summariser_tokens``: the cost the sweep minimises."""
        return self.billed_input_tokens + self.summariser_tokens

    def fits(self, budget: int) -> bool:
        """True when every prompt has at most ``budget`` tokens."""
        return self.peak_prompt_tokens <= budget

    def savings(self, baseline: CompressionReplay) -> int:
        """Tokens saved against ``baseline`` (billed input plus summariser tokens)."""
        return baseline.total_tokens - self.total_tokens

    def totals(self) -> dict[str, int]:
        """The totals as a dict (for printing and for tables)."""
        return {
            "billed_input_tokens": self.billed_input_tokens,
            "peak_prompt_tokens": self.peak_prompt_tokens,
            "compressions": self.compressions,
            "summariser_tokens": self.summariser_tokens,
            "total_tokens": self.total_tokens,
        }

    def __repr__(self) -> str:
        setting = (
            "no compression"
            if self.trigger_threshold is None
            else f"trigger_threshold={self.trigger_threshold}, keep_recent={self.keep_recent}"
        )
        return (
            f"CompressionReplay({setting}, {len(self.rows)} calls, "
            f"billed={self.billed_input_tokens:,}, peak={self.peak_prompt_tokens:,}, "
            f"compressions={self.compressions}, summariser={self.summariser_tokens:,}, "
            f"summary={self.policy})"
        )


def _question(prep: Prepared, live: list[int]) -> str | None:
    """The agent's ``current_question_id()`` over the uncompressed messages ``live``."""
    fallback = None
    for j in reversed(live):
        role = prep.roles[j]
        if role == "user":
            return prep.ids[j]
        if fallback is None and role != "system" and prep.names[j] != prep.agent_name:
            fallback = prep.ids[j]
    return fallback


def _steps(
    prep: Prepared,
    threshold: int | None,
    keep_recent: int,
    enabled: bool,
    config: CompressionConfig | None,
    policy: SummaryPolicy,
) -> Generator[SummaryRequest, SummaryOutcome, CompressionReplay]:
    """The replay, as a generator that yields each summary request and gets its outcome."""
    instructions, schema, template = prep.summary_settings(config)
    summariser_formatter = getattr(config, "compression_formatter", None) or prep.formatter
    counter, tokens, entries, ids = prep.counter, prep.tokens, prep.entries, prep.ids
    live: list[int] = []
    history = 0
    summary_text = ""
    summary_tokens = 0
    rows: list[ReplayCall] = []
    summaries: list[str] = []
    seen = 0
    for number, at in enumerate(prep.calls, start=1):
        live.extend(range(seen, at))
        history += sum(tokens[seen:at])
        seen = at
        closing = at in prep.closing  # the max_iters summarising call: no tools, no compression
        fixed = prep.system_tokens + (prep.closing_tokens if closing else prep.tools_tokens)
        before = fixed + summary_tokens + history
        row = ReplayCall(number, at + 1, ids[at], before, before)
        if enabled and threshold is not None and before > threshold and not closing and live:
            question = _question(prep, live)
            chosen = select_kept(
                [entries[j] for j in live],
                [ids[j] for j in live],
                keep_recent,
                prep.pinned,
                (question,) if question else (),
                explain=False,
            )
            folded = [j for j, keep in zip(live, chosen.keep, strict=True) if not keep]
            if folded:
                folded_tokens = sum(tokens[j] for j in folded)
                outcome = yield SummaryRequest(
                    call=number,
                    messages=[prep.msgs[j] for j in folded],
                    previous=summary_text,
                    previous_tokens=summary_tokens,
                    folded_tokens=folded_tokens,
                    overhead_tokens=prep.summariser_overhead(instructions, schema),
                    instructions=instructions,
                    schema=schema,
                    template=template,
                    formatter=summariser_formatter,
                )
                output_tokens = outcome.output_tokens
                if outcome.text is not None:
                    summary_text = outcome.text
                    summaries.append(outcome.text)
                    summary_tokens = prep.summary_tokens(outcome.text)
                    output_tokens = output_tokens or summary_tokens
                else:
                    summary_tokens = int(outcome.tokens or 0)
                live = [j for j, keep in zip(live, chosen.keep, strict=True) if keep]
                history -= folded_tokens
                row.compressed = True
                row.folded_ids = tuple(ids[j] for j in folded)
                row.folded_tokens = folded_tokens
                row.summariser_input_tokens = outcome.input_tokens
                row.summariser_output_tokens = output_tokens
                row.prompt_tokens = fixed + summary_tokens + history
        row.kept_tokens = history
        row.summary_tokens = summary_tokens
        rows.append(row)
    return CompressionReplay(
        rows,
        threshold if enabled else None,
        keep_recent,
        repr(policy),
        counter.exact,
        summaries,
    )


def _settings(config: CompressionConfig | None) -> tuple[int | None, int, bool]:
    if config is None:
        return None, 0, False
    if not isinstance(config, CompressionConfig):
        raise ConfigError(
            f"config must be a CompressionConfig or None (the no-compression baseline), got "
            f"{config!r}; e.g. CompressionConfig(trigger_threshold=8000, keep_recent=6)."
        )
    return config.trigger_threshold, config.keep_recent, config.enable


def check_keep_recent(prep: Prepared, keep_recent: int) -> None:
    """Refuse a ``keep_recent`` larger than the conversation (nothing could ever fold)."""
    if keep_recent > len(prep.msgs):
        raise ConfigError(
            f"keep_recent={keep_recent} is more than the {len(prep.msgs)} messages of this "
            f"conversation, so nothing could ever be compressed; use at most "
            f"{len(prep.msgs) - 1}."
        )


def run_replay(
    prep: Prepared,
    config: CompressionConfig | None,
    policy: SummaryPolicy,
    *,
    threshold: int | None = None,
    keep_recent: int | None = None,
    progress: Callable[[ReplayProgress], None] | None = None,
) -> CompressionReplay:
    """Replay ``prep`` synchronously (every policy but ``ModelSummary``)."""
    summarize = getattr(policy, "summarize", None)
    if summarize is None:
        raise ConfigError(
            f"{policy!r} calls a model: use `await replay_compression_async(...)` for it."
        )
    cfg_threshold, cfg_keep, enabled = _settings(config)
    if threshold is not None:
        cfg_threshold, enabled = threshold, True
    keep = cfg_keep if keep_recent is None else keep_recent
    check_keep_recent(prep, keep)
    steps = _steps(prep, cfg_threshold, keep, enabled, config, policy)
    done = 0
    try:
        request = next(steps)
        while True:
            if progress is not None:
                progress(ReplayProgress(request.call - 1, len(prep.calls), done, "summarising"))
            outcome = summarize(request, prep.counter)
            done += 1
            request = steps.send(outcome)
    except StopIteration as stop:
        replay: CompressionReplay = stop.value
    if progress is not None:
        progress(ReplayProgress(len(prep.calls), len(prep.calls), replay.compressions, "done"))
    return replay


def replay_compression(
    messages: Any,
    config: CompressionConfig | None,
    *,
    sys_prompt: str | None = None,
    tools: Sequence[dict[str, Any]] | None = None,
    counter: TokenCounter | None = None,
    summary: Any = None,
    formatter: Any = None,
    pinned_ids: Sequence[str] = (),
    progress: Callable[[ReplayProgress], None] | None = None,
) -> CompressionReplay:
    """Replay a recorded conversation as a ``ReActAgent`` with ``config`` would have lived it.

    Args:
        messages: a list of ``Msg`` (or their dicts), an ``InMemoryMemory`` (its pins count),
            an agent (its memory, system prompt and tool schemas), or a session file's path.
            Every message is replayed, compressed ones included; an existing summary is not
            used (the replay writes its own).
        config: the compression setting to replay; None replays without compression (the
            baseline). ``enable=False`` replays as no compression too.
        sys_prompt: the system prompt (default: the agent's or the session's, else "").
        tools: tool schemas sent with each call (default: the agent's, else none).
        counter: the token counter (default: ``config.agent_token_counter``).
        summary: the summary policy: ``FixedSummary(n)`` or an int, ``RatioSummary(r)`` or a
            float, ``"scripted"`` / ``ScriptedSummary()``. Default ``RatioSummary()``, the
            estimate compression plans state. Real models need ``replay_compression_async``.
        formatter: the agent's formatter (default: the agent's, else ReActAgent's default).
        pinned_ids: messages pinned (added to the pins a memory or session carries).
        progress: called before each summary and once at the end with a ``ReplayProgress``.

    Raises:
        TranscriptError: the conversation is empty, has no model call, repeats a message id or
            has a tool result whose call is not before it.
        ConfigError: a bad config, policy, or ``keep_recent`` larger than the conversation.
    """
    prep = prepare(
        messages,
        counter=counter or _counter_of(config),
        sys_prompt=sys_prompt,
        tools=tools,
        formatter=formatter,
        pinned_ids=pinned_ids,
    )
    return run_replay(prep, config, as_policy(summary), progress=progress)


async def replay_compression_async(
    messages: Any,
    config: CompressionConfig | None,
    *,
    sys_prompt: str | None = None,
    tools: Sequence[dict[str, Any]] | None = None,
    counter: TokenCounter | None = None,
    summary: Any = None,
    formatter: Any = None,
    pinned_ids: Sequence[str] = (),
    progress: Callable[[ReplayProgress], None] | None = None,
) -> CompressionReplay:
    """``replay_compression`` for any policy, a real model (``ModelSummary``) included.

    With a model, every compression really calls it (the agent's own summarising code), and
    ``progress`` is told before each one. Arguments as for ``replay_compression``.
    """
    policy = as_policy(summary)
    prep = prepare(
        messages,
        counter=counter or _counter_of(config),
        sys_prompt=sys_prompt,
        tools=tools,
        formatter=formatter,
        pinned_ids=pinned_ids,
    )
    threshold, keep, enabled = _settings(config)
    check_keep_recent(prep, keep)
    steps = _steps(prep, threshold, keep, enabled, config, policy)
    done = 0
    try:
        request = next(steps)
        while True:
            if progress is not None:
                progress(ReplayProgress(request.call - 1, len(prep.calls), done, "summarising"))
            asummarize = getattr(policy, "asummarize", None)
            if asummarize is not None:
                outcome = await asummarize(request, prep.counter)
            else:
                outcome = policy.summarize(request, prep.counter)  # type: ignore[union-attr]
            done += 1
            request = steps.send(outcome)
    except StopIteration as stop:
        replay: CompressionReplay = stop.value
    if progress is not None:
        progress(ReplayProgress(len(prep.calls), len(prep.calls), replay.compressions, "done"))
    return replay


def _counter_of(config: CompressionConfig | None) -> TokenCounter:
    if config is not None and isinstance(config, CompressionConfig):
        return config.agent_token_counter
    from ._compression_agent import default_counter

    return default_counter()


__all__ = [
    "CompressionReplay",
    "ReplayCall",
    "ReplayProgress",
    "replay_compression",
    "replay_compression_async",
]
