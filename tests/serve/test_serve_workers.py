"""Two server processes sharing a Redis: one run per thread among them (the run lock), a stop
through either worker's route, and a killed worker's lock that expires."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agui_harness import ServeProcess, body, finished, history, run, user
from db_servers import RedisServer

LOCK_TTL = "4"  # seconds a killed worker's run lock outlives it


@pytest.fixture
def pair(redis_server: RedisServer) -> Iterator[tuple[ServeProcess, ServeProcess]]:
    """Two servers on one Redis prefix, streaming slowly (a long answer takes seconds)."""
    prefix = f"lock{time.monotonic_ns()}:"
    args = ("--redis", redis_server.url, "--redis-prefix", prefix, "--run-lock-ttl", LOCK_TTL)
    a, b = ServeProcess(*args, tps=80), ServeProcess(*args, tps=80)
    a.start()
    try:
        b.start()
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()
    for server in (a, b):
        assert b"Traceback" not in server.log, server.log.decode(errors="replace")


class Streaming:
    """A run streaming in a thread of its own; ``started`` is set at its first token."""

    def __init__(self, url: str, data: dict[str, Any]) -> None:
        self.started = threading.Event()
        self.events: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(url, data), daemon=True)
        self.thread.start()
        assert self.started.wait(60), (self.error, self.events)

    def _on(self, event: dict[str, Any]) -> None:
        if event["type"] == "TEXT_MESSAGE_CONTENT":
            self.started.set()

    def _run(self, url: str, data: dict[str, Any]) -> None:
        try:
            self.events = run(url, data, on_event=self._on)
        except BaseException as exc:  # the server went away (killed)
            self.error = exc
            self.started.set()

    def join(self) -> list[dict[str, Any]]:
        self.thread.join(60)
        assert not self.thread.is_alive()
        return self.events


def _post_run(url: str, data: dict[str, Any]) -> httpx.Response:
    return httpx.post(url + "/", json=data, timeout=60)


def test_a_run_streaming_on_one_worker_refuses_runs_on_another_and_stops_through_it(
    pair: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = pair
    thread = f"busy-{time.monotonic_ns()}"
    run(a.url, body(thread, user("hello")))
    first = body(thread, user("long please"))
    streaming = Streaming(a.url, first)
    # a second run, on the other worker and on the same one: the same 409
    on_b = _post_run(b.url, body(thread, user("me too")))
    on_a = _post_run(a.url, body(thread, user("me too")))
    assert on_b.status_code == on_a.status_code == 409
    assert on_b.json() == on_a.json()
    assert on_b.json()["code"] == "busy" and first["runId"] in on_b.json()["error"]
    # a stop naming another run is refused, and stops nothing
    wrong = httpx.post(f"{b.url}/threads/{thread}/interrupt", json={"runId": "r-x"}, timeout=30)
    assert wrong.status_code == 409 and wrong.json()["code"] == "other_run"
    # the stop route of the worker that does not stream the run stops it
    r = httpx.post(f"{b.url}/threads/{thread}/interrupt", json={}, timeout=30)
    assert r.status_code == 200 and r.json() == {"interrupted": True, "runId": first["runId"]}
    events = streaming.join()
    assert finished(events)["outcome"] == {"type": "cancelled"}
    saved = history(b.url, thread)
    assert saved["messages"] == history(a.url, thread)["messages"]
    assert saved["messages"][-1]["metadata"]["_is_interrupted"] is True
    assert saved["messages"][-2]["metadata"]["_partial"] is True
    assert not saved["running"]
    # the next run (Continue, on b) continues the interrupted answer
    events = run(b.url, body(thread))
    assert finished(events)["outcome"]["type"] == "success"
    after = history(a.url, thread)["messages"]
    assert after[-1]["metadata"]["continued_by"] and after[-1]["content"].endswith("word399")
    r = httpx.post(f"{a.url}/threads/{thread}/interrupt", json={}, timeout=30)
    assert r.json() == {"interrupted": False, "reason": "no run in progress"}


def test_a_killed_workers_run_lock_expires_and_the_thread_runs_again(
    pair: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = pair
    thread = f"killed-{time.monotonic_ns()}"
    run(a.url, body(thread, user("hello")))
    streaming = Streaming(a.url, body(thread, user("long please")))
    assert a.proc is not None
    os.kill(a.proc.pid, signal.SIGKILL)  # mid-run: nothing is released or saved
    a.proc.wait(30)
    streaming.join()
    assert streaming.error is not None or streaming.events[-1]["type"] != "RUN_FINISHED"
    refused = _post_run(b.url, body(thread, user("anyone?")))
    assert refused.status_code == 409 and refused.json()["code"] == "busy"
    deadline = time.monotonic() + 60
    while True:  # the lock expires (no worker renews it): the thread takes a run again
        time.sleep(0.5)
        r = _post_run(b.url, body(thread, user("anyone?")))
        if r.status_code != 409 or time.monotonic() > deadline:
            break
    assert r.status_code == 200, r.text
    events = run(b.url, body(thread, user("still here")))
    assert finished(events)["outcome"] == {"type": "success"}
    texts = [m["content"] for m in history(b.url, thread)["messages"]]
    assert texts[:2] == ["hello", "You said: hello"] and texts[-1] == "You said: still here"
