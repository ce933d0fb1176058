"""No fragment of a key leaks: a key echoed near the 300-character cut, a key in ``base_url``
(``?key=``, ``user:key@host``) and a server echoing ``Basic base64(user:key)``.

Every test runs the real SDK against the real local fake server and looks at every place a
person (or a saved file) could see text: the exception, the ErrorOccurred event, memory,
``state_dict()``, the session file, ``repr``/``vars`` of the model, and every log record.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Scenario, Sse, Status, text_chunks
from secret_checks import assert_no_fragment, exposed

from nb_hitl.agent import ReActAgent
from nb_hitl.events import ErrorOccurred, Event
from nb_hitl.exceptions import ModelError
from nb_hitl.message import Msg
from nb_hitl.model import DashScopeChatModel, OpenAIChatModel
from nb_hitl.model._secrets import redact, redact_urls, split_url_credentials

MakeModel = Callable[..., OpenAIChatModel]
KEY = "sk-test-SECRET-MARKER-7f3e9a1b2c4d5e6f"
URL_KEY = "AIzaURLSECRETMARKER0123456789"
PASSWORD = "pw-URLSECRET-passw0rd-4242"


def echo_near_cut(secret: str, at: int) -> str:
    """A server message that echoes ``secret`` so the 300-character cut goes through it."""
    return "x" * at + f" you sent {secret} which is wrong " + "y" * 50


async def reply_fails(model: OpenAIChatModel) -> tuple[ReActAgent, list[Event], ModelError]:
    """Send "hi" to an agent on ``model``, which must fail with ModelError; close the model."""
    agent = ReActAgent("Friday", "Be brief.", model)
    events: list[Event] = []
    agent.subscribe(events.append)
    try:
        with pytest.raises(ModelError) as info:
            await agent(Msg("User", "hi", "user"))
    finally:
        await model.aclose()
    return agent, events, info.value


@pytest.mark.parametrize("model_class", [OpenAIChatModel, DashScopeChatModel])
@pytest.mark.parametrize("at", [270, 280, 285])
async def test_a_key_echoed_across_the_cut_leaves_no_fragment(
    fake_server: FakeOpenAIServer,
    model_class: type[OpenAIChatModel],
    at: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    name = fake_server.add(Scenario([Status(400, echo_near_cut(KEY, at))]))
    model = model_class(name, api_key=KEY, base_url=fake_server.base_url)
    agent, events, error = await reply_fails(model)
    message = str(error)
    assert "HTTP 400" in message and "you sent *" in message
    errors = [e for e in events if isinstance(e, ErrorOccurred)]
    assert errors
    assert_no_fragment([message, *exposed(model, agent, events, caplog.records)], KEY)


async def test_a_mid_stream_error_echo_leaves_no_fragment_in_memory_state_or_session(
    fake_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    error_event = {"error": {"message": echo_near_cut(KEY, 275), "type": "server_error"}}
    name = fake_server.add(Scenario([Sse([*text_chunks(["Partial", " answer"], finish=None),
                                          error_event])]))  # fmt: skip
    model = OpenAIChatModel(name, api_key=KEY, base_url=fake_server.base_url)
    agent, events, error = await reply_fails(model)
    assert "middle of the stream" in str(error)
    assert any("_error" in m.metadata for m in agent.memory.messages)  # the partial was kept
    path = agent.save_session(tmp_path / "s.json")
    assert_no_fragment([str(error), path.read_text(), *exposed(model, agent, events, [])], KEY)


def test_redact_replaces_a_cut_key_by_its_prefix_and_leaves_other_text() -> None:
    cut = f"you sent {KEY[:12]}..."
    assert redact(cut, KEY) == "you sent ***..."
    assert redact("sk-test-", KEY) == "***"  # 8 leading characters are a fragment
    assert redact("sk-test", KEY) == "sk-test"  # 7 are not
    assert redact(f"a {KEY} b {KEY}", [KEY, None]) == "a *** b ***"


def test_split_url_credentials_moves_them_out_of_the_url() -> None:
    url, creds = split_url_credentials(
        f"https://bob:{PASSWORD}@gw.example/v1?key={URL_KEY}&api-version=2024-01"
    )
    assert url == "https://gw.example/v1?api-version=2024-01"
    basic = base64.b64encode(f"bob:{PASSWORD}".encode()).decode()
    assert creds.headers() == {"Authorization": f"Basic {basic}"}
    assert creds.query() == {"key": URL_KEY}
    assert {PASSWORD, URL_KEY, basic} <= set(creds.secrets())
    assert PASSWORD not in repr(creds) and URL_KEY not in repr(creds)
    assert redact_urls(f"GET http://u:{PASSWORD}@h/x?token={URL_KEY}&a=1") == (
        "GET http://***@h/x?token=***&a=1"
    )


async def test_credentials_in_base_url_are_sent_but_never_shown(
    fake_server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx logs every request URL at INFO
    basic = base64.b64encode(f"bob:{PASSWORD}".encode()).decode()
    ok = fake_server.add(Scenario([Sse(text_chunks(["fine"]))]))
    echo = f"Bad credentials: Basic {basic} and key={URL_KEY} and password {PASSWORD}"
    refused = fake_server.add(Scenario([Status(403, echo)]))
    host = fake_server.base_url.removeprefix("http://")
    url = f"http://bob:{PASSWORD}@{host}?key={URL_KEY}"
    model = OpenAIChatModel(ok, api_key="sk-no-key-required", base_url=url)
    agent = ReActAgent("Friday", "Be brief.", model)
    events: list[Event] = []
    agent.subscribe(events.append)
    try:
        await agent(Msg("User", "hi", "user"))
        sent = fake_server.requests_for(ok)[0]
        assert sent.headers["authorization"] == f"Basic {basic}"  # the credentials still work
        assert f"key={URL_KEY}" in sent.path
        model.model_name = refused
        with pytest.raises(ModelError) as info:
            await agent(Msg("User", "again", "user"))
    finally:
        await model.aclose()
    assert any("HTTP Request" in r.getMessage() for r in caplog.records)  # httpx did log
    session = agent.save_session(tmp_path / "s.json").read_text()
    seen = [model.base_url, model.provider, str(info.value), session]
    assert_no_fragment(
        [*seen, *exposed(model, agent, events, caplog.records)], PASSWORD, URL_KEY, basic
    )


def test_a_session_holding_a_key_fragment_is_refused(tmp_path: Path) -> None:
    from nb_hitl.exceptions import SessionError

    model = OpenAIChatModel("m", api_key=KEY, base_url="http://127.0.0.1:9/v1")
    agent = ReActAgent("Friday", "Be brief.", model)
    agent.memory.add_sync(Msg("tool", f"the log says {KEY[:14]}", "user"))
    with pytest.raises(SessionError, match="or the start of it"):
        agent.save_session(tmp_path / "s.json")
    assert not (tmp_path / "s.json").exists()
