"""The inspector's message table: one escaped HTML table, the summary beside what it replaced."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc, msg_flags, preview
from nb_hitl.message import MetaKey

from ._plan_view import COUNTING

if TYPE_CHECKING:
    from nb_hitl.agent import CompressionPlan
    from nb_hitl.message import Msg

BADGE = '<span class="nb-hitl-badge nb-hitl-badge-{cls}">{text}</span>'


def _msg_text(msg: Msg) -> str:
    text = msg.get_text_content()
    if text:
        return text
    bits = []
    for b in msg.get_content_blocks():
        if b.type == "tool_use":
            bits.append(f"call {b.name}")
        elif b.type == "tool_result":
            bits.append(f"{b.name} -> {b.output_text()}")
        elif b.type == "thinking":
            bits.append(f"thinking: {b.thinking}")
    return " | ".join(bits)


KEPT_LABELS = {
    "question": ("question", "current question"),
    "tool partner": ("partner", "kept: tool partner"),
    "open call": ("partner", "kept: call awaiting its result"),
}
"""Badges for messages kept before the recent tail, by the plan's ``kept_because``."""


def marks_for(
    msg: Msg,
    memory_marks: frozenset[str],
    compress: set[str] | frozenset[str] = frozenset(),
    keep: set[str] | frozenset[str] = frozenset(),
    pinned: set[str] | frozenset[str] = frozenset(),
    *,
    question: set[str] | frozenset[str] = frozenset(),
    because: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """``(css suffix, label)`` badges: compressed, recent, pinned, question, partner...

    ``keep`` is what keep_recent itself keeps (the plan's ``recent_ids``); messages kept for
    another reason get their own badge (``because``: the plan's ``kept_because``).
    """
    out: list[tuple[str, str]] = []
    if "compressed" in memory_marks:
        out.append(("compressed", "compressed"))
    if "pinned" in memory_marks or msg.id in pinned:
        out.append(("pinned", "pinned"))
    if msg.id in question:
        out.append(KEPT_LABELS["question"])
    if msg.id in compress:
        out.append(("compress", "would compress"))
    if msg.id in keep:
        out.append(("recent", "kept as recent"))
    reason = (because or {}).get(msg.id)
    if reason in ("tool partner", "open call"):
        out.append(KEPT_LABELS[reason])
    if msg.metadata.get(MetaKey.PARTIAL):
        out.append(("interrupted" if msg_flags(msg)[0] else "other", "partial"))
    if msg.is_interrupted:
        out.append(("interrupted", "interrupted"))
    if msg.metadata.get(MetaKey.CONTINUED_FROM) or msg.metadata.get(MetaKey.CONTINUED_BY):
        out.append(("resumed", "continuation"))
    if msg.metadata.get(MetaKey.RESUME_INSTRUCTION):
        out.append(("resumed", "resume instruction"))
    if msg.metadata.get(MetaKey.STOPPED_AFTER_STEP):
        out.append(("other", "stopped after a step"))
    for m in sorted(memory_marks - {"compressed", "pinned"}):
        out.append(("other", m))
    return out


class TableRows:
    """The rows a table drew last, each reused while what it shows is unchanged.

    A what-if move on a long memory changes a few rows' marks (or none: a threshold move
    changes no row), so the table is joined from kept rows instead of escaping and
    previewing every message again. A row is kept for the very ``Msg`` it was drawn from
    (messages in memory are immutable; a changed one is a new object) and its inputs: row
    number, marks, plan badges, token count and provider label.
    """

    def __init__(self) -> None:
        self._rows: dict[str, tuple[Msg, tuple[Any, ...], str]] = {}
        self._next: dict[str, tuple[Msg, tuple[Any, ...], str]] = {}
        self.built = 0
        """Rows built (not reused) so far (tests)."""

    def row(self, msg: Msg, key: tuple[Any, ...], build: Callable[[], str]) -> str:
        """The row of ``msg`` drawn with inputs ``key``: kept, or built by ``build()``."""
        kept = self._rows.get(msg.id)
        if kept is not None and kept[0] is msg and kept[1] == key:
            self._next[msg.id] = kept
            return kept[2]
        html = build()
        self.built += 1
        self._next[msg.id] = (msg, key, html)
        return html

    def begin(self) -> None:
        """Start a table: rows not drawn in it are forgotten at ``end()``."""
        self._next = {}

    def end(self) -> None:
        """Keep the rows of the table just drawn, and only those."""
        self._rows = self._next


def memory_table(
    messages: Sequence[Msg],
    marks: Mapping[str, frozenset[str]],
    tokens: Mapping[str, int],
    plan: CompressionPlan | None,
    summary: str,
    *,
    first_index: int = 0,
    provider: Mapping[str, str] | None = None,
    rows_kept: TableRows | None = None,
    counting: bool = False,
) -> str:
    """Rows for ``messages`` (numbered from ``first_index + 1``) plus the summary row.

    The summary row sits right above the first compressed message (the ones it replaced).
    ``provider`` maps message ids to a provider-usage label (prompt tokens the provider
    reported next to nb_hitl's own count), shown under the token count. ``rows_kept``
    reuses the rows of the table drawn before that have not changed. ``counting``: the
    counts are on their way (each token cell says so).
    """
    compress = set(plan.compress_ids) if plan is not None else set()
    keep = set(plan.recent_ids) if plan is not None else set()
    pinned = set(plan.pinned_ids) if plan is not None else set()
    question = set(plan.protected_ids) if plan is not None else set()
    because = plan.kept_because if plan is not None else {}
    cache = rows_kept if rows_kept is not None else TableRows()
    cache.begin()
    rows: list[str] = []
    summary_done = not summary
    for i, msg in enumerate(messages, start=first_index + 1):
        mset = marks.get(msg.id, frozenset())
        if not summary_done and "compressed" in mset:
            rows.append(_summary_row(summary))
            summary_done = True
        msg_id = msg.id
        count = tokens.get(msg_id)
        label = (provider or {}).get(msg_id)
        key = (
            i,
            mset,
            msg_id in compress,
            msg_id in keep,
            msg_id in pinned,
            msg_id in question,
            because.get(msg_id),
            count,
            label,
            counting,
        )
        rows.append(
            cache.row(
                msg,
                key,
                functools.partial(
                    _row,
                    msg,
                    i,
                    mset,
                    count,
                    label,
                    compress=compress,
                    keep=keep,
                    pinned=pinned,
                    question=question,
                    because=because,
                    counting=counting,
                ),
            )
        )
    cache.end()
    if not summary_done:
        rows.insert(0, _summary_row(summary))
    return (
        '<table class="nb-hitl-table"><thead><tr><th>#</th><th>role</th><th>name</th>'
        "<th>preview</th><th>tokens</th><th>marks</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def _row(
    msg: Msg,
    i: int,
    mset: frozenset[str],
    count: int | None,
    label: str | None,
    *,
    compress: set[str],
    keep: set[str],
    pinned: set[str],
    question: set[str],
    because: Mapping[str, str],
    counting: bool = False,
) -> str:
    """One message's ``<tr>`` (row number ``i``), escaped; ``counting``: its count is on its
    way."""
    classes = []
    if msg.id in compress:
        classes.append("nb-hitl-row-compress")
    if msg.id in keep:
        classes.append("nb-hitl-row-recent")
    if "compressed" in mset:
        classes.append("nb-hitl-row-compressed")
    if msg_flags(msg)[0]:
        classes.append("nb-hitl-interrupted")
    badges = "".join(
        BADGE.format(cls=esc(c), text=esc(t))
        for c, t in marks_for(msg, mset, compress, keep, pinned, question=question, because=because)
    )
    drift = f'<br><small class="nb-hitl-provider">{esc(label)}</small>' if label else ""
    shown = "" if count is None else f"{count:,}"
    if count is None and counting:
        shown = f'<span class="nb-hitl-counting" title="{COUNTING}">…</span>'
    return (
        f'<tr class="{" ".join(classes)}" data-id="{esc(msg.id)}"><td>{i}</td>'
        f"<td>{esc(msg.role)}</td><td>{esc(preview(msg.name, 20))}</td>"
        f"<td>{esc(preview(_msg_text(msg), 70))}</td>"
        f'<td style="text-align:right">{shown}{drift}</td>'
        f"<td>{badges}</td></tr>"
    )


def agent_table(
    agent: Any,
    plan: CompressionPlan | None,
    max_rows: int | None,
    rows_kept: TableRows | None = None,
    *,
    counting: bool = False,
) -> str:
    """The table of ``agent``'s memory: its last ``max_rows`` messages (None: all) and a note.

    Replies that carry provider-reported usage show that count under nb_hitl's own.
    ``rows_kept`` reuses the unchanged rows of the table drawn before (``TableRows``).
    ``counting``: the counts are on their way; nothing is counted (not the provider labels
    either: they count the prompt too).
    """
    memory = agent.memory
    messages = memory.messages
    start = 0 if max_rows is None else max(0, len(messages) - max_rows)
    shown = messages[start:]
    marks = {m.id: memory.marks_of(m.id) for m in shown}
    tokens = plan.per_message_tokens if plan is not None else {}
    more = f"<small>{start:,} earlier message(s) not listed.</small>" if start else ""
    return more + memory_table(
        shown,
        marks,
        tokens,
        plan,
        memory.summary,
        first_index=start,
        provider={} if counting else provider_labels(agent, shown),
        rows_kept=rows_kept,
        counting=counting,
    )


def row_id(messages: Sequence[Msg], ref: str | int) -> str | None:
    """The id of the message at table row ``ref`` (numbered from 1) or with id ``ref``."""
    text = str(ref).strip()
    if text.isdigit() and 1 <= int(text) <= len(messages):
        return str(messages[int(text) - 1].id)
    return text if any(m.id == text for m in messages) else None


def provider_labels(agent: Any, shown: Sequence[Msg]) -> dict[str, str]:
    """Provider-reported prompt tokens next to nb_hitl's count, for replies that have them.

    The drift tells whether the chosen encoding matches the model (a few percent is chat
    overhead; 20-40 % means the model uses another tokenizer).
    """
    from nb_hitl.model import check_prompt_tokens, reported_usage

    labels: dict[str, str] = {}
    config = getattr(agent, "compression_config", None)
    counter = getattr(config, "agent_token_counter", None)
    for msg in shown:
        if msg.role == "assistant" and reported_usage(msg) is not None:
            check = check_prompt_tokens(agent, msg, counter)
            if check is not None:
                labels[msg.id] = check.label()
    return labels


def _summary_row(summary: str) -> str:
    return (
        '<tr class="nb-hitl-row-summary"><td>&#931;</td><td colspan="3"><details><summary>'
        f"summary: {esc(preview(summary, 80))}</summary>"
        f'<div style="white-space:pre-wrap">{esc(summary)}</div></details></td>'
        '<td></td><td><span class="nb-hitl-badge nb-hitl-badge-pinned">summary</span></td></tr>'
    )


__all__ = ["TableRows", "agent_table", "marks_for", "memory_table", "provider_labels", "row_id"]
