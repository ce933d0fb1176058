"""The Starlette app: AG-UI routes over an ``AgentServer``, with the token, CORS and size limit.

Routes (under ``path``): ``POST /`` runs (SSE), ``POST /threads/{id}/interrupt`` stops,
``POST /threads/{id}/steer`` steers, ``GET /threads/{id}/messages`` is the history,
``GET /info`` the capabilities. Every request is checked against the token first (when there
is one) with a constant-time compare; bodies over ``max_body_bytes`` are refused before they
are read whole; CORS headers are sent only for the origins given.
"""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from nb_hitl.exceptions import ServeError

from ._server import AgentServer
from ._threads import PermissionsFile

if TYPE_CHECKING:
    from nb_hitl.agent import AgentBase
    from nb_hitl.session import SessionBase

    from ._threads import AgentFactory

__all__ = ["DEFAULT_MAX_BODY", "create_app"]

DEFAULT_MAX_BODY = 1024 * 1024
"""Largest request body accepted, in bytes (1 MiB)."""


def error_response(exc: ServeError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return JSONResponse({"error": exc.message, "code": exc.code}, exc.status, headers=headers)


class TokenGate:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                given = value[7:].strip()
        if not hmac.compare_digest(given, self.token):
            what = "a wrong token" if given else "no token"
            response = error_response(
                ServeError(
                    401,
                    "unauthorized",
                    f"This server needs a token and the request had {what}: send the header "
                    "`Authorization: Bearer <token>` with the token the server was started "
                    "with (--token / $NB_HITL_SERVE_TOKEN).",
                )
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def _body(request: Request, limit: int) -> Any:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise ServeError(413, "too_large", _too_large(int(length), limit))
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServeError(413, "too_large", _too_large(size, limit))
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServeError(
            400, "bad_json", f"The body is not JSON ({exc}); send a JSON object."
        ) from None


def _too_large(size: int, limit: int) -> str:
    return (
        f"The request body is {size} bytes or more; this server accepts at most {limit} "
        "(max_body_bytes / --max-body-bytes). Send less history: the server keeps the "
        "thread's messages, only new ones are needed."
    )


def _object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ServeError(422, "bad_input", "The body must be a JSON object.")
    return data


def create_app(
    agent_or_factory: AgentBase | AgentFactory | AgentServer,
    *,
    session: SessionBase | None = None,
    token: str | None = None,
    cors_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY,
    path: str = "",
    max_idle_threads: int = 1000,
    run_lock_ttl: float = 30.0,
    permissions_file: PermissionsFile | None = None,
) -> Starlette:
    """The ASGI app serving ``agent_or_factory`` over AG-UI, to embed or to run with uvicorn.

    Args:
        agent_or_factory: a function building a fresh agent per thread (called with the
            thread id when it has a ``thread_id`` or a required first parameter), one agent
            instance (one thread), or an
            ``AgentServer``.
        session: where threads are saved (``JSONSession``, ``RedisSession``, any
            ``SessionBase``); None keeps them in this process only.
        token: when given, every request needs ``Authorization: Bearer <token>``.
        cors_origins: origins a browser page may call from (none: no CORS headers at all).
        max_body_bytes: larger request bodies are refused with 413.
        path: prefix of every route (``"/agent"``: runs at ``POST /agent``).
        max_idle_threads: idle threads kept in memory (others load again from ``session``).
        run_lock_ttl: with a ``RedisSession``, seconds a run lock outlives its worker's last
            renewal (one run per thread among all the workers; a killed worker's lock expires).
        permissions_file: each served agent's own permission rules file (a path, or
            ``f(thread_id) -> path``) instead of the process-wide user file.

    The app's ``state.server`` is the ``AgentServer``.
    """
    server = (
        agent_or_factory
        if isinstance(agent_or_factory, AgentServer)
        else AgentServer(
            agent_or_factory,
            session,
            max_idle_threads=max_idle_threads,
            run_lock_ttl=run_lock_ttl,
            permissions_file=permissions_file,
        )
    )
    prefix = "/" + path.strip("/") if path.strip("/") else ""

    async def run(request: Request) -> Response:
        try:
            data = _object(await _body(request, max_body_bytes))
            try:
                agent_input = RunAgentInput.model_validate(data)
            except ValidationError as exc:
                raise ServeError(
                    422,
                    "bad_input",
                    "The body is not an AG-UI RunAgentInput (threadId, runId, messages, ...): "
                    + "; ".join(
                        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                        for e in exc.errors()[:5]
                    ),
                ) from None
            active = await server.start_run(agent_input)
        except ServeError as exc:
            return error_response(exc)
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(active.stream(), media_type="text/event-stream", headers=headers)

    async def interrupt(request: Request) -> Response:
        try:
            body = _object(await _body(request, max_body_bytes))
            run_id = body.get("runId") if isinstance(body.get("runId"), str) else None
            return JSONResponse(await server.interrupt(request.path_params["thread_id"], run_id))
        except ServeError as exc:
            return error_response(exc)

    async def steer(request: Request) -> Response:
        try:
            body = _object(await _body(request, max_body_bytes))
            result = await server.steer(request.path_params["thread_id"], body)
            return JSONResponse(result, 202)
        except ServeError as exc:
            return error_response(exc)

    async def messages(request: Request) -> Response:
        try:
            return JSONResponse(await server.history(request.path_params["thread_id"]))
        except ServeError as exc:
            return error_response(exc)

    async def info(request: Request) -> Response:
        return JSONResponse(server.info())

    async def not_found(request: Request, exc: Exception) -> Response:
        return error_response(
            ServeError(
                404,
                "not_found",
                f"No route {request.method} {request.url.path}. Runs: POST {prefix or '/'}; "
                f"GET {prefix}/info lists what this server does.",
            )
        )

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return error_response(
            ServeError(405, "method_not_allowed", f"{request.method} is not allowed here.")
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await server.aclose()

    middleware = []
    if cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "accept"],
            )
        )
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    routes = [
        Route(prefix or "/", run, methods=["POST"]),
        Route(f"{prefix}/threads/{{thread_id}}/interrupt", interrupt, methods=["POST"]),
        Route(f"{prefix}/threads/{{thread_id}}/steer", steer, methods=["POST"]),
        Route(f"{prefix}/threads/{{thread_id}}/messages", messages, methods=["GET"]),
        Route(f"{prefix}/info", info, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={404: not_found, 405: not_allowed},
        lifespan=lifespan,
    )
    app.state.server = server
    return app
