"""``python -m nb_hitl.serve module:factory [--host H] [--port P] [--token T] ...``.

The factory (``package.module:name``) is a function that builds an agent (called with the thread
id when it has a ``thread_id`` or a required first parameter), or an agent instance.
``--redis URL`` saves threads in Redis, so
several workers (``--workers N``) or server processes share them; otherwise they are saved as
JSON files in ``--sessions DIR``. With ``--workers`` above 1, uvicorn imports the app in each
worker: the settings travel in ``$NB_HITL_SERVE_CONFIG``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any
from urllib.parse import urlparse

from nb_hitl.exceptions import ConfigError

from ._app import DEFAULT_MAX_BODY, create_app
from ._serve import DEFAULT_SESSIONS_DIR, TOKEN_ENV, check_bind, default_session

__all__ = ["app_from_env", "load_target", "main"]

CONFIG_ENV = "NB_HITL_SERVE_CONFIG"


def load_target(spec: str) -> Any:
    """The object ``module:name`` names (``name`` may be dotted)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{spec!r} is not module:factory (e.g. my_agents:make_agent).")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the caller's modules import
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"Cannot import {module_name!r}: {exc}.") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{module_name!r} has no attribute {attr!r}.") from None
    return obj


def _session(settings: dict[str, Any]) -> Any:
    if settings.get("no_save"):
        return None
    redis_url = settings.get("redis")
    if redis_url:
        from nb_hitl.session import RedisSession

        url = urlparse(redis_url)
        if url.scheme not in ("redis", "rediss"):
            raise ConfigError(f"--redis takes redis://host:port/db, got {redis_url!r}.")
        db = int(url.path.strip("/") or 0)
        return RedisSession(
            host=url.hostname or "127.0.0.1",
            port=url.port or 6379,
            db=db,
            password=url.password,
            key_prefix=settings.get("redis_prefix") or "nb_hitl:serve:",
        )
    return default_session(settings.get("sessions") or DEFAULT_SESSIONS_DIR)


def _app(settings: dict[str, Any]) -> Any:
    return create_app(
        load_target(settings["target"]),
        session=_session(settings),
        token=settings.get("token") or os.environ.get(TOKEN_ENV) or None,
        cors_origins=settings.get("cors") or (),
        max_body_bytes=int(settings.get("max_body_bytes") or DEFAULT_MAX_BODY),
        path=settings.get("path") or "",
        run_lock_ttl=float(settings.get("run_lock_ttl") or 30.0),
    )


def app_from_env() -> Any:
    """The app each uvicorn worker builds (``--workers N``), from ``$NB_HITL_SERVE_CONFIG``."""
    return _app(json.loads(os.environ[CONFIG_ENV]))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m nb_hitl.serve",
        description="Serve nb_hitl agents over AG-UI (docs/serve.md).",
    )
    p.add_argument("target", help="module:factory, a function that builds an agent")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--token",
        default=None,
        help=f"require Authorization: Bearer TOKEN (or set ${TOKEN_ENV}); "
        "needed for any non-loopback --host",
    )
    p.add_argument("--sessions", default=DEFAULT_SESSIONS_DIR, help="JSONSession folder")
    p.add_argument("--redis", default=None, help="save threads in Redis: redis://host:port/db")
    p.add_argument("--redis-prefix", default="nb_hitl:serve:")
    p.add_argument(
        "--run-lock-ttl",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="with --redis: how long a killed worker's run lock on a thread lasts (default 30)",
    )
    p.add_argument("--no-save", action="store_true", help="keep threads in memory only")
    p.add_argument(
        "--workers", type=int, default=1, help="uvicorn worker processes (needs --redis)"
    )
    p.add_argument(
        "--cors",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow this browser origin (repeatable); none by default",
    )
    p.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY)
    p.add_argument("--path", default="", help="prefix of every route")
    p.add_argument("--log-level", default="warning")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the server; returns the exit status (2: refused settings)."""
    import uvicorn

    args = _parser().parse_args(argv)
    token = args.token or os.environ.get(TOKEN_ENV) or None
    settings = {
        "target": args.target,
        "sessions": args.sessions,
        "redis": args.redis,
        "redis_prefix": args.redis_prefix,
        "no_save": args.no_save,
        "cors": args.cors,
        "max_body_bytes": args.max_body_bytes,
        "path": args.path,
        "run_lock_ttl": args.run_lock_ttl,
    }
    try:
        check_bind(args.host, token)
        if args.run_lock_ttl <= 0:
            raise ConfigError(f"--run-lock-ttl must be above 0 seconds, got {args.run_lock_ttl}.")
        if args.workers > 1 and not args.redis:
            raise ConfigError(
                "--workers above 1 needs --redis URL: each worker must load the threads "
                "the others saved (JSON files are not shared safely)."
            )
        if args.workers > 1:
            # the token goes through the environment, never the command line
            os.environ[CONFIG_ENV] = json.dumps(settings)
            if token:
                os.environ[TOKEN_ENV] = token
            uvicorn.run(
                "nb_hitl.serve._cli:app_from_env",
                factory=True,
                host=args.host,
                port=args.port,
                workers=args.workers,
                log_level=args.log_level,
            )
            return 0
        app = _app({**settings, "token": token})
    except ConfigError as exc:
        print(f"nb_hitl.serve: {exc}", file=sys.stderr)
        return 2
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
