"""The API key never leaks: not in a repr, a log line, an error, state_dict() or a saved notebook.

The fake server's 401 echoes the key it received (as careless servers do), so every path where
a key could travel back is exercised.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from fake_openai_server import FakeOpenAIServer, Scenario, Sse, text_chunks, usage_chunk
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook
from secret_checks import assert_no_fragment, exposed

from nb_hitl.agent import ReActAgent
from nb_hitl.events import ErrorOccurred, Event
from nb_hitl.exceptions import ModelAuthError
from nb_hitl.message import Msg
from nb_hitl.model import OpenAIChatModel

KEY = "sk-proj-SECRET-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
MakeModel = Callable[..., OpenAIChatModel]


async def test_the_key_is_in_no_repr_log_error_event_memory_or_state(
    fake_server: FakeOpenAIServer, make_model: MakeModel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    ok = fake_server.add(Scenario([Sse([*text_chunks(["fine"]), usage_chunk(9, 1)])], api_key=KEY))
    wrong = fake_server.add(Scenario([Sse(text_chunks(["never"]))], api_key="sk-other-key-1234"))
    model = make_model(ok, api_key=KEY)
    agent = ReActAgent("Friday", "Be brief.", model)
    events: list[Event] = []
    agent.subscribe(events.append)
    await agent(Msg("User", "hi", "user"))
    assert fake_server.requests_for(ok)[0].headers["authorization"] == f"Bearer {KEY}"

    model.model_name = wrong  # the same client, now refused: the server echoes our key
    with pytest.raises(ModelAuthError) as info:
        await agent(Msg("User", "again", "user"))
    assert "***" in str(info.value)

    seen = [str(info.value), repr(info.value.args), *exposed(model, agent, events, caplog.records)]
    assert any(isinstance(e, ErrorOccurred) and "OPENAI_API_KEY" in e.message for e in events)
    assert caplog.records  # the SDK did log the requests
    assert_no_fragment(seen, KEY)


@pytest.mark.notebook
def test_a_saved_notebook_that_used_the_key_does_not_contain_it(
    fake_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ok = fake_server.add(Scenario([Sse(text_chunks(["Hello", " there."]))], api_key=KEY))
    wrong = fake_server.add(Scenario([Sse(text_chunks(["never"]))], api_key="sk-other-key-1234"))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the usual way: the kernel reads it from its env
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server.base_url)
    monkeypatch.setenv("FAKE_MODEL_OK", ok)
    monkeypatch.setenv("FAKE_MODEL_WRONG", wrong)
    setup = """
import logging, os, sys
handler = logging.StreamHandler(sys.stdout)
for name in ("openai", "httpx", "httpx2", "httpcore", "httpcore2", "nb_hitl"):
    logging.getLogger(name).setLevel(logging.DEBUG)
    logging.getLogger(name).addHandler(handler)
import nb_hitl
from nb_hitl import Msg, ReActAgent
from nb_hitl.model import OpenAIChatModel
model = OpenAIChatModel(os.environ["FAKE_MODEL_OK"])
agent = ReActAgent("Friday", "Be brief.", model)
display(nb_hitl.show(agent))
"""
    use = """
reply = await agent(Msg("User", "hi", "user"))
print(repr(model), repr(agent), vars(model))
print(agent.state_dict())
display(reply)
"""
    refused = """
model.model_name = os.environ["FAKE_MODEL_WRONG"]
await agent(Msg("User", "and now?", "user"))
"""
    nb = new_notebook(cells=[new_code_cell(setup), new_code_cell(use), new_code_cell(refused)])
    nb.cells[2].metadata["tags"] = ["raises-exception"]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    path = tmp_path / "used_the_key.ipynb"
    nbformat.write(nb, path)
    saved = path.read_text()

    assert fake_server.requests_for(ok)[0].headers["authorization"] == f"Bearer {KEY}"
    assert "Hello there." in saved  # the reply ran
    assert "ModelAuthError" in saved and "OPENAI_API_KEY" in saved  # the error was shown
    assert "application/vnd.jupyter.widget-state+json" in saved  # widget state was saved
    assert_no_fragment([saved], KEY)
