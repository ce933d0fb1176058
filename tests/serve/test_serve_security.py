"""The server's guards, against real server processes: the token, the loopback-only default,
the body size limit, CORS off by default, and clear errors for bad input."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from agui_harness import REPO, TOKEN, ServeProcess, body, finished, headers, run, user


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A server with a token and one allowed CORS origin."""
    folder: Path = tmp_path_factory.mktemp("agui-guarded")
    server = ServeProcess(
        "--sessions", str(folder), "--token", TOKEN, "--cors", "http://allowed.example"
    ).start()
    try:
        yield server
    finally:
        server.stop()


def test_every_request_needs_the_token(guarded: ServeProcess) -> None:
    for method, route in [
        ("GET", "/info"),
        ("POST", "/"),
        ("GET", "/threads/t/messages"),
        ("POST", "/threads/t/interrupt"),
        ("GET", "/no/such/route"),
    ]:
        for token in (None, "wrong-token-0123456789", TOKEN[:-1]):
            r = httpx.request(method, guarded.url + route, headers=headers(token), timeout=30)
            assert r.status_code == 401, (method, route, token)
            assert r.json()["code"] == "unauthorized"
            assert "Authorization: Bearer" in r.json()["error"]
            assert r.headers["www-authenticate"] == "Bearer"
    events = run(guarded.url, body("tok", user("hi")), token=TOKEN)
    assert finished(events)["outcome"] == {"type": "success"}


def test_cors_headers_only_for_the_allowed_origin(guarded: ServeProcess) -> None:
    pre = {"Origin": "http://allowed.example", "Access-Control-Request-Method": "POST"}
    r = httpx.options(guarded.url + "/", headers=pre, timeout=30)
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "http://allowed.example"
    other = {**pre, "Origin": "http://evil.example"}
    r = httpx.options(guarded.url + "/", headers=other, timeout=30)
    assert "access-control-allow-origin" not in r.headers


def test_cors_is_off_by_default(agui: ServeProcess) -> None:
    pre = {"Origin": "http://page.example", "Access-Control-Request-Method": "POST"}
    r = httpx.options(agui.url + "/", headers=pre, timeout=30)
    assert "access-control-allow-origin" not in r.headers
    r = httpx.get(agui.url + "/info", headers={"Origin": "http://page.example"}, timeout=30)
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_a_non_loopback_bind_without_a_token_is_refused_at_startup() -> None:
    cmd = [sys.executable, "-m", "nb_hitl.serve", "agui_agents:make_agent", "--host", "0.0.0.0"]
    env_path = f"{REPO}:{REPO / 'tests' / 'serve'}"
    out = subprocess.run(
        cmd,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": env_path},
    )
    assert out.returncode == 2
    assert "without a token" in out.stderr and "--token" in out.stderr
    from nb_hitl.exceptions import ConfigError
    from nb_hitl.serve._serve import check_bind

    with pytest.raises(ConfigError, match="without a token"):
        check_bind("192.168.1.10", None)
    with pytest.raises(ConfigError, match="too short"):
        check_bind("0.0.0.0", "short")
    check_bind("127.0.0.1", None)
    check_bind("::1", None)


def test_a_body_over_the_limit_is_refused_and_the_thread_is_unchanged(agui: ServeProcess) -> None:
    big = body("big", user("x" * 70_000))  # the session's server takes 64 KiB
    r = httpx.post(agui.url + "/", json=big, timeout=30)
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    assert "65536" in r.json()["error"]
    saved = httpx.get(agui.url + "/threads/big/messages", timeout=30).json()
    assert saved["messages"] == [] and saved["exists"] is False


def test_bad_input_gets_a_status_and_a_message_saying_what_to_do(agui: ServeProcess) -> None:
    post = lambda data, **kw: httpx.post(agui.url + "/", timeout=30, **kw)  # noqa: E731
    r = post(None, content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "bad_json"
    r = post(None, json={"threadId": "x"})
    assert r.status_code == 422 and "runId" in r.json()["error"]
    r = post(None, json=[1, 2])
    assert r.status_code == 422
    r = post(None, json=body("../etc", user("hi")))
    assert r.status_code == 422 and r.json()["code"] == "bad_thread_id"
    stray = {"id": "a-1", "role": "assistant", "content": "I said this"}
    r = post(None, json=body("stray", stray))
    assert r.status_code == 422 and "only new user messages" in r.json()["error"]
    r = post(None, json=body("empty", {"id": "u-e", "role": "user", "content": "  "}))
    assert r.status_code == 422 and "no text" in r.json()["error"]
    r = httpx.get(agui.url + "/nowhere", timeout=30)
    assert r.status_code == 404 and "POST /" in r.json()["error"]
    r = httpx.get(agui.url + "/", timeout=30)
    assert r.status_code == 405
    # the thread is still usable after all that
    events = run(agui.url, body("stray", user("hello")))
    assert finished(events)["outcome"] == {"type": "success"}


def test_secret_looking_metadata_never_reaches_the_client() -> None:
    from nb_hitl.message import Msg
    from nb_hitl.serve import messages_to_agui

    msg = Msg(
        "Friday",
        "hi",
        "assistant",
        metadata={
            "api_key": "sk-live-0123456789",
            "nested": {"auth_header": "Bearer abc", "kept": 1},
            "usage": {"input_tokens": 3},
            "_is_interrupted": True,
        },
    )
    (out,) = messages_to_agui([msg])
    text = out.model_dump_json(by_alias=True)
    assert "sk-live" not in text and "Bearer abc" not in text
    assert out.metadata == {
        "nested": {"kept": 1},
        "usage": {"input_tokens": 3},
        "_is_interrupted": True,
    }


def test_the_factory_gets_the_thread_id_only_when_it_asks_for_it() -> None:
    from nb_hitl.serve._threads import _call_factory

    assert _call_factory(lambda: "none", "t1") == "none"
    assert _call_factory(lambda thread_id: thread_id, "t1") == "t1"
    assert _call_factory(lambda tid: tid, "t1") == "t1"
    assert _call_factory(lambda *, thread_id="": thread_id, "t1") == "t1"
    assert _call_factory(lambda speed=50.0: speed, "t1") == 50.0  # a default is left alone
