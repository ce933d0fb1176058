"""Secret markers from the environment, the constructor and the URL never show, not even a
fragment: not in widget state (what a saved notebook keeps), reprs, logs, events, memory,
``state_dict()`` or session files.

A real panel talks to the real local fake server through the real SDK; the server echoes
every credential it can (near the 300-character cut, mid-stream, as ``Basic`` base64).
"""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Scenario, Sse, Status, text_chunks
from secret_checks import assert_no_fragment, exposed
from widget_helpers import all_html, all_state, until

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event
from nb_hitl.model import OpenAIChatModel
from nb_hitl.widgets import AgentPanel

ENV_KEY = "sk-env-MARKER-ENVSECRET-0a1b2c3d4e5f"
ARG_KEY = "sk-arg-MARKER-ARGSECRET-6a7b8c9d0e1f"
URL_KEY = "MARKERQUERYSECRET-2468ace13579"
URL_PASSWORD = "MARKERPASSWORD-13579bdf2468"
BASIC = base64.b64encode(f"alice:{URL_PASSWORD}".encode()).decode()
SECRETS = (ENV_KEY, ARG_KEY, URL_KEY, URL_PASSWORD, BASIC)


def echo(at: int, *secrets: str) -> str:
    """A server message repeating ``secrets`` so the 300-character cut goes through them."""
    words = " ".join(f"got {s}" for s in secrets)
    return "x" * at + f" {words} " + "y" * 40


@pytest.mark.parametrize("at", [250, 275, 290])
async def test_no_secret_fragment_anywhere_a_person_or_a_file_could_see(
    fake_server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    at: int,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    # Each server echoes what its client sent: the key from the environment and the URL's
    # credentials (Basic included), or the constructor's key.
    sent_a = (ENV_KEY, URL_KEY, URL_PASSWORD, f"Basic {BASIC}")
    refused = fake_server.add(Scenario([Status(400, echo(at, *sent_a))]))
    mid = fake_server.add(
        Scenario(
            [Sse([*text_chunks(["Half"], finish=None), {"error": {"message": echo(at, ARG_KEY)}}])]
        )
    )
    host = fake_server.base_url.removeprefix("http://")
    texts: list[str] = []
    for model in (
        OpenAIChatModel(refused, base_url=f"http://alice:{URL_PASSWORD}@{host}?key={URL_KEY}"),
        OpenAIChatModel(mid, api_key=ARG_KEY, base_url=fake_server.base_url),
    ):
        agent = ReActAgent("Friday", "Be brief.", model)
        events: list[Event] = []
        agent.subscribe(events.append)
        panel = AgentPanel(agent, session=tmp_path / "s.json")
        panel.chat.send("hello")
        await until(lambda p=panel: p.chat.state == "error", what="error row")  # type: ignore[misc]
        assert panel.session is not None and panel.session.save(), panel.session.note
        texts += [
            all_state(panel),
            all_html(panel),
            (tmp_path / "s.json").read_text("utf-8"),
            *exposed(model, agent, events, []),
        ]
        panel.close()
        await model.aclose()
    texts += [f"{r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records]
    assert any("HTTP Request" in r.getMessage() for r in caplog.records)
    assert "Half" in "".join(texts)  # the partial reply was kept and shown
    assert_no_fragment(texts, *SECRETS)
