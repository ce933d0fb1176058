"""Rewind and fork in the chat: Edit on a question, Regenerate on an answer, a branch switcher.

The core keeps the branches (``agent.fork``, ``edit_and_resend``, ``regenerate``,
``checkout``, ``agent.branches``); this module only draws them:

- every earlier user message gets an **Edit** button: its text goes into the box, and Send
  re-sends it on a new branch (``edit_and_resend``); every answer gets **Regenerate**;
- where branches part (a fork point), a switcher row "‹ branch 2 of 3 ›" sits right before the
  first message that differs; its arrows check out the neighbouring branch.

The buttons are plain ``<button>`` elements in the rows' HTML (focusable, Enter and Space
press them), each with ``data-nb-hitl-action`` and ``data-nb-hitl-arg``; the chat's keyboard
widget turns a click into an action message for the kernel (no comm per button). Every text
in them is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nb_hitl._render import esc
from nb_hitl.message import MetaKey

if TYPE_CHECKING:
    from nb_hitl.message import Msg

ACTION_BUTTONS = "[data-nb-hitl-action]"
"""CSS selector of the row buttons whose click the keyboard widget sends to the kernel."""
_RECORDS = ("[Interrupted]", "[Stopped]")


def supports_branches(agent: Any) -> bool:
    """Whether the agent can fork (``ReActAgent``: yes)."""
    return all(
        callable(getattr(agent, n, None)) for n in ("edit_and_resend", "regenerate", "checkout")
    )


def action_button(action: str, arg: str, label: str, title: str, *, disabled: bool = False) -> str:
    """One row button: a click sends ``action`` with ``arg`` to the kernel."""
    off = " disabled" if disabled else ""
    return (
        f'<button class="nb-hitl-action" type="button" data-nb-hitl-action="{esc(action)}" '
        f'data-nb-hitl-arg="{esc(arg)}" title="{esc(title)}" aria-label="{esc(title)}"{off}>'
        f"{esc(label)}</button>"
    )


def row_actions(msg: Msg) -> str:
    """The Edit (questions) or Regenerate (answers) button of a message row ("" if none)."""
    if msg.metadata.get(MetaKey.PANEL_ERROR) or msg.metadata.get(MetaKey.RESUME_INSTRUCTION):
        return ""
    text = msg.get_text_content() or ""
    if msg.role == "user" and text:
        button = action_button(
            "edit",
            msg.id,
            "✎ Edit",
            "Edit this message and send it again (a new branch; the current one is kept)",
        )
    elif (
        msg.role == "assistant"
        and text
        and not text.startswith(_RECORDS)
        and not msg.get_content_blocks("tool_use")  # a step, not an answer
    ):
        button = action_button(
            "regenerate",
            msg.id,
            "↻ Regenerate",
            "Answer this question again (a new branch; the current one is kept)",
        )
    else:
        return ""
    return f'<div class="nb-hitl-row-actions">{button}</div>'


def with_row_actions(msg: Msg, row_html: str) -> str:
    """``row_html`` (one outer element) with the row's buttons last inside it."""
    actions = row_actions(msg)
    if not actions or not row_html.endswith("</div>"):
        return row_html
    return row_html[: -len("</div>")] + actions + "</div>"


@dataclass(frozen=True)
class SwitchPoint:
    """Where branches part: the message they last share and the branches at that point."""

    fork_point: str | None
    """The last shared message (None: before the first message)."""
    branches: tuple[Any, ...]
    """The ``BranchInfo`` of each branch that parts there, oldest first."""
    current: int
    """Which of them memory holds now (its lineage passes through this point)."""


def switch_points(agent: Any) -> list[SwitchPoint]:
    """The fork points on the checked-out branch that have two or more branches."""
    infos = list(agent.branches)
    by_id = {b.id: b for b in infos}
    groups: dict[str | None, list[str]] = {}
    for b in infos:
        if b.parent is not None:
            members = groups.setdefault(b.fork_point, [])
            members.extend(x for x in (b.parent, b.id) if x not in members)
    lineage: list[str] = []
    branch = agent.branch
    while branch is not None and branch.id not in lineage:
        lineage.append(branch.id)
        branch = by_id.get(branch.parent) if branch.parent else None
    here = {m.id for m in agent.memory.messages}
    points = []
    for fork_point, members in groups.items():
        if fork_point is not None and fork_point not in here:
            continue
        current = next((b for b in lineage if b in members), None)
        if current is None:
            continue
        ordered = tuple(b for b in infos if b.id in members)
        index = next(i for i, b in enumerate(ordered) if b.id == current)
        points.append(SwitchPoint(fork_point, ordered, index))
    return points


def switcher_html(point: SwitchPoint) -> str:
    """The "‹ branch 2 of 3 ›" row: its arrows check out the neighbouring branches."""
    n, i = len(point.branches), point.current
    here = point.branches[i]
    before = point.branches[i - 1] if i > 0 else None
    after = point.branches[i + 1] if i + 1 < n else None

    def arrow(target: Any, label: str, where: str) -> str:
        if target is None:
            return action_button("checkout", "", label, f"No {where} branch", disabled=True)
        title = f"Switch to the {where} branch: {target.name}"
        return action_button("checkout", target.id, label, title)

    names = ", ".join(b.name for b in point.branches)
    return (
        '<div class="nb-hitl-branch-switch" role="group" aria-label="Branches at this point">'
        f"{arrow(before, '‹', 'previous')}"
        f'<span class="nb-hitl-branch-label" title="{esc("Branches here: " + names)}">'
        f"branch {i + 1} of {n} · {esc(here.name)}</span>"
        f"{arrow(after, '›', 'next')}</div>"
    )


__all__ = [
    "ACTION_BUTTONS",
    "SwitchPoint",
    "action_button",
    "row_actions",
    "supports_branches",
    "switch_points",
    "switcher_html",
    "with_row_actions",
]
