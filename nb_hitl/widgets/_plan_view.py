"""The inspector's summary of a ``CompressionPlan``: header, token bar, verdict, notes.

Pure functions from a plan to escaped HTML, so the what-if path (slider -> plan -> HTML) is
easy to time and to test.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc

from ._svg import BAR_FILLS, Swatch, legend, token_bar

if TYPE_CHECKING:
    from nb_hitl.agent import CompressionPlan

APPROX_NOTE = (
    '<span class="nb-hitl-note">Token counts are approximate: no exact tokenizer for this '
    "model.</span>"
)


def _tokens_of(plan: CompressionPlan, ids: Iterable[str]) -> int:
    # map, not a generator: thousands of ids on every what-if move of a long memory
    return sum(map(plan.per_message_tokens.get, ids, repeat(0)))


def header_html(
    plan: CompressionPlan, n_messages: int, agent_settings: tuple[int, int] | None = None
) -> str:
    """Messages, total tokens against the threshold, ``keep_recent`` and the breakdown.

    ``agent_settings``: the agent's own ``(trigger_threshold, keep_recent)``; when the plan's
    differ (a what-if), the header says so and names the agent's.
    """
    total, threshold = int(plan.total_tokens), int(plan.trigger_threshold or 0)
    limit = f"of {threshold:,} (trigger_threshold)" if threshold else "(no trigger_threshold)"
    count = f"{n_messages:,} message{'' if n_messages == 1 else 's'}"
    parts = ", ".join(f"{esc(k)} {int(v):,}" for k, v in plan.breakdown.items())
    what_if = ""
    if agent_settings is not None and agent_settings != (threshold, int(plan.keep_recent)):
        own, keep = agent_settings
        own_text = f"{own:,}" if own else "no threshold"
        what_if = (
            f' <span class="nb-hitl-badge nb-hitl-badge-other" data-what-if="1">what-if</span>'
            f"<br><small>the agent uses trigger_threshold {own_text}, keep_recent {keep} "
            "(<i>Reset what-if</i> goes back to them)</small>"
        )
    return (
        f"<b>{count} · {total:,} tokens</b> {limit} · "
        f"keep_recent {int(plan.keep_recent)}{what_if}<br><small>{parts}</small>"
    )


COUNTING = "counting tokens…"
"""What the inspector shows where its numbers go until its first plan is counted."""


def pending_header_html(n_messages: int, threshold: int, keep: int, why: str = "") -> str:
    """The header before the first plan: messages and settings, "counting tokens…" where the
    total goes (``why``: why it is not counted, "" while it is being counted)."""
    count = f"{n_messages:,} message{'' if n_messages == 1 else 's'}"
    limit = f"of {threshold:,} (trigger_threshold)" if threshold else "(no trigger_threshold)"
    busy = "not counted" if why else COUNTING
    return (
        f'<b>{count} · <span class="nb-hitl-counting">{busy}</span></b> {limit} · '
        f"keep_recent {int(keep)}"
    )


def pending_plan_html(why: str = "") -> str:
    """Where the plan goes before the first one is counted (``aria-busy`` while it is)."""
    if why:
        return f'<div class="nb-hitl-plan nb-hitl-counting">Tokens not counted: {esc(why)}.</div>'
    return (
        f'<div class="nb-hitl-plan nb-hitl-counting" aria-busy="true">{COUNTING.capitalize()} '
        "the token bar, the plan and the chart follow.</div>"
    )


def floor_html(floor: int, threshold: int) -> str:
    """A warning when ``threshold`` is below ``floor``, the smallest prompt compression can
    reach (``""`` otherwise): compression would then run before every step, in vain."""
    if not threshold or threshold >= floor:
        return ""
    return (
        f'<div class="nb-hitl-status-error nb-hitl-floor" data-floor="{floor}">'
        f"trigger_threshold {threshold:,} is below the smallest prompt this conversation can "
        f"have ({floor:,} tokens: system prompt, tool schemas, the question and pinned "
        "messages): every step would compress and still be over it. Pick at least "
        f"{floor:,}.</div>"
    )


BAR_LEGEND: tuple[tuple[str, str], ...] = (
    ("grey", "system, summary, tools"),
    ("grey", "older kept (pinned, question, partners)"),
    ("orange", "would be compressed"),
    ("green", "kept as recent"),
)
"""The token bar's parts: (theme colour, label), in ``BAR_FILLS`` order."""


