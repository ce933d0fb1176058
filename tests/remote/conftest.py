"""The remote-agent tests: panels attached to real AG-UI servers (``attach``), and the
headless widget helpers (tests/widgets/widget_helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

_WIDGETS = str(Path(__file__).resolve().parents[1] / "widgets")
if _WIDGETS not in sys.path:
    sys.path.insert(0, _WIDGETS)

from remote_helpers import Attach  # noqa: E402

from nb_hitl.remote import RemoteAgent  # noqa: E402
from nb_hitl.widgets import AgentPanel  # noqa: E402


@pytest.fixture
async def attach() -> AsyncIterator[Attach]:
    """``attach(url, thread_id=None, **options)``: a ``RemoteAgent`` on ``url`` (a fresh
    thread unless named; options as ``RemoteAgent`` takes them, the name "Friday" by default)
    and its ``AgentPanel`` without a session, as ``show()`` makes it. Every agent made is closed
    after the test, also when it fails."""
    made: list[RemoteAgent] = []

    def make(
        url: str, thread_id: str | None = None, **options: Any
    ) -> tuple[RemoteAgent, AgentPanel]:
        agent = RemoteAgent(url, thread_id, **{"name": "Friday", **options})
        made.append(agent)
        return agent, AgentPanel(agent, session=None)

    yield make
    for agent in made:
        await agent.aclose()
