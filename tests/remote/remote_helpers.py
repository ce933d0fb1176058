"""What the remote panel tests share: the ``attach`` fixture's type, and waits (each a failure
guard, not a timing assertion)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from widget_helpers import until

from nb_hitl.remote import RemoteAgent
from nb_hitl.widgets import AgentPanel, ApprovalCard, QuestionCard

Attach = Callable[..., tuple[RemoteAgent, AgentPanel]]
"""The ``attach`` fixture (tests/remote/conftest.py): ``attach(url, thread_id=None, **options)``."""
_Card = TypeVar("_Card", covariant=True)


async def idle(panel: AgentPanel) -> None:
    """Until the reply is over and the chat says so (idle, or an error)."""
    await until(
        lambda: not panel.agent.is_replying and panel.chat.state in ("idle", "error"),
        timeout=30,
        what="the chat to turn idle",
    )


class _Cards(Protocol[_Card]):
    @property
    def waiting(self) -> list[_Card]: ...


async def _parked(panel: AgentPanel, text: str, cards: _Cards[_Card] | None, what: str) -> _Card:
    assert cards is not None
    panel.chat.send(text)
    await until(lambda: cards.waiting, what=what)
    return cards.waiting[0]


async def approval_card(panel: AgentPanel, text: str) -> ApprovalCard:
    """Send ``text`` and return the approval card the reply parks on."""
    return await _parked(panel, text, panel.chat.approvals, "the approval card")


async def question_form(panel: AgentPanel, text: str) -> QuestionCard:
    """Send ``text`` and return the question form the reply parks on."""
    return await _parked(panel, text, panel.chat.questions, "the question form")
