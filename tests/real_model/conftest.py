"""Fixtures for the end-to-end tests against a real model (llama.cpp serving SmolLM2-135M).

Every test here is marked ``real_model`` (deselect with ``-m "not real_model"``). When
llama-cpp-python or the model file is missing they skip, with a reason that says what to install.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from llama_server import LlamaServer, missing_reason

from nb_hitl.model import OpenAIChatModel


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """One llama.cpp server for the session, started and stopped by PID."""
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    server = LlamaServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def smol(llama_server: LlamaServer) -> AsyncIterator[OpenAIChatModel]:
    """An ``OpenAIChatModel`` on the local server: short, deterministic replies."""
    model = OpenAIChatModel(
        "smollm2",
        base_url=llama_server.base_url,
        timeout=60.0,
        generate_kwargs={"max_tokens": 48, "temperature": 0.0, "seed": 1},
    )
    yield model
    await model.aclose()
