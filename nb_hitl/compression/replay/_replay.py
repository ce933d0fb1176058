"""Replay a recorded conversation under any compression setting, call by call.

``replay_compression(messages, config)`` walks a recorded conversation as a ``ReActAgent`` with
that ``CompressionConfig`` would have lived it: before each model call (each assistant message
the agent wrote) it counts the prompt (system prompt, summary, uncompressed history, tool
schemas) and, where the prompt passes ``trigger_threshold``, compresses with the agent's own
rules (``select_kept``: tool pairs never split, the current question and pinned messages kept).
How many tokens the summary then takes is a summary policy's business (``_policy.py``).

Per-message counts are taken once (the counter's cache), so a replay is a loop over integers;
``sweep_compression`` reuses one preparation for a whole grid of settings.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from nb_hitl.exceptions import ConfigError
from nb_hitl.token import TokenCounter

from .._config import CompressionConfig
from .._select import select_kept
from ._policy import SummaryOutcome, SummaryPolicy, SummaryRequest, as_policy
from ._result import CompressionReplay, ReplayCall, ReplayProgress
from ._source import Prepared, prepare


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


def _run(
    prep: Prepared,
    config: CompressionConfig | None,
    policy: SummaryPolicy,
    threshold: int | None,
    keep_recent: int | None,
    progress: Callable[[ReplayProgress], None] | None,
) -> Generator[SummaryRequest, SummaryOutcome, CompressionReplay]:
    """The replay of ``prep`` with its settings checked, telling ``progress`` as it goes."""
    cfg_threshold, cfg_keep, enabled = _settings(config)
    if threshold is not None:
        cfg_threshold, enabled = threshold, True
    keep = cfg_keep if keep_recent is None else keep_recent
    check_keep_recent(prep, keep)
    steps = _steps(prep, cfg_threshold, keep, enabled, config, policy)
    done = 0
    outcome: Any = None  # None primes the generator
    try:
        while True:
            request = steps.send(outcome)
            if progress is not None:
                progress(ReplayProgress(request.call - 1, len(prep.calls), done, "summarising"))
            outcome = yield request
            done += 1
    except StopIteration as stop:
        replay: CompressionReplay = stop.value
    if progress is not None:
        progress(ReplayProgress(len(prep.calls), len(prep.calls), replay.compressions, "done"))
    return replay


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
    run = _run(prep, config, policy, threshold, keep_recent, progress)
    outcome: Any = None
    try:
        while True:
            outcome = summarize(run.send(outcome), prep.counter)
    except StopIteration as stop:
        return stop.value


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
    prep = prepare_for(messages, config, counter, sys_prompt, tools, formatter, pinned_ids)
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
    prep = prepare_for(messages, config, counter, sys_prompt, tools, formatter, pinned_ids)
    run = _run(prep, config, policy, None, None, progress)
    outcome: Any = None
    try:
        while True:
            request = run.send(outcome)
            asummarize = getattr(policy, "asummarize", None)
            if asummarize is not None:
                outcome = await asummarize(request, prep.counter)
            else:
                outcome = policy.summarize(request, prep.counter)  # type: ignore[union-attr]
    except StopIteration as stop:
        return stop.value


def prepare_for(
    messages: Any,
    config: CompressionConfig | None,
    counter: TokenCounter | None,
    sys_prompt: str | None,
    tools: Sequence[dict[str, Any]] | None,
    formatter: Any,
    pinned_ids: Sequence[str] = (),
) -> Prepared:
    """``prepare`` for the public replay functions: the counter defaults to ``config``'s."""
    if counter is None and isinstance(config, CompressionConfig):
        counter = config.agent_token_counter
    if counter is None:
        from .._config import default_counter

        counter = default_counter()
    return prepare(
        messages,
        counter=counter,
        sys_prompt=sys_prompt,
        tools=tools,
        formatter=formatter,
        pinned_ids=pinned_ids,
    )


__all__ = [
    "CompressionReplay",
    "ReplayCall",
    "ReplayProgress",
    "replay_compression",
    "replay_compression_async",
]
