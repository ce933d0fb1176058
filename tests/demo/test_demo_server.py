"""DemoServer, the walkthroughs' key-less OpenAI-compatible server on 127.0.0.1, driven by the
real openai SDK through OpenAIChatModel: it streams, an interrupt closes the stream (the server
sees it and stops), demo-broken breaks mid-answer, an unknown model is a 404."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator

import pytest

from nb_hitl import Msg, ReActAgent
from nb_hitl.demo import DemoServer
from nb_hitl.exceptions import ModelNotFoundError, ModelStreamError
from nb_hitl.model import OpenAIChatModel
from nb_hitl.testing import assert_history_valid


@pytest.fixture(scope="module")
def server() -> Iterator[DemoServer]:
    with DemoServer(tokens_per_second=200) as running:
        yield running
    assert not running.running


def test_it_lists_its_models(server: DemoServer) -> None:
    with urllib.request.urlopen(server.base_url + "/models", timeout=5) as response:
        ids = [m["id"] for m in json.load(response)["data"]]
    assert ids == ["demo-storyteller", "demo-broken"]
    assert server.base_url.startswith("http://127.0.0.1:") and "serving" in repr(server)


async def test_streaming_interrupt_closes_the_stream_and_resume_works(server: DemoServer) -> None:
    model = OpenAIChatModel("demo-storyteller", base_url=server.base_url)
    agent = ReActAgent("Friday", "You are a storyteller.", model)
    streamed = asyncio.Event()
    agent.subscribe(lambda e: streamed.set() if getattr(e, "tokens", 0) >= 5 else None)
    task = asyncio.create_task(agent(Msg("User", "Tell me a long story.", "user")))
    await asyncio.wait_for(streamed.wait(), 30)
    await agent.interrupt()
    assert (await task).is_interrupted
    request = server.requests[-1]
    await asyncio.to_thread(request.done.wait, 10)
    assert request.stream and request.disconnected
    assert 0 < request.words_sent < request.words_total  # the server stopped generating
    resumed = await agent(Msg("User", "Finish it in two sentences.", "user"))
    assert not resumed.is_interrupted and resumed.get_text_content()
    assert_history_valid(agent.memory.messages)
    await model.aclose()


async def test_demo_broken_fails_mid_answer_and_unknown_models_are_404(server: DemoServer) -> None:
    broken = OpenAIChatModel("demo-broken", base_url=server.base_url, max_retries=0)
    agent = ReActAgent("Flaky", "sys", broken)
    with pytest.raises(ModelStreamError, match="broke after"):
        await agent(Msg("User", "hi", "user"))
    assert agent.memory.messages[-1].metadata.get("_error")  # the partial answer is kept
    assert_history_valid(agent.memory.messages)
    nowhere = OpenAIChatModel("gpt-nope", base_url=server.base_url)
    with pytest.raises(ModelNotFoundError, match="demo-storyteller"):
        async for _ in nowhere([{"role": "user", "content": "x"}]):
            pass
    await broken.aclose()
    await nowhere.aclose()


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="tokens_per_second"):
        DemoServer(tokens_per_second=0)
