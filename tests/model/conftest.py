"""Fixtures for the OpenAI-compatible adapter tests (the fake server is tests/conftest.py's)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer

from nb_hitl.model import OpenAIChatModel


@pytest.fixture
async def make_model(
    fake_server: FakeOpenAIServer,
) -> AsyncIterator[Callable[..., OpenAIChatModel]]:
    """Build ``OpenAIChatModel``s pointed at the fake server; their pools close afterwards."""
    models: list[OpenAIChatModel] = []

    def build(model_name: str, **kwargs: Any) -> OpenAIChatModel:
        kwargs.setdefault("base_url", fake_server.base_url)
        kwargs.setdefault("api_key", "sk-test-not-a-real-key-0123456789")
        kwargs.setdefault("retry_base_delay", 0.01)
        kwargs.setdefault("timeout", 10.0)
        model = OpenAIChatModel(model_name, **kwargs)
        models.append(model)
        return model

    yield build
    for model in models:
        await model.aclose()
