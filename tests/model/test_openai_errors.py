"""Every error path of OpenAIChatModel, through the real SDK against a real local server."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Hang, Scenario, Sse, Status, text_chunks

from nb_hitl.exceptions import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelStreamError,
    ModelTimeoutError,
)
from nb_hitl.message import TextBlock
from nb_hitl.model import ChatResponse, OpenAIChatModel

MakeModel = Callable[..., OpenAIChatModel]
USER = [{"role": "user", "content": "hi"}]
KEY = "sk-test-not-a-real-key-0123456789"


async def collect(model: OpenAIChatModel) -> list[ChatResponse]:
    return [r async for r in model(USER)]


async def fail(model: OpenAIChatModel, kind: type[ModelError]) -> tuple[ModelError, list[Any]]:
    seen: list[ChatResponse] = []
    with pytest.raises(kind) as info:
        async for response in model(USER):
            seen.append(response)
    error = info.value
    assert KEY not in str(error)
    # The SDK's exception (its request holds the key) is not chained into tracebacks.
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    return error, seen


async def test_wrong_key_is_an_auth_error_naming_the_variable_without_the_key(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))], api_key="sk-the-right-key-999"))
    error, _ = await fail(make_model(name), ModelAuthError)
    assert error.status_code == 401
    assert "OPENAI_API_KEY" in str(error) and "HTTP 401" in str(error)
    assert "Incorrect API key provided: ***" in str(error)  # the server echoed it: redacted
    assert len(fake_server.requests_for(name)) == 1  # never retried


async def test_forbidden_is_an_auth_error_too(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Status(403, "Project does not have access to model")]))
    error, _ = await fail(make_model(name, key_env="MY_GATEWAY_KEY"), ModelAuthError)
    assert error.status_code == 403 and "MY_GATEWAY_KEY" in str(error)
    assert "does not have access" in str(error)


async def test_unknown_model_is_not_found_and_says_how_to_list_models(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    error, _ = await fail(make_model("no-such-model"), ModelNotFoundError)
    assert error.status_code == 404
    assert "'no-such-model'" in str(error)
    assert f"GET {fake_server.base_url}/models" in str(error)


async def test_rate_limit_is_retried_with_retry_after_then_succeeds(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    limited = Status(429, "Rate limit reached", "requests", headers={"retry-after-ms": "20"})
    name = fake_server.add(Scenario([limited, limited, Sse(text_chunks(["fine"]))]))
    responses = await collect(make_model(name, max_retries=2))
    assert responses[-1].content == [TextBlock(text="fine")]
    requests = fake_server.requests_for(name)
    assert len(requests) == 3
    assert requests[1].received_at - requests[0].received_at >= 0.02  # waited as asked


async def test_rate_limit_that_persists_is_a_clear_error_after_bounded_retries(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Status(429, "Rate limit reached", "requests")]))
    error, _ = await fail(make_model(name, max_retries=3), ModelRateLimitError)
    assert len(fake_server.requests_for(name)) == 4
    assert "4 times in a row" in str(error) and "max_retries" in str(error)


async def test_exhausted_quota_is_not_retried(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    quota = Status(
        429,
        "You exceeded your current quota",
        "insufficient_quota",
        error_code="insufficient_quota",
    )
    name = fake_server.add(Scenario([quota]))
    error, _ = await fail(make_model(name), ModelRateLimitError)
    assert "quota" in str(error) and "retrying will not help" in str(error)
    assert len(fake_server.requests_for(name)) == 1


async def test_server_errors_are_retried_then_succeed(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario([Status(503, "overloaded"), Status(502, "bad gateway"), Sse(text_chunks(["up"]))])
    )
    responses = await collect(make_model(name))
    assert responses[-1].content == [TextBlock(text="up")]
    assert len(fake_server.requests_for(name)) == 3


async def test_server_error_that_persists_reports_status_and_attempts(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Status(500, "internal failure")]))
    error, _ = await fail(make_model(name, max_retries=1), ModelError)
    assert type(error) is ModelError and error.status_code == 500
    assert "HTTP 500" in str(error) and "2 times" in str(error) and "internal failure" in str(error)
    assert len(fake_server.requests_for(name)) == 2


async def test_bad_request_is_reported_with_the_servers_words_and_not_retried(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Status(400, "maximum context length is 8192 tokens")]))
    error, _ = await fail(make_model(name), ModelError)
    assert error.status_code == 400 and "maximum context length" in str(error)
    assert len(fake_server.requests_for(name)) == 1


async def test_no_answer_within_the_timeout_is_a_timeout_error(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Hang()]))
    error, _ = await fail(make_model(name, timeout=0.3, max_retries=1), ModelTimeoutError)
    assert "0.3 s" in str(error) and "timeout=" in str(error)
    requests = fake_server.requests_for(name)
    assert len(requests) == 2
    assert all(r.disconnected.wait(5) for r in requests)  # the client hung up each time


async def test_a_stream_that_stalls_mid_reply_times_out_without_retry(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario([Sse(text_chunks(["par", "tial"], finish=None), ending="stall")])
    )
    error, seen = await fail(make_model(name, timeout=0.3), ModelTimeoutError)
    assert seen[-1].content == [TextBlock(text="partial")]
    assert "stalled" in str(error) and "partial reply is kept" in str(error)
    assert len(fake_server.requests_for(name)) == 1
    assert fake_server.requests_for(name)[0].disconnected.wait(5)


async def test_a_stream_that_breaks_mid_reply_is_a_stream_error_without_retry(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(
        Scenario([Sse(text_chunks(["Once", " upon"], finish=None), ending="break")])
    )
    error, seen = await fail(make_model(name), ModelStreamError)
    assert seen[-1].content == [TextBlock(text="Once upon")]
    assert "broke after" in str(error) and "Retry" in str(error)
    assert len(fake_server.requests_for(name)) == 1


async def test_a_stream_that_breaks_before_the_first_token_is_retried(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse([], ending="break"), Sse(text_chunks(["second try"]))]))
    responses = await collect(make_model(name))
    assert responses[-1].content == [TextBlock(text="second try")]
    assert len(fake_server.requests_for(name)) == 2


@pytest.mark.parametrize(
    "bad",
    [
        "{not json",
        '{"choices": "nope"}',
        '{"choices": [{"index": 0, "delta": {"content": 5}}]}',
        '{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": "x"}]}}]}',
        '["a", "list"]',
    ],
)
async def test_a_malformed_chunk_is_a_stream_error(
    fake_server: FakeOpenAIServer, make_model: MakeModel, bad: str
) -> None:
    name = fake_server.add(Scenario([Sse([*text_chunks(["ok"], finish=None), bad])]))
    error, seen = await fail(make_model(name), ModelStreamError)
    assert "malformed stream chunk" in str(error)
    assert seen[-1].content == [TextBlock(text="ok")]
    assert len(fake_server.requests_for(name)) == 1


async def test_an_error_event_inside_the_stream_is_reported(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    error_event = {"error": {"message": "model overloaded, try later", "type": "server_error"}}
    name = fake_server.add(Scenario([Sse([*text_chunks(["a"], finish=None), error_event])]))
    error, _ = await fail(make_model(name), ModelStreamError)
    assert "model overloaded, try later" in str(error)


async def test_a_stream_with_no_content_and_no_finish_reason_is_an_error(
    fake_server: FakeOpenAIServer, make_model: MakeModel
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks([], finish=None), ending="end")]))
    error, _ = await fail(make_model(name), ModelStreamError)
    assert "without any content or finish reason" in str(error)


async def test_an_unreachable_server_is_a_connection_error_naming_the_url(
    make_model: MakeModel,
) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    error, _ = await fail(make_model("m", base_url=url, max_retries=1), ModelConnectionError)
    assert url in str(error) and "Is the server running?" in str(error)
    assert "2 attempts" in str(error)
