"""Fixtures shared by every test folder."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nb_hitl.agent import ReActAgent
from nb_hitl.model import ScriptedModel
from nb_hitl.tool import Toolkit

# The fake OpenAI server (tests/model/fake_openai_server.py) serves the model, hardening and
# AgentScope-compat tests alike: its folder is importable from every test folder.
_MODEL_TESTS = str(Path(__file__).resolve().parent / "model")
if _MODEL_TESTS not in sys.path:
    sys.path.insert(0, _MODEL_TESTS)

from fake_openai_server import FakeOpenAIServer  # noqa: E402

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from agui_servers import AguiServer, faulty_server, langgraph_server, nb_hitl_server  # noqa: E402
from db_servers import PostgresServer, RedisServer  # noqa: E402
from stored_backends import BACKENDS, Backend  # noqa: E402


@pytest.fixture(autouse=True)
def user_config_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets its own nb_hitl config dir: "always" permission rules written by one
    test never reach another, nor the developer's own ``permissions.json``."""
    path = tmp_path_factory.mktemp("nb_hitl_config")
    monkeypatch.setenv("NB_HITL_CONFIG_DIR", str(path))
    return path


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


@pytest.fixture(scope="session")
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A real HTTP server speaking the chat-completions protocol, on a free local port.

    One per session: each test selects its answers by the fresh model name ``add()`` returns.
    """
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def langgraph_agui() -> Iterator[AguiServer]:
    """A LangGraph graph on a scripted chat model, served over AG-UI by ag-ui-langgraph under
    uvicorn: a real process on a free loopback port, one per test session."""
    server = langgraph_server().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def nb_hitl_agui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AguiServer]:
    """nb_hitl's own AG-UI server (``python -m nb_hitl.serve``) over a scripted ReActAgent
    with a tool that needs approval: a real process on a free loopback port, one per session."""
    server = nb_hitl_server(tmp_path_factory.mktemp("serve_sessions")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def faulty_agui() -> Iterator[AguiServer]:
    """A misbehaving AG-UI server (drops, stalls, malformed events), one per session."""
    server = faulty_server().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server on 127.0.0.1 and a free port, one per test session."""
    server = RedisServer()
    try:
        server.start()
    except FileNotFoundError as exc:
        pytest.skip(f"REDIS TESTS SKIPPED: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL (initdb in a temporary folder) on a free port, one per session."""
    server = PostgresServer()
    try:
        server.start()
    except FileNotFoundError as exc:
        pytest.skip(f"POSTGRESQL TESTS SKIPPED: {exc}")
    try:
        yield server
    finally:
        server.stop()


def backend_location(request: pytest.FixtureRequest, kind: str, folder: Path) -> str:
    """Where a ``Backend`` of ``kind`` stores: a SQLite file, or a server started once."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{folder / 'memory.db'}"
    if kind == "postgres":
        server: PostgresServer = request.getfixturevalue("postgres_server")
        return server.url
    redis: RedisServer = request.getfixturevalue("redis_server")
    return redis.url


@pytest.fixture(params=BACKENDS)
def stored_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each database memory backend in turn: SQLite (aiosqlite), PostgreSQL, Redis."""
    return Backend(request.param, backend_location(request, request.param, tmp_path))
