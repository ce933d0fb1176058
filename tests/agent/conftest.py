"""Fixtures shared by the agent tests."""

from __future__ import annotations

import pytest

from nb_hitl.demo import long_task_transcript
from nb_hitl.message import Msg


@pytest.fixture
def long_task() -> list[Msg]:
    """The shipped 50-turn transcript (109 messages), fresh for each test."""
    return long_task_transcript()
