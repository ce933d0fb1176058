"""AgentScope 1.x structured output (``structured_model=``) after renaming the imports.

``await agent(msg, structured_model=Model)`` offers the model a ``generate_response`` tool with
the model's schema and requires a tool call; the validated fields end up in the reply's
``metadata``. Written from AgentScope 1.0.21's documented behaviour, in its calling style;
differences kept on purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from nb_hitl.agent import ReActAgent, ScriptedInput, UserAgent
from nb_hitl.formatter import DashScopeChatFormatter
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg
from nb_hitl.model import OpenAIChatModel, ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "model"))
from fake_openai_server import (
    FakeOpenAIServer,
    Scenario,
    Sse,
    text_chunks,
    tool_call_chunks,
)


class CityInfo(BaseModel):
    """What the agent must return."""

    city: str = Field(description="The city's name.")
    population: int = Field(ge=0, description="How many people live there.")


def make_agent(script: list[Any], **kwargs: Any) -> ReActAgent:
    # differs on purpose: AgentScope's tests use a hand-written mock model; nb_hitl ships
    # ScriptedModel, scripted here to call generate_response as a real model would.
    return ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel(script, tokens_per_second=1e6),
        formatter=DashScopeChatFormatter(),
        memory=InMemoryMemory(),
        toolkit=Toolkit(),
        **kwargs,
    )


def generate(**fields: Any) -> ScriptedToolCall:
    return ScriptedToolCall("generate_response", fields)


def tool_names(tools: list[dict[str, Any]] | None) -> list[str]:
    return [t["function"]["name"] for t in tools or []]


async def test_fields_of_a_valid_generate_response_call_go_into_metadata() -> None:
    agent = make_agent(
        [
            ScriptedTurn(
                text="Paris has about 2.1 million people.",
                tool_calls=[generate(city="Paris", population=2100000)],
            )
        ]
    )
    res = await agent(Msg("user", "Tell me about Paris.", "user"), structured_model=CityInfo)

    assert res.metadata == {"city": "Paris", "population": 2100000}
    assert res.get_text_content() == "Paris has about 2.1 million people."
    (call,) = agent.model.calls
    assert call.tool_choice == "required"
    (schema,) = [t for t in call.tools or [] if t["function"]["name"] == "generate_response"]
    params = schema["function"]["parameters"]
    assert set(params["properties"]) == {"city", "population"}
    assert params["required"] == ["city", "population"]
    assert params["properties"]["population"]["minimum"] == 0
    assert_history_valid(agent.memory.messages)


async def test_a_call_without_text_is_followed_by_a_text_only_answer() -> None:
    agent = make_agent(
        [ScriptedTurn(tool_calls=[generate(city="Oslo", population=700000)]), "Oslo."]
    )
    res = await agent(Msg("user", "Oslo?", "user"), structured_model=CityInfo)

    assert res.get_text_content() == "Oslo."
    # only the validated fields, as AgentScope's; what the call used is reply.usage
    assert res.metadata == {"city": "Oslo", "population": 700000}
    assert res.usage is not None and res.usage["output_tokens"] > 0
    assert "usage" not in res.to_dict()["metadata"]
    first, second = agent.model.calls
    assert first.tool_choice == "required"
    assert second.tool_choice == "none"
    assert "Now generate a text response" in str(second.messages[-1]["content"])
    # the hint went into that prompt only, never into memory
    assert all("system-hint" not in (m.get_text_content() or "") for m in agent.memory.messages)
    assert_history_valid(agent.memory.messages)


async def test_invalid_fields_go_back_to_the_model_which_can_retry() -> None:
    agent = make_agent(
        [
            ScriptedTurn(tool_calls=[generate(city="Nowhere", population=-5)]),
            ScriptedTurn(text="Fixed.", tool_calls=[generate(city="Nowhere", population=5)]),
        ]
    )
    res = await agent(Msg("user", "Nowhere?", "user"), structured_model=CityInfo)

    assert res.metadata == {"city": "Nowhere", "population": 5}
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert results[0].is_error and results[0].output_text().startswith("Arguments Validation Error")
    assert results[1].output_text() == "Successfully generated response."
    assert agent.model.calls[1].tool_choice == "required"


async def test_a_text_answer_without_the_call_gets_a_reminder() -> None:
    agent = make_agent(
        [
            "I forgot the tool.",
            ScriptedTurn(tool_calls=[generate(city="Rome", population=1)]),
            "Rome.",
        ]
    )
    res = await agent(Msg("user", "Rome?", "user"), structured_model=CityInfo)

    assert res.metadata["city"] == "Rome"
    reminder = agent.model.calls[1].messages[-1]["content"]
    assert "Structured output is required" in str(reminder) and "generate_response" in str(reminder)
    assert agent.model.calls[1].tool_choice == "required"


async def test_structured_output_after_a_real_tool_call() -> None:
    toolkit = Toolkit()

    def population(city: str) -> str:
        """Look up a population.

        Args:
            city: the city.
        """
        return f"{city}: 3,500,000"

    toolkit.register_tool_function(population)
    agent = make_agent(
        [
            ScriptedTurn(tool_calls=[ScriptedToolCall("population", {"city": "Berlin"})]),
            ScriptedTurn(
                text="Berlin: 3.5M.", tool_calls=[generate(city="Berlin", population=3500000)]
            ),
        ]
    )
    agent.toolkit = toolkit
    res = await agent(Msg("user", "Berlin?", "user"), structured_model=CityInfo)
    assert res.metadata == {"city": "Berlin", "population": 3500000}
    assert tool_names(agent.model.calls[0].tools) == ["population", "generate_response"]
    # differs on purpose: the user's toolkit is never changed (AgentScope registers
    # generate_response in it for the reply and removes it at the next one).
    assert list(toolkit.tools) == ["population"]


async def test_without_structured_model_no_generate_response_is_offered() -> None:
    agent = make_agent(["Plain."])
    res = await agent(Msg("user", "Hi", "user"))
    assert res.get_text_content() == "Plain."
    assert agent.model.calls[0].tools is None
    assert agent.model.calls[0].tool_choice is None
    assert "city" not in res.metadata


async def test_structured_model_must_be_a_pydantic_model_class() -> None:
    agent = make_agent(["unused"])
    with pytest.raises(TypeError, match="pydantic BaseModel subclass"):
        await agent(Msg("user", "Hi", "user"), structured_model=CityInfo(city="x", population=1))
    assert_history_valid(agent.memory.messages)
    assert not agent.is_replying


async def test_a_structured_reply_can_be_interrupted_and_resumed() -> None:
    agent = make_agent(["a long thought " * 300])
    agent.model = ScriptedModel(
        [
            "a long thought " * 300,
            ScriptedTurn(text="Done.", tool_calls=[generate(city="Lima", population=9)]),
        ],
        tokens_per_second=200,
    )
    task = asyncio.create_task(agent(Msg("user", "Lima?", "user"), structured_model=CityInfo))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    await agent.interrupt()
    interrupted = await task
    assert interrupted.metadata["_is_interrupted"] is True
    assert_history_valid(agent.memory.messages)
    agent.model.tokens_per_second = 1e6
    res = await agent(Msg("user", "Go on.", "user"), structured_model=CityInfo)
    assert res.metadata == {"city": "Lima", "population": 9}


async def test_structured_output_through_an_openai_compatible_server() -> None:
    server = FakeOpenAIServer().start()
    try:
        name = server.add(
            Scenario(
                [
                    Sse(
                        tool_call_chunks(
                            [
                                (
                                    "call_1",
                                    "generate_response",
                                    ['{"city": "Kyoto", ', '"population": 1460000}'],
                                )
                            ]
                        )
                    ),
                    Sse(text_chunks(["Kyoto ", "it is."])),
                ]
            )
        )
        model = OpenAIChatModel(name, api_key="sk-test-0000000000", base_url=server.base_url)
        agent = ReActAgent(
            name="Friday",
            sys_prompt="You're a helpful assistant named Friday.",
            model=model,
            memory=InMemoryMemory(),
            toolkit=Toolkit(),
        )
        res = await agent(Msg("user", "Kyoto?", "user"), structured_model=CityInfo)
        await model.aclose()
    finally:
        await asyncio.to_thread(server.stop)
    assert res.get_text_content() == "Kyoto it is."
    assert res.metadata["city"] == "Kyoto" and res.metadata["population"] == 1460000
    first, second = (r.body for r in server.requests_for(name))
    assert first["tool_choice"] == "required"
    assert [t["function"]["name"] for t in first["tools"]] == ["generate_response"]
    assert second["tool_choice"] == "none"


# -- UserAgent -------------------------------------------------------------------------------------
class Booking(BaseModel):
    guest: str = Field(description="Who stays.")
    nights: int = Field(ge=1, description="How many nights.")
    note: str | None = Field(default=None, description="Anything else.")


class RecordingInput(ScriptedInput):
    def __init__(self, items: list[str]) -> None:
        super().__init__(items)
        self.prompts: list[Msg | None] = []

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        self.prompts.append(prompt)
        return await super().__call__(prompt)


async def test_user_agent_asks_for_each_field_until_it_is_valid() -> None:
    # differs on purpose: AgentScope's UserAgent(name) reads the terminal through an input
    # method; nb_hitl's takes an input source (here a scripted one) as its second argument.
    source = RecordingInput(["Book me a room", "", "Ann", "zero", "0", "2", ""])
    user = UserAgent(name="user", input_source=source)
    msg = await user(structured_model=Booking)

    assert msg.get_text_content() == "Book me a room"
    assert msg.metadata == {"guest": "Ann", "nights": 2, "note": None}
    asked = [p.get_text_content() for p in source.prompts[1:] if p is not None]
    assert asked[0].startswith("guest (")
    assert "[required]" in asked[1]
    assert asked[2].startswith("nights (") and "minimum" in asked[2]
    assert "[invalid" in asked[3] and "[invalid" in asked[4]
    assert asked[5].startswith("note (")


async def test_user_agent_takes_a_filled_in_form_as_it_is() -> None:
    form = Msg("user", "Here.", "user", metadata={"guest": "Bo", "nights": 1})
    user = UserAgent(name="user", input_source=ScriptedInput([form]))
    msg = await user(structured_model=Booking)
    assert msg.metadata == {"guest": "Bo", "nights": 1, "note": None}
