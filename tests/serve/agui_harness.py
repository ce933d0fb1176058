"""Real nb_hitl AG-UI servers for the tests (``python -m nb_hitl.serve``) and a small client.

``ServeProcess`` starts the server as a process of its own on 127.0.0.1 and a free port, serving
``agui_agents:make_agent``, and stops it by its PID. ``run()`` posts a ``RunAgentInput``
with httpx and parses the SSE stream, validating every event with the SDK's own types.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from ag_ui.core import Event
from db_servers import free_port, stop, wait_for_port
from pydantic import TypeAdapter

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EVENT: TypeAdapter[Any] = TypeAdapter(Event)
TOKEN = "test-token-0123456789abcdef"


class ServeProcess:
    """``python -m nb_hitl.serve agui_agents:make_agent`` on a free loopback port."""

    def __init__(self, *args: str, tps: float = 200.0, port: int = 0) -> None:
        self.args = list(args)
        self.tps = tps
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = b""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServeProcess:
        self.port = self.port or free_port()
        path = os.pathsep.join([str(REPO), str(HERE)])
        env = {**os.environ, "NB_HITL_TEST_TPS": str(self.tps), "PYTHONPATH": path}
        cmd = [sys.executable, "-m", "nb_hitl.serve", "agui_agents:make_agent"]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), *self.args]
        self.log_file = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=self.log_file
        )
        try:
            wait_for_port(self.port, self.proc, "nb_hitl.serve", 30)
        except RuntimeError:
            self.stop()
            raise RuntimeError(f"server failed: {self.log.decode(errors='replace')}") from None
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.log_file.seek(0)
            self.log = self.log_file.read()
            self.log_file.close()
            self.proc = None


def user(text: str) -> dict[str, Any]:
    return {"id": "u-" + uuid.uuid4().hex[:12], "role": "user", "content": text}


def body(thread: str, *messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": "r-" + uuid.uuid4().hex[:8],
        "messages": list(messages),
        **extra,
    }


def headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def run(
    url: str,
    data: dict[str, Any],
    *,
    token: str | None = None,
    on_event: Callable[[dict[str, Any]], bool | None] | None = None,
) -> list[dict[str, Any]]:
    """The run's events (JSON, each validated as an AG-UI event). ``on_event`` returning True
    closes the connection there (a client that goes away)."""
    out: list[dict[str, Any]] = []
    with httpx.Client(timeout=60) as client:
        with client.stream("POST", url + "/", json=data, headers=headers(token)) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[6:])
                EVENT.validate_python(event)
                out.append(event)
                if on_event is not None and on_event(event):
                    break
    return out


def history(url: str, thread: str, token: str | None = None) -> dict[str, Any]:
    r = httpx.get(f"{url}/threads/{thread}/messages", headers=headers(token), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def streamed_text(events: list[dict[str, Any]], message_id: str) -> str:
    return "".join(
        e["delta"]
        for e in events
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] == message_id
    )


def finished(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    return events[-1]


def serve_session(*args: str, **kwargs: Any) -> Iterator[ServeProcess]:
    server = ServeProcess(*args, **kwargs).start()
    try:
        yield server
    finally:
        server.stop()
