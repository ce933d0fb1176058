"""The compression plan: what would be summarised now, and why (nothing is changed).

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

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg
from nb_hitl.token import TokenCounter

from ._config import SUMMARY_RATIO
from ._select import select_kept


class CompressionPlan(BaseModel):
    """What a compression would do now (nothing is changed by making a plan).

    Token counts cover exactly what the next model call sends: the system prompt, the current
    summary (appended to it), the uncompressed history and the tool schemas.
    """

    model_config = ConfigDict(defer_build=True)

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

    def with_threshold(self, trigger_threshold: int | None) -> CompressionPlan:
        """This plan against another ``trigger_threshold``: nothing is counted again.

        The threshold only decides the verdict (``over_threshold``, ``would_trigger`` and the
        reason that states it); what would be compressed and every count stay as they are, so
        a what-if slider re-plans a 5,000-message memory in microseconds. Equal to planning
        from scratch with that threshold. The copy shares the id lists and counts with this
        plan (treat plans as read-only).

        Raises:
            ConfigError: ``trigger_threshold <= 0``.
        """
        _check_threshold(trigger_threshold)
        if trigger_threshold == self.trigger_threshold:
            return self
        over = trigger_threshold is not None and self.total_tokens > trigger_threshold
        reasons = list(self.reasons)
        reasons[_threshold_reason_at(self.exact)] = _threshold_reason(
            self.total_tokens, trigger_threshold
        )
        return self.model_copy(
            update={
                "trigger_threshold": trigger_threshold,
                "over_threshold": over,
                "would_trigger": over and bool(self.compress_ids),
                "reasons": reasons,
            }
        )


def _check_threshold(trigger_threshold: int | None) -> None:
    if trigger_threshold is not None and trigger_threshold <= 0:
        raise ConfigError(f"trigger_threshold must be a positive number (got {trigger_threshold}).")


def _threshold_reason_at(exact: bool) -> int:
    """Where the threshold's verdict sits in ``reasons``: after the totals and, for an
    approximate count, the note saying so."""
    return 1 if exact else 2


def _threshold_reason(total: int, trigger_threshold: int | None) -> str:
    """The reason stating the verdict against ``trigger_threshold``."""
    if trigger_threshold is None:
        return "No trigger threshold is set, so compression never triggers."
    over = total > trigger_threshold
    sign = ">" if over else "<="
    state = "over" if over else "under"
    return f"{state.capitalize()} the threshold: {total} {sign} {trigger_threshold}."


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
    _check_threshold(trigger_threshold)
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
    if not counter.exact:  # before the verdict: ``_threshold_reason_at`` counts on it
        reasons.append(
            f"Counts are APPROXIMATE (no exact {counter.encoding_name} vocabulary: "
            f"{counter.fallback_reason})."
        )
    reasons.append(_threshold_reason(total, trigger_threshold))

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


__all__ = ["CompressionPlan", "plan_compression"]
