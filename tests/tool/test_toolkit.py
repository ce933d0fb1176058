"""Toolkit: schemas from signatures and docstrings, sync/async/streaming tools, errors."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator

import pytest

from nb_hitl.exceptions import ToolError
from nb_hitl.message import ToolUseBlock
from nb_hitl.tool import Toolkit, ToolResponse


def get_weather(city: str, days: int = 1, unit: str = "C") -> str:
    """Get the weather forecast for a city.

    Args:
        city: The city name, e.g. "Paris".
        days: How many days to forecast.
        unit: "C" or "F".

    Returns:
        The forecast.
    """
    return f"{city}: sunny for {days} day(s), {unit}"


async def collect(toolkit: Toolkit, call: ToolUseBlock) -> list[ToolResponse]:
    return [r async for r in toolkit.call_tool_function(call)]


def test_schema_from_signature_and_docstring() -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    (schema,) = toolkit.get_json_schemas()
    fn = schema["function"]
    assert schema["type"] == "function"
    assert fn["name"] == "get_weather"
    assert fn["description"] == "Get the weather forecast for a city."
    params = fn["parameters"]
    assert params["required"] == ["city"]
    assert params["properties"]["city"] == {
        "type": "string",
        "description": 'The city name, e.g. "Paris".',
    }
    assert params["properties"]["days"]["type"] == "integer"
    assert params["properties"]["days"]["default"] == 1
    # AgentScope's shape: no additionalProperties (extra arguments are refused on validation)
    assert "additionalProperties" not in params


def test_registration_errors_are_clear() -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    with pytest.raises(ToolError, match="already registered"):
        toolkit.register_tool_function(get_weather)
    with pytest.raises(ToolError, match="not valid"):
        toolkit.register_tool_function(get_weather, name="bad name!")
    with pytest.raises(ToolError, match="needs a function"):
        toolkit.register_tool_function("nope")  # type: ignore[arg-type]
    # a misspelt strategy is refused at once, not only when a name happens to be taken
    with pytest.raises(ToolError, match="namesake_strategy must be"):
        toolkit.register_tool_function(get_weather, func_name="w2", namesake_strategy="replace")  # type: ignore[arg-type]
    assert list(toolkit.tools) == ["get_weather"]


async def test_sync_tool_runs_in_a_worker_thread() -> None:
    threads: list[str] = []

    def where() -> str:
        """Report the thread."""
        threads.append(threading.current_thread().name)
        return "ok"

    toolkit = Toolkit()
    toolkit.register_tool_function(where)
    (resp,) = await collect(toolkit, ToolUseBlock(id="1", name="where"))
    assert resp.get_text() == "ok"
    assert threads[0] != threading.current_thread().name
    assert threads[0].startswith("nb_hitl-tool")


async def test_async_and_streaming_tools_and_json_results() -> None:
    async def add(a: int, b: int) -> dict[str, int]:
        """Add two numbers."""
        return {"sum": a + b}

    async def countdown(n: int) -> AsyncGenerator[ToolResponse, None]:
        """Count down."""
        for i in range(n, 0, -1):
            await asyncio.sleep(0)
            yield ToolResponse.text(" ".join(str(k) for k in range(n, i - 1, -1)))

    toolkit = Toolkit()
    toolkit.register_tool_function(add)
    toolkit.register_tool_function(countdown)
    (resp,) = await collect(toolkit, ToolUseBlock(id="1", name="add", input={"a": 2, "b": 3}))
    assert resp.get_text() == '{"sum": 5}'
    chunks = await collect(toolkit, ToolUseBlock(id="2", name="countdown", input={"n": 3}))
    # ToolResponse chunks pass through as the tool wrote them (AgentScope)
    assert [c.get_text() for c in chunks] == ["3", "3 2", "3 2 1"]

    async def ticker(n: int) -> AsyncGenerator[str, None]:
        """Tick."""
        for i in range(n):
            yield "tick " * (i + 1)

    toolkit.register_tool_function(ticker)
    chunks = await collect(toolkit, ToolUseBlock(id="3", name="ticker", input={"n": 2}))
    # plain values are wrapped as stream chunks, then closed with a last one
    assert [c.get_text() for c in chunks] == ["tick ", "tick tick ", "tick tick "]
    assert [(c.stream, c.is_last) for c in chunks] == [(True, False), (True, False), (True, True)]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (ToolUseBlock(id="1", name="nope"), "Unknown tool 'nope'. Available tools: get_weather"),
        (ToolUseBlock(id="2", name="get_weather", input={}), "city: Field required"),
        (
            ToolUseBlock(id="3", name="get_weather", input={"city": "P", "days": "many"}),
            "days: Input should be a valid integer",
        ),
        (
            ToolUseBlock(id="4", name="get_weather", input={"city": "P", "colour": 1}),
            "colour: Extra inputs are not permitted",
        ),
        (ToolUseBlock(id="5", name="get_weather", raw_input='{"city": '), "not valid JSON"),
    ],
)
async def test_bad_calls_become_error_results(call: ToolUseBlock, expected: str) -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(get_weather)
    (resp,) = await collect(toolkit, call)
    assert resp.is_error
    assert expected in resp.get_text()


async def test_tool_exception_becomes_error_result() -> None:
    def boom(x: int) -> str:
        """Fail."""
        raise RuntimeError(f"disk full at {x}")

    toolkit = Toolkit()
    toolkit.register_tool_function(boom)
    (resp,) = await collect(toolkit, ToolUseBlock(id="1", name="boom", input={"x": 7}))
    assert resp.is_error
    assert resp.get_text() == "Error: tool 'boom' raised RuntimeError: disk full at 7"


async def test_preset_kwargs_are_hidden_from_the_model() -> None:
    def search(query: str, api_token: str) -> str:
        """Search."""
        return f"{query}:{len(api_token)}"

    toolkit = Toolkit()
    toolkit.register_tool_function(search, preset_kwargs={"api_token": "secret-value"})
    schema = toolkit.get_json_schemas()[0]
    assert "api_token" not in schema["function"]["parameters"]["properties"]
    (resp,) = await collect(toolkit, ToolUseBlock(id="1", name="search", input={"query": "q"}))
    assert resp.get_text() == "q:12"
