"""Fixtures shared by every test folder."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.tool import Toolkit


@pytest.fixture
def make_agent() -> Callable[..., ReActAgent]:
    """Build a ReActAgent on a ScriptedModel script."""

    def build(
        script: list | None = None,
        *,
        toolkit: Toolkit | None = None,
        tokens_per_second: float = 2000.0,
        **kwargs: object,
    ) -> ReActAgent:
        model = ScriptedModel(script, tokens_per_second=tokens_per_second)
        return ReActAgent("Friday", "You are a test agent.", model, toolkit=toolkit, **kwargs)

    return build
