"""What a compression replay produces: one row per model call, progress, and totals.

``replay_compression`` (``_replay.py``) fills them; ``sweep_compression`` compares them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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


__all__ = ["CompressionReplay", "ReplayCall", "ReplayProgress"]
