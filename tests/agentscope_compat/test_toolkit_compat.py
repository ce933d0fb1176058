"""AgentScope 1.x toolkit code, ported by renaming the import, runs on nb_hitl's Toolkit.

Written from AgentScope's documented ``Toolkit`` / ``ToolResponse`` behaviour. Deliberate
differences are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncGenerator, Generator
from functools import partial
from typing import Any

import pytest
from pydantic import BaseModel, Field

from nb_hitl.agent import ReActAgent
from nb_hitl.message import Base64Source, ImageBlock, Msg, TextBlock, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.tool import Toolkit, ToolResponse


def text_response(text: str, **kwargs: Any) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)], **kwargs)


def sync_func(arg1: int, arg2: list[str | int] | None = None) -> ToolResponse:
    """A sync function for testing.

    Long description.

    Args:
        arg1 (`int`):
            Test argument 1.
        arg2 (`list[str | int] | None`, defaults to `None`):
            Test argument 2,
            over two lines.
    """
    return text_response(f"arg1: {arg1}, arg2: {arg2}")


SYNC_FUNC_SCHEMA = {
    "type": "function",
    "function": {
        "name": "sync_func",
        "description": "A sync function for testing.\nLong description.",
        "parameters": {
            "type": "object",
            "properties": {
                "arg1": {"type": "integer", "description": "Test argument 1."},
                "arg2": {
                    "anyOf": [
                        {
                            "type": "array",
                            "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                        },
                        {"type": "null"},
                    ],
                    "default": None,
                    "description": "Test argument 2,\nover two lines.",
                },
            },
            "required": ["arg1"],
        },
    },
}


def call(name: str, **kwargs: Any) -> ToolUseBlock:
    return ToolUseBlock(type="tool_use", id="123", name=name, input=kwargs)


async def run(toolkit: Toolkit, name: str, **kwargs: Any) -> list[ToolResponse]:
    return [chunk async for chunk in await toolkit.call_tool_function(call(name, **kwargs))]


def texts(chunks: list[ToolResponse]) -> list[str]:
    return [c.get_text() for c in chunks]


# -- registering and schemas -------------------------------------------------------------------
async def test_schema_as_agentscope_writes_it_and_a_call() -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(sync_func)
    assert toolkit.get_json_schemas() == [SYNC_FUNC_SCHEMA]
    (chunk,) = await run(toolkit, "sync_func", arg1=55)
    assert chunk.content == [TextBlock(type="text", text="arg1: 55, arg2: None")]


async def test_namesake_strategies() -> None:
    class Holder:
        def sync_func(self) -> ToolResponse:
            """A duplicate sync function for testing."""
            return text_response("test")

    toolkit = Toolkit()
    toolkit.register_tool_function(sync_func)
    with pytest.raises(ValueError, match="already registered"):
        toolkit.register_tool_function(Holder().sync_func)
    toolkit.register_tool_function(Holder().sync_func, namesake_strategy="skip")
    assert toolkit.get_json_schemas() == [SYNC_FUNC_SCHEMA]

    toolkit.register_tool_function(Holder().sync_func, namesake_strategy="rename")
    renamed = list(toolkit.tools)[1]
    assert renamed.startswith("sync_func_")
    assert toolkit.get_json_schemas()[1] == {
        "type": "function",
        "function": {
            "name": renamed,
            "description": "A duplicate sync function for testing.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    assert texts(await run(toolkit, renamed)) == ["test"]
    assert texts(await run(toolkit, "sync_func", arg1=1)) == ["arg1: 1, arg2: None"]

    toolkit.register_tool_function(Holder().sync_func, namesake_strategy="override")
    assert texts(await run(toolkit, "sync_func")) == ["test"]


async def test_description_options_and_var_arguments() -> None:
    def func(*args: Any, **kwargs: Any) -> ToolResponse:
        """A test function.

        Note this function is test.
        """
        return ToolResponse(content=[])

    toolkit = Toolkit()
    toolkit.register_tool_function(func)
    empty = {"type": "object", "properties": {}}
    assert toolkit.get_json_schemas()[0]["function"] == {
        "name": "func",
        "description": "A test function.\nNote this function is test.",
        "parameters": empty,
    }
    toolkit.remove_tool_function("func")
    toolkit.register_tool_function(func, func_description="你好")
    assert toolkit.get_json_schemas()[0]["function"]["description"] == "你好"
    toolkit.remove_tool_function("func")
    toolkit.register_tool_function(func, include_long_description=False)
    assert toolkit.get_json_schemas()[0]["function"]["description"] == "A test function."
    toolkit.remove_tool_function("func")
    toolkit.register_tool_function(func, func_name="renamed", include_var_keyword=True)
    (schema,) = toolkit.get_json_schemas()
    assert schema["function"]["name"] == "renamed"
    assert schema["function"]["parameters"]["properties"]["kwargs"]["type"] == "object"


async def test_preset_kwargs_and_partial_tools_hide_bound_arguments() -> None:
    def search(query: str, api_key: str, limit: int = 3) -> ToolResponse:
        """Search the web.

        Args:
            query (`str`): What to look for.
            api_key (`str`): The key.
            limit (`int`): How many results.
        """
        return text_response(f"{query}|{len(api_key)}|{limit}")

    toolkit = Toolkit()
    toolkit.register_tool_function(partial(search, api_key="sk-secret", limit=5))
    (schema,) = toolkit.get_json_schemas()
    assert schema["function"]["name"] == "search"
    assert schema["function"]["description"] == "Search the web."
    assert schema["function"]["parameters"] == {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What to look for."}},
        "required": ["query"],
    }
    assert texts(await run(toolkit, "search", query="cats")) == ["cats|9|5"]

    # positional arguments of a partial are bound by position
    toolkit.register_tool_function(
        partial(search, "dogs"), func_name="dogs", preset_kwargs={"api_key": "k"}
    )
    dogs = toolkit.get_json_schemas()[1]["function"]["parameters"]
    assert list(dogs["properties"]) == ["limit"] and "required" not in dogs
    assert texts(await run(toolkit, "dogs")) == ["dogs|1|3"]


async def test_manual_json_schema() -> None:
    def echo(**kwargs: Any) -> ToolResponse:
        return text_response(repr(sorted(kwargs.items())))

    schema = {
        "type": "function",
        "function": {
            "name": "ignored",
            "description": "Echo.",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "token": {"type": "string"}},
                "required": ["x", "token"],
            },
        },
    }
    toolkit = Toolkit()
    toolkit.register_tool_function(echo, json_schema=schema, preset_kwargs={"token": "t"})
    assert toolkit.get_json_schemas() == [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": "Echo.",
                "parameters": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}},
                    "required": ["x"],
                },
            },
        }
    ]
    assert texts(await run(toolkit, "echo", x=1)) == ["[('token', 't'), ('x', 1)]"]
    # AgentScope asserts; nb_hitl raises ToolError (a ValueError)
    with pytest.raises(ValueError, match="json_schema must look like"):
        toolkit.register_tool_function(echo, json_schema={"name": "no type"}, func_name="e2")


class Extra(BaseModel):
    arg3: int = Field(description="Test argument 3.")


async def test_extended_model_merges_into_the_schema_and_reaches_the_tool() -> None:
    seen: dict[str, Any] = {}

    def flexible(arg1: int, **kwargs: Any) -> ToolResponse:
        """Take extra fields.

        Args:
            arg1 (`int`): Test argument 1.
        """
        seen.update(kwargs, arg1=arg1)
        return text_response("ok")

    toolkit = Toolkit()
    toolkit.register_tool_function(flexible)
    toolkit.set_extended_model("flexible", Extra)
    params = toolkit.get_json_schemas()[0]["function"]["parameters"]
    assert params["properties"]["arg3"] == {"type": "integer", "description": "Test argument 3."}
    assert params["required"] == ["arg1", "arg3"]
    assert texts(await run(toolkit, "flexible", arg1=1, arg3=7)) == ["ok"]
    assert seen == {"arg1": 1, "arg3": 7}
    # differs on purpose: nb_hitl validates the extended fields too (pydantic), so a bad value
    # comes back to the model as an error result instead of reaching the function
    (bad,) = await run(toolkit, "flexible", arg1=1, arg3="many")
    assert bad.is_error and "arg3" in bad.get_text()
    toolkit.set_extended_model("flexible", None)
    assert "arg3" not in toolkit.get_json_schemas()[0]["function"]["parameters"]["properties"]
    with pytest.raises(ValueError, match="'nope' not found"):
        toolkit.set_extended_model("nope", Extra)
    with pytest.raises(TypeError):
        toolkit.set_extended_model("flexible", dict)  # type: ignore[arg-type]


# -- calling ------------------------------------------------------------------------------------
async def test_async_function_and_async_generator_chunks() -> None:
    async def async_func() -> ToolResponse:
        """Async."""
        return text_response("1")

    async def async_generator_func() -> AsyncGenerator[ToolResponse, None]:
        """Async generator."""
        yield text_response("1", stream=True, is_last=False)
        yield text_response("12", stream=True, is_last=False)
        yield text_response("123", stream=True, is_last=True)

    toolkit = Toolkit()
    toolkit.register_tool_function(async_func)
    toolkit.register_tool_function(async_generator_func)
    assert texts(await run(toolkit, "async_func")) == ["1"]
    chunks = await run(toolkit, "async_generator_func")
    assert texts(chunks) == ["1", "12", "123"]
    assert [c.is_last for c in chunks] == [False, False, True]


async def test_sync_generator_chunks_stream_before_the_generator_finishes() -> None:
    first_seen = threading.Event()

    def sync_generator_func() -> Generator[ToolResponse, None, None]:
        """Sync generator."""
        yield text_response("1", stream=True, is_last=False)
        # the second chunk waits until the caller has the first one: proof of streaming
        assert first_seen.wait(timeout=30), "the first chunk never reached the caller"
        yield text_response("12", stream=True, is_last=True)

    toolkit = Toolkit()
    toolkit.register_tool_function(sync_generator_func)
    got = []
    async for chunk in await toolkit.call_tool_function(call("sync_generator_func")):
        got.append(chunk.get_text())
        first_seen.set()
    assert got == ["1", "12"]


async def test_async_function_returning_a_generator_streams_it() -> None:
    def chunks() -> Generator[ToolResponse, None, None]:
        yield text_response("a")
        yield text_response("ab")

    async def wrapper() -> Generator[ToolResponse, None, None]:
        """Return a generator."""
        return chunks()

    toolkit = Toolkit()
    toolkit.register_tool_function(wrapper)
    assert texts(await run(toolkit, "wrapper")) == ["a", "ab"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 cannot tell who cancelled")
async def test_a_tool_raising_cancelled_error_itself_gives_an_interrupted_response() -> None:
    async def gives_up() -> AsyncGenerator[ToolResponse, None]:
        """Stop half-way."""
        yield text_response("12")
        raise asyncio.CancelledError("test")

    toolkit = Toolkit()
    toolkit.register_tool_function(gives_up)
    first, last = await run(toolkit, "gives_up")
    assert first.get_text() == "12"
    assert last.is_interrupted and last.is_last
    assert [b.text for b in last.content] == [
        "12",
        "<system-info>The tool call has been interrupted by the user.</system-info>",
    ]


async def test_cancelling_the_caller_propagates() -> None:
    started = asyncio.Event()

    async def slow() -> ToolResponse:
        """Take long."""
        started.set()
        await asyncio.sleep(60)
        return text_response("never")

    toolkit = Toolkit()
    toolkit.register_tool_function(slow)
    task = asyncio.create_task(run(toolkit, "slow"))
    await started.wait()
    task.cancel()
    # differs on purpose: AgentScope turns the caller's cancel into an "interrupted" response
    # and swallows it (a listed interruption defect); nb_hitl lets the cancel reach the caller,
    # and the agent's handle_interrupt() records the result
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_postprocess_func_sync_and_async() -> None:
    def shout(tool_call: ToolUseBlock, response: ToolResponse) -> ToolResponse | None:
        return text_response(response.get_text().upper() + "!" + tool_call.name)

    async def keep(tool_call: ToolUseBlock, response: ToolResponse) -> ToolResponse | None:
        return None  # None keeps the response as it is

    toolkit = Toolkit()
    toolkit.register_tool_function(sync_func, postprocess_func=shout)
    toolkit.register_tool_function(sync_func, func_name="kept", postprocess_func=keep)
    assert texts(await run(toolkit, "sync_func", arg1=1)) == ["ARG1: 1, ARG2: NONE!sync_func"]
    assert texts(await run(toolkit, "kept", arg1=2)) == ["arg1: 2, arg2: None"]


async def test_unknown_tool_and_bad_arguments_become_results() -> None:
    toolkit = Toolkit()
    toolkit.register_tool_function(sync_func)
    (missing,) = await run(toolkit, "nope")
    assert "nope" in missing.get_text()
    # differs on purpose: nb_hitl validates arguments (pydantic) and flags errors (is_error)
    (bad,) = await run(toolkit, "sync_func", arg1="x")
    assert bad.is_error and "arg1" in bad.get_text()


# -- groups and the meta tool -------------------------------------------------------------------
def tool_function_1() -> ToolResponse:
    """Test tool function 1."""
    return text_response("1")


def tool_function_2() -> ToolResponse:
    """Test tool function 2."""
    return text_response("2")


async def test_tool_groups() -> None:
    toolkit = Toolkit()
    toolkit.create_tool_group("browser", "Browse the web.", notes="Cite your sources.")
    toolkit.create_tool_group("maps", "Find places.", active=True)
    with pytest.raises(ValueError, match="already registered"):
        toolkit.create_tool_group("browser", "again")
    with pytest.raises(ValueError, match="'missing' not found"):
        toolkit.register_tool_function(tool_function_1, group_name="missing")
    toolkit.register_tool_function(tool_function_1, group_name="browser")
    toolkit.register_tool_function(tool_function_2, group_name="maps")
    assert [s["function"]["name"] for s in toolkit.get_json_schemas()] == ["tool_function_2"]
    (inactive,) = await run(toolkit, "tool_function_1")
    assert "FunctionInactiveError" in inactive.get_text()

    toolkit.update_tool_groups(["browser"], active=True)
    names = [s["function"]["name"] for s in toolkit.get_json_schemas()]
    assert names == ["tool_function_1", "tool_function_2"]
    assert texts(await run(toolkit, "tool_function_1")) == ["1"]
    assert toolkit.get_activated_notes() == "## About Tool Group 'browser'\nCite your sources."
    assert toolkit.state_dict() == {"active_groups": ["browser", "maps"]}

    toolkit.load_state_dict({"active_groups": []})
    assert toolkit.get_json_schemas() == []
    with pytest.raises(ValueError, match="active_groups"):
        toolkit.load_state_dict({"groups": []})

    toolkit.remove_tool_groups("browser")
    assert list(toolkit.tools) == ["tool_function_2"] and list(toolkit.groups) == ["maps"]
    with pytest.raises(ValueError, match="cannot be removed"):
        toolkit.remove_tool_groups(["basic"])


async def test_meta_tool_lets_the_model_switch_groups() -> None:
    toolkit = Toolkit()
    toolkit.create_tool_group("browser", "Browse the web.", notes="Cite your sources.")
    toolkit.create_tool_group("maps", "Find places.")
    toolkit.register_tool_function(tool_function_1, group_name="browser")
    toolkit.register_tool_function(tool_function_2, group_name="maps")
    toolkit.register_tool_function(toolkit.reset_equipped_tools)
    (meta,) = toolkit.get_json_schemas()
    assert meta["function"]["name"] == "reset_equipped_tools"
    assert meta["function"]["parameters"]["properties"] == {
        "browser": {"type": "boolean", "default": False, "description": "Browse the web."},
        "maps": {"type": "boolean", "default": False, "description": "Find places."},
    }
    # AgentScope's description word for word (prompts tuned against it keep working)
    description = meta["function"]["description"]
    assert description.startswith(
        "This function allows you to activate or deactivate tool groups\n"
        "dynamically based on your current task requirements.\n"
        "**Important: Each call sets the absolute final state of ALL tool\n"
    )
    assert description.endswith("reuse this function to check the notes of the tool groups.")

    (answer,) = await run(toolkit, "reset_equipped_tools", browser=True)
    assert answer.get_text() == (
        "Now tool groups 'browser' are activated. You MUST follow these notes to use these "
        "tools:\n<notes>## About Tool Group 'browser'\nCite your sources.</notes>"
    )
    (inactive,) = await run(toolkit, "tool_function_2")
    assert inactive.get_text() == (
        "FunctionInactiveError: The function 'tool_function_2' is in the inactive group "
        "'maps'. Activate the tool group by calling 'reset_equipped_tools' first to use "
        "this tool."
    )
    (bad,) = await run(toolkit, "reset_equipped_tools", browser="yes")
    assert bad.get_text().startswith("Invalid arguments: the argument browser should be a bool")
    (answer,) = await run(toolkit, "reset_equipped_tools")
    assert answer.get_text() == "All tool groups are now deactivated currently."
    (answer,) = await run(toolkit, "reset_equipped_tools", browser=True)
    names = [s["function"]["name"] for s in toolkit.get_json_schemas()]
    assert names == ["tool_function_1", "reset_equipped_tools"]
    (answer,) = await run(toolkit, "reset_equipped_tools", maps=True)
    names = [s["function"]["name"] for s in toolkit.get_json_schemas()]
    assert names == ["tool_function_2", "reset_equipped_tools"]


# -- middlewares --------------------------------------------------------------------------------
async def test_middlewares_wrap_like_an_onion_and_can_skip_or_rewrite() -> None:
    order: list[str] = []

    async def outer(
        kwargs: dict[str, Any], next_handler: Any
    ) -> AsyncGenerator[ToolResponse, None]:
        order.append("outer in " + kwargs["tool_call"].name)
        async for response in await next_handler(**kwargs):
            yield text_response(response.get_text() + " (outer)")
        order.append("outer out")

    async def inner(
        kwargs: dict[str, Any], next_handler: Any
    ) -> AsyncGenerator[ToolResponse, None]:
        order.append("inner in")
        if kwargs["tool_call"].name == "tool_function_2":
            yield text_response("Unauthorized")
            return
        async for response in await next_handler(**kwargs):
            yield response
        order.append("inner out")

    toolkit = Toolkit()
    toolkit.register_tool_function(tool_function_1)
    toolkit.register_tool_function(tool_function_2)
    toolkit.register_middleware(outer)
    toolkit.register_middleware(inner)
    assert texts(await run(toolkit, "tool_function_1")) == ["1 (outer)"]
    assert order == ["outer in tool_function_1", "inner in", "inner out", "outer out"]
    assert texts(await run(toolkit, "tool_function_2")) == ["Unauthorized (outer)"]


# -- background execution -----------------------------------------------------------------------
async def test_async_execution_view_wait_cancel() -> None:
    release = asyncio.Event()

    async def slow_async_func(label: str) -> ToolResponse:
        """Wait, then answer."""
        await release.wait()
        return text_response(f"done {label}")

    toolkit = Toolkit()
    toolkit.register_tool_function(slow_async_func, async_execution=True)

    async def start(label: str) -> str:
        (reminder,) = await run(toolkit, "slow_async_func", label=label)
        return reminder.get_text().split("Task ID:")[1].strip().split(".")[0].strip()

    first = await start("one")
    assert "still running" in (await toolkit.view_task(first)).get_text()
    assert "still running" in (await toolkit.wait_task(first, timeout=0.01)).get_text()
    release.set()
    assert (await toolkit.wait_task(first)).get_text() == "done one"
    assert "InvalidTaskIdError" in (await toolkit.view_task(first)).get_text()  # consumed

    release.clear()
    for already_running in (False, True):  # cancelled before its first step, or while waiting
        second = await start("two")
        if already_running:
            await asyncio.sleep(0.01)
        assert "has been cancelled" in (await toolkit.cancel_task(second)).get_text()
        await asyncio.sleep(0.01)
        assert second not in toolkit._async_tasks
        stopped = await toolkit.view_task(second)  # the tool really stopped, and says so
        assert stopped.is_interrupted and "cancelled by the user" in stopped.get_text()


# -- ToolResponse and a ReActAgent --------------------------------------------------------------
def test_tool_response_fields() -> None:
    response = ToolResponse(content=[TextBlock(type="text", text="hi")])
    assert (response.metadata, response.stream, response.is_last, response.is_interrupted) == (
        {},  # differs on purpose: metadata is {} rather than None (pydantic, always a dict)
        False,
        True,
        False,
    )
    assert isinstance(response.id, str) and response.id
    assert ToolResponse([TextBlock(type="text", text="x")], metadata=None).get_text() == "x"


async def test_agentscope_style_tools_inside_react_agent() -> None:
    def lookup(word: str, dictionary: str) -> Generator[ToolResponse, None, None]:
        """Look a word up.

        Args:
            word (`str`): The word.
            dictionary (`str`): Which dictionary.
        """
        yield text_response(f"{word}: ", stream=True, is_last=False)
        yield text_response(f"{word}: a greeting ({dictionary})", stream=True, is_last=True)

    toolkit = Toolkit()
    toolkit.register_tool_function(partial(lookup, dictionary="Oxford"))
    model = ScriptedModel(
        [
            ScriptedTurn(
                text="Looking.", tool_calls=[ScriptedToolCall("lookup", {"word": "hello"})]
            ),
            "It is a greeting.",
        ],
        tokens_per_second=5000,
    )
    agent = ReActAgent("Friday", "You look words up.", model, toolkit=toolkit)
    reply = await agent(Msg("user", "What is hello?", "user"))
    assert reply.get_text_content() == "It is a greeting."
    results = [
        b for m in agent.memory.messages for b in m.get_content_blocks() if b.type == "tool_result"
    ]
    assert [r.output_text() for r in results] == ["hello: a greeting (Oxford)"]


async def test_a_tool_returning_an_image_keeps_it_in_the_tool_result() -> None:
    pixel = (
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
        "rkJggg=="
    )

    def snapshot() -> ToolResponse:
        """Take a picture."""
        return ToolResponse(
            content=[
                TextBlock(type="text", text="Here it is."),
                ImageBlock(
                    type="image",
                    source=Base64Source(type="base64", media_type="image/png", data=pixel),
                ),
            ]
        )

    toolkit = Toolkit()
    toolkit.register_tool_function(snapshot)
    model = ScriptedModel(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("snapshot", {})]), "A single pixel."],
        tokens_per_second=5000,
    )
    agent = ReActAgent("Friday", "You take pictures.", model, toolkit=toolkit)
    await agent(Msg("user", "Show me.", "user"))
    (result,) = [
        b for m in agent.memory.messages for b in m.get_content_blocks() if b.type == "tool_result"
    ]
    assert isinstance(result.output, list)
    assert [b.type for b in result.output] == ["text", "image"]
    assert result.output_text() == "Here it is."


async def test_memory_and_toolkit_round_trip_through_json_session(tmp_path: Any) -> None:
    from nb_hitl.memory import InMemoryMemory
    from nb_hitl.session import JSONSession

    memory = InMemoryMemory()
    await memory.add(Msg("user", "remember me", "user"), marks="important")
    await memory.update_compressed_summary("earlier: greetings")
    toolkit = Toolkit()
    toolkit.create_tool_group("browser", "Browse the web.", active=True)
    toolkit.register_tool_function(tool_function_1, group_name="browser")
    session = JSONSession(save_dir=str(tmp_path))
    await session.save_session_state("s1", memory=memory, toolkit=toolkit)

    memory2, toolkit2 = InMemoryMemory(), Toolkit()
    toolkit2.create_tool_group("browser", "Browse the web.")
    toolkit2.register_tool_function(tool_function_1, group_name="browser")
    await session.load_session_state("s1", memory=memory2, toolkit=toolkit2)
    assert memory2.state_dict() == memory.state_dict()
    assert [m.content for m in await memory2.get_memory(mark="important")][-1] == "remember me"
    assert toolkit2.state_dict() == {"active_groups": ["browser"]}


def test_the_meta_tool_schema_is_rebuilt_only_when_the_groups_change() -> None:
    # nb_hitl detail: the schema is asked for at every reasoning step; building a pydantic
    # model each time is wasted work, but a new or re-described group must show at once.
    toolkit = Toolkit()
    toolkit.create_tool_group("browser", "Browse the web.")
    toolkit.register_tool_function(toolkit.reset_equipped_tools)
    toolkit.get_json_schemas()
    built = toolkit.tools["reset_equipped_tools"].extended_model
    toolkit.get_json_schemas()
    assert toolkit.tools["reset_equipped_tools"].extended_model is built
    toolkit.create_tool_group("maps", "Find places.")
    (meta,) = toolkit.get_json_schemas()
    assert set(meta["function"]["parameters"]["properties"]) == {"browser", "maps"}
    toolkit.groups["maps"].description = "Find places and routes."
    (meta,) = toolkit.get_json_schemas()
    maps = meta["function"]["parameters"]["properties"]["maps"]
    assert maps["description"] == "Find places and routes."