def bar_legend() -> str:
    """The token bar's legend (colour boxes, the threshold line, the after-compression tick)."""
    items: list[Swatch] = [(c, "box", t) for c, t in BAR_LEGEND]
    items += [("red", "tick", "trigger_threshold"), ("green", "tri", "after compressing")]
    fades = {t: o for (_, t), (_, o) in zip(BAR_LEGEND, BAR_FILLS, strict=True) if o is not None}
    return f'<div class="nb-hitl-bar-legend">{legend(items, fades)}</div>'


def bar_html(plan: CompressionPlan, after: int | None = None) -> str:
    """The token bar with the threshold line and the ``keep_recent`` boundary, and a legend."""
    fixed = sum(int(v) for k, v in plan.breakdown.items() if k != "history")
    return (
        token_bar(
            int(plan.total_tokens),
            int(plan.trigger_threshold or 0),
            _tokens_of(plan, plan.compress_ids),
            _tokens_of(plan, plan.recent_ids),
            int(plan.tokens_after_estimate if after is None else after),
            fixed_tokens=fixed,
        )
        + bar_legend()
    )


def plan_html(plan: CompressionPlan, after: int | None = None) -> str:
    """What compressing would do now, whether it happens by itself, and why.

    Args:
        plan: the ``CompressionPlan``.
        after: the exact prompt size after compressing, when it can be known without a model
            call (the agent summarises with ``ScriptedModel``); otherwise the plan's estimate
            is shown with the assumption it makes.
    """
    n = len(plan.compress_ids)
    n_recent = len(plan.recent_ids)
    others = len(plan.keep_ids) - n_recent
    if after is not None:
        outcome = f"exactly <b>{after:,}</b> tokens (ScriptedModel's summary)"
    else:
        outcome = (
            f"about <b>{int(plan.tokens_after_estimate):,}</b> tokens (if the summary is 1/4 "
            "of what it replaces, at least 50)"
        )
    fold = (
        f"fold <b>{n}</b> message(s) ({_tokens_of(plan, plan.compress_ids):,} tokens) into the "
        f"summary, keep {n_recent} recent and {others} other(s) (pinned, the question, tool "
        f"partners) · {int(plan.tokens_before):,} → {outcome}"
    )
    over = plan.over_threshold
    if over and plan.would_trigger and plan.enabled:
        verdict = "<b>Over the threshold</b>: compresses before the next step; it would "
    elif over:
        verdict = "<b>Over the threshold</b> (automatic compression is off): "
        verdict += "<i>Compress now</i> would "
    elif not plan.trigger_threshold:  # nothing to be below: say what happens instead
        verdict = "No trigger_threshold: no automatic compression; <i>Compress now</i> would "
    else:
        verdict = "Below the threshold: no automatic compression; <i>Compress now</i> would "
    reasons = plan.reasons
    why = ""
    if reasons:
        items = "".join(f"<li>{esc(r)}</li>" for r in reasons[:8])
        why = f"<details><summary>why</summary><ul><small>{items}</small></ul></details>"
    return (
        f'<div class="nb-hitl-plan" data-compress="{n}" '
        f'data-after="{int(plan.tokens_after_estimate if after is None else after)}" '
        f'data-trigger="{int(plan.would_trigger)}">{verdict}{fold}{why}</div>'
    )


def approx_html(plan: CompressionPlan) -> str:
    """The note shown when token counts are approximate ("" when exact)."""
    return "" if plan.exact else APPROX_NOTE


def note_html(text: str, error: bool = False) -> str:
    """The escaped one-line note (an error in the error colour); empty for no text."""
    cls = "nb-hitl-status-error" if error else "nb-hitl-note"
    return f'<span class="{cls}">{esc(text)}</span>' if text else ""


def outcome_text(method: str, result: Any) -> str:
    """What ``compress_memory`` or ``undo_compression`` (``method``) did, in one sentence."""
    if method == "undo_compression":
        return "Undid the last compression." if result else "Nothing to undo."
    if result is None:
        return "Nothing compressed (nothing compressible, or see the note above)."
    ids = getattr(result, "compressed_ids", ())
    before = int(getattr(result, "tokens_before", 0))
    after = int(getattr(result, "tokens_after", 0))
    return f"Compressed {len(ids)} message(s): {before:,} → {after:,} tokens."


__all__ = [
    "COUNTING",
    "approx_html",
    "bar_html",
    "bar_legend",
    "floor_html",
    "header_html",
    "note_html",
    "outcome_text",
    "pending_header_html",
    "pending_plan_html",
    "plan_html",
]
