"""AgentScope's ``model.client``, awaited streams and the forced-``tool_choice`` downgrade.

Written from AgentScope 1.0.21's documented behaviour: ``OpenAIChatModel`` builds
``openai.AsyncClient(api_key=..., organization=..., **client_kwargs)`` as ``model.client``, and
users (and AgentScope's own tests) replace it; ``await model(...)`` with ``stream=True`` makes
the request before it returns the stream; a forced ``tool_choice`` refused with HTTP 400 is
asked once more with ``"auto"``. Every request goes to a real local HTTP server.
"""

from __future__ import annotations

import openai
import pytest
from fake_openai_server import Completion, FakeOpenAIServer, Scenario, Sse, Status, text_chunks
from fake_openai_server import tool_call_chunks as calls
from pydantic import BaseModel

from nb_hitl.exceptions import ModelError
from nb_hitl.model import ChatResponse, OpenAIChatModel

KEY = "sk-client-compat-0123456789"
USER = [{"role": "user", "content": "hi"}]


def completion(message: dict[str, object]) -> Completion:
    """A non-streamed answer holding ``message``."""
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
    return Completion({"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                       "choices": [choice]})  # fmt: skip


class Person(BaseModel):
    name: str
    age: int


async def test_a_replaced_client_carries_every_request(fake_server: FakeOpenAIServer) -> None:
    name = fake_server.add(Scenario([completion({"content": "Hello there"})]))
    # Built for OpenAI itself; the user's own client points elsewhere (a proxy, a gateway).
    model = OpenAIChatModel(name, api_key=KEY, stream=False)
    assert isinstance(model.client, openai.AsyncOpenAI)
    own = openai.AsyncOpenAI(api_key=KEY, base_url=fake_server.base_url)
    model.client = own
    result = await model(USER)
    assert isinstance(result, ChatResponse)
    assert [b["text"] for b in result.content if b["type"] == "text"] == ["Hello there"]
    assert len(fake_server.requests_for(name)) == 1
    await model.aclose()  # the user's client is theirs to close
    assert model.client is own
    assert not own.is_closed()
    await own.close()


async def test_the_built_client_follows_client_kwargs(fake_server: FakeOpenAIServer) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["ok"]))]))
    model = OpenAIChatModel(
        name,
        api_key=KEY,
        organization="org-7",
        client_kwargs={"base_url": fake_server.base_url, "default_headers": {"X-Test": "1"}},
    )
    assert model.client.organization == "org-7"
    assert str(model.client.base_url).rstrip("/") == fake_server.base_url
    assert model.client.max_retries == 0  # nb_hitl retries itself, before the first token only
    try:
        await model(USER)
    finally:
        await model.aclose()
    assert fake_server.requests_for(name)[0].headers.get("x-test") == "1"


async def test_awaiting_a_stream_makes_the_request_before_returning(
    fake_server: FakeOpenAIServer,
) -> None:
    name = fake_server.add(Scenario([Sse(text_chunks(["a", "b"]))]))
    model = OpenAIChatModel(name, api_key=KEY, base_url=fake_server.base_url)
    stream = await model(USER)
    assert len(fake_server.requests_for(name)) == 1  # as AgentScope: sent at the await
    chunks = [chunk async for chunk in stream]
    assert chunks[-1].content[0]["text"] == "ab"
    failing = fake_server.add(Scenario([Status(401, "bad key", "invalid_request_error")]))
    model.model_name = failing
    try:
        with pytest.raises(ModelError):
            await model(USER)  # a failure before the first token is raised by the await
    finally:
        await model.aclose()


@pytest.mark.parametrize("stream", [False, True])
async def test_a_refused_forced_tool_choice_is_asked_again_with_auto(
    fake_server: FakeOpenAIServer, stream: bool
) -> None:
    refusal = Status(400, "The tool_choice parameter does not support being set to required or "
                     "object in thinking mode", "invalid_request_error")  # fmt: skip
    arguments = '{"name": "Dan", "age": 4}'
    answer = Sse(calls([("call_1", "generate_structured_output", [arguments])]))
    if not stream:
        call = {"id": "c", "type": "function", "function": {"name": "x", "arguments": arguments}}
        answer = completion({"content": None, "tool_calls": [call]})
    name = fake_server.add(Scenario([refusal, answer]))
    model = OpenAIChatModel(name, api_key=KEY, base_url=fake_server.base_url, stream=stream)
    try:
        result = await model(USER, structured_model=Person)
        if stream:
            result = [chunk async for chunk in result][-1]
    finally:
        await model.aclose()
    assert result.metadata == {"name": "Dan", "age": 4}
    first, second = fake_server.requests_for(name)
    assert first.body["tool_choice"]["function"]["name"] == "generate_structured_output"
    assert second.body["tool_choice"] == "auto"


async def test_other_400s_and_unforced_choices_are_not_downgraded(
    fake_server: FakeOpenAIServer,
) -> None:
    refusal = Status(400, "tool_choice auto is not supported here", "invalid_request_error")
    name = fake_server.add(Scenario([refusal, Sse(text_chunks(["never"]))]))
    model = OpenAIChatModel(name, api_key=KEY, base_url=fake_server.base_url)
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    other = fake_server.add(Scenario([Status(400, "context too long"), Sse(text_chunks(["x"]))]))
    try:
        with pytest.raises(ModelError):
            await model(USER, tools=tools, tool_choice="auto")
        model.model_name = other
        with pytest.raises(ModelError):
            await model(USER, structured_model=Person)
    finally:
        await model.aclose()
    assert len(fake_server.requests_for(name)) == 1
    assert len(fake_server.requests_for(other)) == 1
