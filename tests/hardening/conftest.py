"""The hostile-input suite reuses the widget helpers and the fake OpenAI server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in ("widgets", "model"):
    path = str(HERE.parent / folder)
    if path not in sys.path:
        sys.path.append(path)

import pytest  # noqa: E402
from fake_openai_server import FakeOpenAIServer  # noqa: E402


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A real HTTP server speaking the chat-completions protocol, on a free local port."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()
