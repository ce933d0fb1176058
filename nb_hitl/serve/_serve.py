"""``serve(agent_or_factory, host, port)``: run the AG-UI app under uvicorn.

Outside an event loop (a script, ``python -m nb_hitl.serve``) it blocks until stopped (Ctrl-C).
Inside a running loop (a notebook cell) it starts the server as a task on that loop and
returns a ``RunningServer`` at once: ``server.url``, ``await server.stop()``.

Binding anything but loopback needs a token: the server refuses to start otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_hitl.exceptions import ConfigError

from ._app import DEFAULT_MAX_BODY, create_app

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.session import SessionBase

    from ._server import AgentServer
    from ._threads import AgentFactory

__all__ = [
    "DEFAULT_SESSIONS_DIR",
    "TOKEN_ENV",
    "RunningServer",
    "check_bind",
    "is_loopback",
    "serve",
]

DEFAULT_SESSIONS_DIR = ".nb_hitl/sessions"
"""Where threads are saved (``JSONSession``) unless another session store is given."""
TOKEN_ENV = "NB_HITL_SERVE_TOKEN"
"""The environment variable the token may come from (keeps it out of the process list)."""
_DEFAULT: Any = object()


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token (``ConfigError`` saying what to do)."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"Refusing to listen on {host!r} without a token: anyone who can reach that "
            f"address could drive the agent. Pass token=... (--token, or ${TOKEN_ENV}), and "
            "clients send `Authorization: Bearer <token>`; or bind 127.0.0.1."
        )
    if token is not None and len(token) < 16:
        raise ConfigError(
            "The token is too short: use 16 or more random characters "
            "(python -c 'import secrets; print(secrets.token_urlsafe(24))')."
        )


def default_session(sessions_dir: str | os.PathLike[str] = DEFAULT_SESSIONS_DIR) -> SessionBase:
    """A ``JSONSession`` in ``sessions_dir`` (created on first save)."""
    from nb_hitl.session import JSONSession

    return JSONSession(save_dir=str(Path(sessions_dir)))


class RunningServer:
    """A server started by ``serve()`` inside a running event loop (a notebook)."""

    def __init__(self, server: Any, host: str, port: int, path: str) -> None:
        self.uvicorn = server
        self.host = host
        self.port = port
        self.url = f"http://{host if ':' not in host else f'[{host}]'}:{port}{path or '/'}"
        """The run endpoint (give it to ``RemoteAgent``)."""
        self.task: asyncio.Task[None] = asyncio.get_running_loop().create_task(server.serve())

    async def started(self, timeout: float = 10.0) -> RunningServer:
        """Wait until the server accepts connections."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not self.uvicorn.started:
            if self.task.done():
                self.task.result()
                raise RuntimeError("the server stopped before it started")
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"the server did not start within {timeout} s")
            await asyncio.sleep(0.02)
        return self

    async def stop(self) -> None:
        """Stop the server (running replies are interrupted) and wait until it has."""
        self.uvicorn.should_exit = True
        await self.task

    def __repr__(self) -> str:
        state = "stopped" if self.task.done() else "running"
        return f"<RunningServer {self.url} {state}>"


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def serve(
    agent_or_factory: AgentBase | AgentFactory | AgentServer,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    token: str | None = None,
    session: SessionBase | None = _DEFAULT,
    sessions_dir: str | os.PathLike[str] = DEFAULT_SESSIONS_DIR,
    cors_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY,
    path: str = "",
    log_level: str = "warning",
    permissions_file: str | os.PathLike[str] | Callable[[str], Any] | None = None,
) -> RunningServer | None:
    """Serve nb_hitl agents over AG-UI with uvicorn (see docs/serve.md).

    Args:
        agent_or_factory: a function building a fresh agent per thread id (called with the
            thread id when it has a ``thread_id`` or a required first parameter), or one
            agent instance (one thread).
        host: where to listen; anything but loopback needs ``token``.
        port: the port (0: a free one).
        token: every request must send ``Authorization: Bearer <token>``; defaults to
            ``$NB_HITL_SERVE_TOKEN`` when that is set.
        session: where threads are saved; by default a ``JSONSession`` in ``sessions_dir``;
            ``None`` keeps them in memory only; a ``RedisSession`` lets several workers
            share threads (one run per thread among them; any worker's stop route stops it).
        sessions_dir: the default ``JSONSession``'s folder.
        cors_origins: browser origins allowed to call (none by default: no CORS headers).
        max_body_bytes: larger request bodies are refused (413).
        path: a prefix for every route.
        log_level: uvicorn's log level.
        permissions_file: each served agent's own permission rules file (a path, or
            ``f(thread_id) -> path``) instead of the process-wide ``$NB_HITL_CONFIG_DIR``
            one: its ``always`` rules are read from and written there.

    Returns:
        None after the server stopped (no running loop), or a ``RunningServer`` at once when
        called inside a running event loop (a notebook cell).

    Raises:
        ConfigError: a non-loopback ``host`` without a token, or a token under 16 characters.
    """
    import uvicorn

    token = token if token is not None else (os.environ.get(TOKEN_ENV) or None)
    check_bind(host, token)
    if session is _DEFAULT:
        session = default_session(sessions_dir)
    app = create_app(
        agent_or_factory,
        session=session,
        token=token,
        cors_origins=cors_origins,
        max_body_bytes=max_body_bytes,
        path=path,
        permissions_file=permissions_file,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        uvicorn.run(app, host=host, port=port, log_level=log_level)
        return None
    port = port or _free_port(host)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level)
    server = uvicorn.Server(config)
    # The kernel's SIGINT handling stays the kernel's: uvicorn would take it while serving.
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    return RunningServer(server, host, port, "/" + path.strip("/") if path.strip("/") else "")
