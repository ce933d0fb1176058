"""The inspector's summary of a ``CompressionPlan``: header, token bar, verdict, notes.

Pure functions from a plan to escaped HTML, so the what-if path (slider -> plan -> HTML) is
easy to time and to test.
"""

from __future__ import annotations

from typing import Any

from ._render import esc
from ._svg import token_bar

APPROX_NOTE = (
    '<span class="nb-hitl-note">Token counts are approximate: no exact tokenizer for this '
    "model.</span>"
)


def _tokens_of(plan: Any, ids: Any) -> int:
    tok = plan.per_message_tokens
    return sum(int(tok.get(i, 0)) for i in ids)


def header_html(plan: Any, n_messages: int) -> str:
    """Messages, total tokens against the threshold, ``keep_recent`` and the breakdown."""
    total, threshold = int(plan.total_tokens), int(plan.trigger_threshold or 0)
    limit = f"of {threshold:,} (trigger_threshold)" if threshold else "(no trigger_threshold)"
    count = f"{n_messages:,} message{'' if n_messages == 1 else 's'}"
    parts = ", ".join(f"{esc(k)} {int(v):,}" for k, v in plan.breakdown.items())
    return (
        f"<b>{count} · {total:,} tokens</b> {limit} · "
        f"keep_recent {int(plan.keep_recent)}<br><small>{parts}</small>"
    )


def bar_html(plan: Any) -> str:
    """The token bar with the threshold line and the ``keep_recent`` boundary."""
    fixed = sum(int(v) for k, v in plan.breakdown.items() if k != "history")
    return token_bar(
        int(plan.total_tokens),
        int(plan.trigger_threshold or 0),
        _tokens_of(plan, plan.compress_ids),
        _tokens_of(plan, plan.keep_ids),
        int(plan.tokens_after_estimate),
        fixed_tokens=fixed,
    )


def plan_html(plan: Any) -> str:
    """What compressing would do now, whether it happens by itself, and why."""
    n = len(plan.compress_ids)
    fold = (
        f"fold <b>{n}</b> message(s) ({_tokens_of(plan, plan.compress_ids):,} tokens) into the "
        f"summary, keep {len(plan.keep_ids)} recent and {len(plan.pinned_ids)} pinned · "
        f"{int(plan.tokens_before):,} → about <b>{int(plan.tokens_after_estimate):,}</b> tokens"
    )
    over = bool(getattr(plan, "over_threshold", plan.would_trigger))
    if over and plan.would_trigger and getattr(plan, "enabled", True):
        verdict = "<b>Over the threshold</b>: compresses before the next step; it would "
    elif over:
        verdict = "<b>Over the threshold</b> (automatic compression is off): "
        verdict += "<i>Compress now</i> would "
    else:
        verdict = "Below the threshold: no automatic compression; <i>Compress now</i> would "
    reasons = list(getattr(plan, "reasons", []) or [])
    why = ""
    if reasons:
        items = "".join(f"<li>{esc(r)}</li>" for r in reasons[:8])
        why = f"<details><summary>why</summary><ul><small>{items}</small></ul></details>"
    return (
        f'<div class="nb-hitl-plan" data-compress="{n}" '
        f'data-trigger="{int(plan.would_trigger)}">{verdict}{fold}{why}</div>'
    )


def approx_html(plan: Any) -> str:
    """The note shown when token counts are approximate ("" when exact)."""
    return "" if plan.exact else APPROX_NOTE


__all__ = ["approx_html", "bar_html", "header_html", "plan_html"]
