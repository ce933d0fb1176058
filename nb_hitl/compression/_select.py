"""Which messages a compression keeps: the planner's rules, shared by the agent and the replay.

``select_kept()`` is the one place these rules live, so ``plan_compression()`` (what the agent
does) and ``replay_compression()`` (what it would have done) cannot drift apart:

- the last ``keep_recent`` messages of the uncompressed history stay verbatim;
- a ``tool_use`` and its ``tool_result`` messages are never split: the boundary moves back to
  the ``tool_use`` message;
- the question the agent is answering and pinned messages are kept wherever they are (with
  their tool-call partners), and a tool call still waiting for its result is kept.

Messages are named in reasons by their row number (1-based), the numbering the inspector's
table uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from nb_hitl.token import MsgCount


@dataclass
class Selection:
    """What ``select_kept()`` decided, index by index of the history it was given."""

    keep: list[bool]
    """True for each message that stays verbatim."""
    boundary: int
    """Index where the kept tail starts (after moving it back to keep tool pairs whole)."""
    recent: int
    """Index where the last ``keep_recent`` messages start (before any move)."""
    why: dict[int, str] = field(default_factory=dict)
    """Why a message outside the recent tail is kept: pinned, question, partner, open call."""
    reasons: list[str] = field(default_factory=list)
    """Explanations for people (empty when ``explain`` was False)."""
    pinned: list[str] = field(default_factory=list)
    """Pinned ids present in the history."""
    protected: list[str] = field(default_factory=list)
    """Protected ids (the current question) present in the history."""


def select_kept(
    entries: Sequence[MsgCount],
    ids: Sequence[str],
    keep_recent: int,
    pinned_ids: Iterable[str] = (),
    protected_ids: Iterable[str] = (),
    *,
    numbers: Sequence[int] | None = None,
    explain: bool = True,
) -> Selection:
    """Decide which messages of a history stay verbatim when it is compressed.

    Args:
        entries: the per-message counts (only their tool-call ids are used), in history order.
        ids: the message ids, aligned with ``entries``.
        keep_recent: how many latest messages stay verbatim.
        pinned_ids: messages never to compress.
        protected_ids: the question the agent is answering (never compressed).
        numbers: the row number of each message for the reasons (default 1..n).
        explain: write ``reasons`` (the replay skips them to stay fast).
    """
    n = len(ids)
    label = numbers if numbers is not None else range(1, n + 1)
    reasons: list[str] = []
    # Tool-call spans: a tool_use message and every message answering it stay together.
    use_at: dict[str, int] = {}
    for index, entry in enumerate(entries):
        for call_id in entry.tool_use_ids:
            use_at[call_id] = index
    span_end = list(range(n))  # for each tool_use message: its last result message
    answered: set[str] = set()
    for index, entry in enumerate(entries):
        for call_id in entry.tool_result_ids:
            start = use_at.get(call_id)
            if start is not None and start < index:
                if index > span_end[start]:
                    span_end[start] = index
                answered.add(call_id)
    # Merge overlapping spans into groups: [group_start[i], group_end[i]] holds message i.
    group_start = list(range(n))
    group_end = list(range(n))
    start, end = 0, -1
    for index in range(n):
        if index > end:
            start, end = index, span_end[index]
        elif span_end[index] > end:
            end = span_end[index]
        group_start[index] = start
    for index in range(n - 2, -1, -1):
        if group_start[index + 1] == group_start[index]:
            group_end[index] = group_end[index + 1]

    recent = max(0, n - keep_recent)
    boundary = recent
    if explain:
        if n <= keep_recent:
            reasons.append(
                f"The history has {n} message(s), not more than keep_recent={keep_recent}: "
                "all are kept."
            )
        else:
            reasons.append(
                f"The last {keep_recent} message(s) are kept (keep_recent={keep_recent})."
            )
    if 0 < boundary < n and group_start[boundary] < boundary:
        moved_to = group_start[boundary]
        if explain:
            call = next(
                (c for c, at in use_at.items() if moved_to <= at < boundary and c in answered),
                "",
            )
            reasons.append(
                f"The boundary moved back from message {label[boundary]} to {label[moved_to]} "
                f"so that tool call {call} stays with its result (tool_use/tool_result pairs "
                "are never split)."
            )
        boundary = moved_to

    keep = [False] * n
    for index in range(boundary, n):
        keep[index] = True
    why: dict[int, str] = {index: "tool partner" for index in range(boundary, recent)}

    def keep_group(index: int, kind: str, text: str) -> None:
        lo, hi = group_start[index], group_end[index]
        if index < recent:
            why[index] = kind
        if all(keep[lo : hi + 1]):
            return
        for j in range(lo, hi + 1):
            if not keep[j]:
                keep[j] = True
                why.setdefault(j, "tool partner")
        if explain:
            extra = f" with its tool-call partners ({hi - lo + 1} messages)" if hi > lo else ""
            reasons.append(f"Message {label[index]} ({ids[index]}) is {text}: kept{extra}.")

    position = {msg_id: index for index, msg_id in enumerate(ids)}
    protected = [i for i in dict.fromkeys(protected_ids) if i in position]
    pinned = [i for i in dict.fromkeys(pinned_ids) if i in position]
    for msg_id in protected:
        keep_group(position[msg_id], "question", "the question the agent is answering")
    for msg_id in pinned:
        keep_group(position[msg_id], "pinned", "pinned")
    for call_id, index in use_at.items():
        if call_id not in answered and not keep[index]:
            keep_group(index, "open call", f"tool call {call_id}, which has no result yet")
    return Selection(keep, boundary, recent, why, reasons, pinned, protected)
