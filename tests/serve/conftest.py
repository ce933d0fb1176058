"""One nb_hitl AG-UI server per test session (JSON sessions in a temporary folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agui_harness import ServeProcess, serve_session


@pytest.fixture(scope="session")
def agui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """The shared server: 200 tokens/s, a 64 KiB body limit, no token, no CORS."""
    folder: Path = tmp_path_factory.mktemp("agui-sessions")
    yield from serve_session("--sessions", str(folder), "--max-body-bytes", "65536")
