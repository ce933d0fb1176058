"""AG-UI servers for the remote-agent tests, each a real process on a free loopback port.

``AguiServer`` starts a command (the LangGraph graph through ag-ui-langgraph under uvicorn,
the misbehaving server, nb_hitl's own ``python -m nb_hitl.serve``), waits until it listens,
and stops it by its PID; ``restart()`` stops it and starts it again on the same port (a server
restart, for reconnect tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from db_servers import free_port, stop, wait_for_port

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


class AguiServer:
    """One server process; ``url`` is its run endpoint."""

    def __init__(
        self, args: list[str], what: str, path: str = "/", env: dict[str, str] | None = None
    ) -> None:
        self.args = args
        self.env = dict(env or {})
        self.what = what
        self.port = free_port()
        self.path = path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def start(self) -> AguiServer:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]), **self.env)
        argv = [sys.executable, *[a.replace("{port}", str(self.port)) for a in self.args]]
        self.proc = subprocess.Popen(
            argv, cwd=str(TESTS), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.port, self.proc, self.what, timeout=60)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


def langgraph_server(delay: float = 0.02) -> AguiServer:
    """The scripted LangGraph graph (``nb_hitl.demo.remote``) behind ag-ui-langgraph."""
    args = ["-m", "nb_hitl.demo.remote", "--port", "{port}", "--delay", str(delay)]
    return AguiServer(args, "the LangGraph AG-UI server")


def faulty_server() -> AguiServer:
    """The misbehaving server (``faulty_agui_server.py``); pick a fault by URL path."""
    return AguiServer([str(TESTS / "faulty_agui_server.py"), "{port}"], "the faulty server")


def nb_hitl_server(sessions: Path, tokens_per_second: float = 50.0) -> AguiServer:
    """nb_hitl's own server (``python -m nb_hitl.serve``) over ``nb_hitl.demo.remote``'s agent,
    threads saved as JSON files in ``sessions`` (so a restart keeps them)."""
    args = [
        "-m",
        "nb_hitl.serve",
        "nb_hitl.demo.remote:nb_hitl_agent",
        "--port",
        "{port}",
        "--sessions",
        str(sessions),
    ]
    return AguiServer(
        args, "nb_hitl's AG-UI server", env={"NB_HITL_DEMO_TPS": str(tokens_per_second)}
    )
