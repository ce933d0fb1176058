"""Threads outlive the server process: a restart brings a thread's history back from the
session store, and two server processes sharing a Redis take turns on one thread (a parked
approval or question included), as several workers do."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agui_harness import ServeProcess, body, finished, history, run, user
from db_servers import RedisServer


def _thread(name: str) -> str:
    return f"{name}-{time.monotonic_ns()}"


def test_after_a_restart_the_thread_history_comes_back(tmp_path: Path) -> None:
    server = ServeProcess("--sessions", str(tmp_path)).start()
    thread = _thread("restart")
    try:
        run(server.url, body(thread, user("first words")))
        parked = run(server.url, body(thread, user("approve this")))
        assert finished(parked)["outcome"]["type"] == "interrupt"
        before = history(server.url, thread)
    finally:
        server.stop()
    assert not server.log.strip() or b"Traceback" not in server.log, server.log
    server.start()  # the same folder, a new process (and port)
    try:
        after = history(server.url, thread)
        assert after["messages"] == before["messages"] and after["exists"]
        assert [i["id"] for i in after["interrupts"]] == ["call_w2"]
        # the parked approval resumes in the new process, and the run's snapshot is the thread
        resume = [
            {"interruptId": "call_w2", "status": "resolved", "payload": {"decision": "approve"}}
        ]
        events = run(server.url, body(thread, resume=resume))
        assert [m["id"] for m in events[1]["messages"]] == [m["id"] for m in before["messages"]]
        assert finished(events)["outcome"] == {"type": "success"}
        assert history(server.url, thread)["messages"][-1]["content"] == "Done: wrote 'note 2'"
    finally:
        server.stop()


@pytest.fixture
def two_workers(redis_server: RedisServer) -> Iterator[tuple[ServeProcess, ServeProcess]]:
    prefix = f"test{time.monotonic_ns()}:"
    args = ("--redis", redis_server.url, "--redis-prefix", prefix)
    a, b = ServeProcess(*args), ServeProcess(*args)
    a.start()
    try:
        b.start()
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()


def _texts(saved: dict[str, Any]) -> list[str]:
    return [m.get("content") or "" for m in saved["messages"]]


def test_two_workers_sharing_a_redis_take_turns_on_a_thread(
    two_workers: tuple[ServeProcess, ServeProcess],
) -> None:
    a, b = two_workers
    thread = _thread("workers")
    run(a.url, body(thread, user("hello from a")))
    events = run(b.url, body(thread, user("hello from b")))  # b loads what a saved
    assert [m["content"] for m in events[1]["messages"]] == [
        "hello from a",
        "You said: hello from a",
        "hello from b",
    ]
    # a parked approval on a, resumed on b
    outcome = finished(run(a.url, body(thread, user("approve it"))))["outcome"]
    assert outcome["interrupts"][0]["id"] == "call_w3"
    assert history(b.url, thread)["interrupts"][0]["id"] == "call_w3"
    resume = [{"interruptId": "call_w3", "status": "resolved", "payload": {"decision": "approve"}}]
    events = run(b.url, body(thread, resume=resume))
    assert finished(events)["outcome"] == {"type": "success"}
    # a question asked on b, answered on a (a's agent is stale: it loads the thread again)
    outcome = finished(run(b.url, body(thread, user("ask me"))))["outcome"]
    assert outcome["interrupts"][0]["id"] == "call_q4"
    answer = [
        {
            "interruptId": "call_q4",
            "status": "resolved",
            "payload": {"answers": {"Which colour?": "blue"}},
        }
    ]
    events = run(a.url, body(thread, resume=answer))
    assert finished(events)["outcome"] == {"type": "success"}
    on_a, on_b = history(a.url, thread), history(b.url, thread)
    assert on_a["messages"] == on_b["messages"]
    assert _texts(on_a)[-1] == 'Done: {"Which colour?": "blue"}'
    assert "Done: wrote 'note 3'" in _texts(on_a)
    ids = [m["id"] for m in on_a["messages"]]
    assert len(ids) == len(set(ids))
    # Stop a reply parked on a, through b: b loads it, stops it, and a follows
    parked = finished(run(a.url, body(thread, user("approve once more"))))["outcome"]
    assert parked["interrupts"][0]["id"] == "call_w5"
    r = httpx.post(f"{b.url}/threads/{thread}/interrupt", json={}, timeout=30)
    assert r.status_code == 200 and r.json()["interrupted"] is True
    on_a = history(a.url, thread)
    assert on_a["interrupts"] == [] and on_a["messages"] == history(b.url, thread)["messages"]
    assert on_a["messages"][-1]["metadata"]["_is_interrupted"] is True
    closed = [m for m in on_a["messages"] if m["role"] == "tool" and m["toolCallId"] == "call_w5"]
    assert len(closed) == 1 and closed[0]["metadata"]["is_interrupted"] is True
    events = run(a.url, body(thread, user("still there?")))
    assert finished(events)["outcome"] == {"type": "success"}


def test_uvicorn_workers_share_threads_through_redis(redis_server: RedisServer) -> None:
    prefix = f"w{time.monotonic_ns()}:"
    server = ServeProcess("--redis", redis_server.url, "--redis-prefix", prefix, "--workers", "2")
    server.start()
    try:
        thread = _thread("uvw")
        for i in range(6):  # new connections each time: either worker may take each run
            events = run(server.url, body(thread, user(f"turn {i}")))
            assert finished(events)["outcome"] == {"type": "success"}
            assert len(events[1]["messages"]) == 2 * i + 1  # the whole thread every time
        saved = httpx.get(f"{server.url}/threads/{thread}/messages", timeout=30).json()
        assert _texts(saved)[-1] == "You said: turn 5" and len(saved["messages"]) == 12
    finally:
        server.stop()
