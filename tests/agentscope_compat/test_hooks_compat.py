"""AgentScope 1.x hook code (instance and class hooks, print, observe) after renaming the imports.

Written from AgentScope 1.0.21's documented behaviour, in its calling style. Differences kept on
purpose are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from nb_hitl.agent import AgentBase, ReActAgent
from nb_hitl.exceptions import HookError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg, TextBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit


class MyAgent(AgentBase):
    """An agent written the AgentScope way: no arguments to ``super().__init__()``."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[str] = []
        self.memory: list[Msg] = []  # type: ignore[assignment]

    async def reply(self, msg: Msg) -> Msg:
        await self.print(msg)
        if isinstance(msg.content, list):
            msg.content.append(TextBlock(type="text", text="mark"))
        return msg

    async def observe(self, msg: Msg) -> None:
        self.memory.append(msg)

    async def handle_interrupt(self, *_args: Any, **_kwargs: Any) -> Msg:
        return Msg("test", "Interrupt handled", "assistant")


class ChildAgent(MyAgent):
    """Inherits everything."""


class ChildWithReplyOverride(MyAgent):
    async def reply(self, msg: Msg) -> Msg:
        return await super().reply(msg)


class GrandChildWithReplyOverride(ChildWithReplyOverride):
    async def reply(self, msg: Msg) -> Msg:
        return await super().reply(msg)


class ChildWithObserveOverride(MyAgent):
    async def observe(self, msg: Msg) -> None:
        await super().observe(msg)


def text_msg() -> Msg:
    return Msg("user", [TextBlock(type="text", text="0")], "user")


def texts(msg: Msg) -> list[str]:
    return [b.text for b in msg.get_content_blocks("text")]


def appending_pre(tag: str, *, returns: bool, is_async: bool) -> Any:
    def body(self: MyAgent, kwargs: dict[str, Any]) -> dict[str, Any] | None:
        if isinstance(kwargs.get("msg"), Msg):
            kwargs["msg"].content.append(TextBlock(type="text", text=tag))
        self.records.append(tag)
        return kwargs if returns else None

    if not is_async:
        return body

    async def async_body(self: MyAgent, kwargs: dict[str, Any]) -> dict[str, Any] | None:
        return body(self, kwargs)

    return async_body


def appending_post(tag: str, *, returns: bool, is_async: bool) -> Any:
    def body(self: MyAgent, kwargs: dict[str, Any], output: Any) -> Any:
        if isinstance(output, Msg):
            output.content.append(TextBlock(type="text", text=tag))
        self.records.append(tag)
        return output if returns else None

    if not is_async:
        return body

    async def async_body(self: MyAgent, kwargs: dict[str, Any], output: Any) -> Any:
        return body(self, kwargs, output)

    return async_body


@pytest.fixture(autouse=True)
def no_class_hooks_left() -> Iterator[None]:
    yield
    for cls in (AgentBase, MyAgent, ChildAgent, ChildWithReplyOverride, ReActAgent):
        cls.clear_class_hooks()


@pytest.fixture
def agent() -> MyAgent:
    return MyAgent()


# (returns, is_async) of hooks 1-4: every kind of hook, in one order
RETURNS_AND_ASYNC = [(True, True), (False, True), (True, False), (False, False)]


# -- reply hooks -----------------------------------------------------------------------------------
async def test_pre_and_post_reply_hooks_change_arguments_and_output_in_order(
    agent: MyAgent,
) -> None:
    res = await agent(text_msg())
    assert texts(res) == ["0", "mark"]

    for i, (returns, is_async) in enumerate(RETURNS_AND_ASYNC, 1):
        hook = appending_pre(f"pre_{i}", returns=returns, is_async=is_async)
        agent.register_instance_hook("pre_reply", f"pre_{i}", hook)
    res = await agent(text_msg())
    # a hook returning None keeps the arguments: its edits to its copy are dropped
    assert texts(res) == ["0", "pre_1", "pre_3", "mark"]
    assert agent.records == ["pre_1", "pre_2", "pre_3", "pre_4"]

    for i, (returns, is_async) in enumerate(RETURNS_AND_ASYNC, 1):
        hook = appending_post(f"post_{i}", returns=returns, is_async=is_async)
        agent.register_instance_hook("post_reply", f"post_{i}", hook)
    agent.records.clear()
    res = await agent(text_msg())
    assert texts(res) == ["0", "pre_1", "pre_3", "mark", "post_1", "post_3"]
    assert agent.records == [f"pre_{i}" for i in range(1, 5)] + [f"post_{i}" for i in range(1, 5)]

    agent.clear_instance_hooks()
    agent.records.clear()
    res = await agent(text_msg())
    assert texts(res) == ["0", "mark"]
    assert agent.records == []


async def test_pre_hook_kwargs_are_the_bound_arguments_with_defaults() -> None:
    seen: list[dict[str, Any]] = []

    class WithOptions(MyAgent):
        async def reply(self, msg: Msg, style: str = "plain", **extra: Any) -> Msg:
            return Msg(self.name, f"{style} {sorted(extra)}", "assistant")

    agent = WithOptions()
    agent.register_instance_hook("pre_reply", "look", lambda self, kwargs: seen.append(kwargs))
    await agent(text_msg(), colour="red")
    assert set(seen[0]) == {"msg", "style", "extra"}
    assert seen[0]["style"] == "plain"
    assert seen[0]["extra"] == {"colour": "red"}

    def restyle(self: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs["style"] = "fancy"
        return kwargs

    agent.register_instance_hook("pre_reply", "restyle", restyle)
    res = await agent(text_msg(), colour="red")
    assert res.get_text_content() == "fancy ['colour']"


async def test_replacing_a_hook_name_keeps_its_place_and_removing_it_works(agent: MyAgent) -> None:
    agent.register_instance_hook("pre_reply", "a", appending_pre("a", returns=True, is_async=False))
    agent.register_instance_hook("pre_reply", "b", appending_pre("b", returns=True, is_async=False))
    agent.register_instance_hook("pre_reply", "a", appending_pre("A", returns=True, is_async=False))
    assert texts(await agent(text_msg())) == ["0", "A", "b", "mark"]
    agent.remove_instance_hook("pre_reply", "a")
    assert texts(await agent(text_msg())) == ["0", "b", "mark"]
    with pytest.raises(ValueError, match="No pre_reply hook named 'a'"):
        agent.remove_instance_hook("pre_reply", "a")


async def test_hooks_run_once_when_an_override_calls_super() -> None:
    for agent in (ChildWithReplyOverride(), GrandChildWithReplyOverride()):
        counts = {"pre": 0, "post": 0}

        async def pre(self: Any, kwargs: dict[str, Any], counts: dict[str, int] = counts) -> None:
            counts["pre"] += 1

        def post(
            self: Any, kwargs: dict[str, Any], output: Any, counts: dict[str, int] = counts
        ) -> None:
            counts["post"] += 1

        agent.register_instance_hook("pre_reply", "count", pre)
        agent.register_instance_hook("post_reply", "count", post)
        await agent(text_msg())
        assert counts == {"pre": 1, "post": 1}

    observer = ChildWithObserveOverride()
    calls: list[int] = []
    observer.register_instance_hook("pre_observe", "count", lambda self, kwargs: calls.append(1))
    await observer.observe(text_msg())
    assert calls == [1]
    assert len(observer.memory) == 1


async def test_hooks_still_run_after_a_reply_that_raised() -> None:
    class Failing(MyAgent):
        async def reply(self, msg: Msg) -> Msg:
            raise RuntimeError("intentional failure")

    class ChildOfFailing(Failing):
        async def reply(self, msg: Msg) -> Msg:
            return await super().reply(msg)

    agent = ChildOfFailing()
    counts: list[int] = []
    agent.register_instance_hook("pre_reply", "count", lambda self, kwargs: counts.append(1))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="intentional failure"):
            await agent(text_msg())
    assert counts == [1, 1]
    assert not agent.is_replying


# -- print and observe -----------------------------------------------------------------------------
async def test_print_hooks_run_for_the_messages_a_reply_prints(agent: MyAgent) -> None:
    agent.register_instance_hook(
        "pre_print", "p1", appending_pre("pre_1", returns=True, is_async=True)
    )
    agent.register_instance_hook(
        "pre_print", "p2", appending_pre("pre_2", returns=False, is_async=False)
    )
    agent.register_instance_hook(
        "post_print", "q1", appending_post("post_1", returns=True, is_async=False)
    )
    res = await agent(text_msg())
    assert agent.records == ["pre_1", "pre_2", "post_1"]
    assert texts(res) == ["0", "mark"]  # print hooks change what is printed, not the reply


async def test_print_writes_name_and_text_and_can_be_disabled(
    agent: MyAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    agent.name = "Friday"
    await agent.print(Msg("Friday", "Hello there", "assistant"))
    assert capsys.readouterr().out == "Friday: Hello there\n"
    agent.set_console_output_enabled(False)
    await agent.print(Msg("Friday", "Hidden", "assistant"))
    assert capsys.readouterr().out == ""


async def test_streamed_chunks_print_only_their_new_text(
    agent: MyAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    msg = Msg("Friday", "Hel", "assistant")
    await agent.print(msg, last=False)
    msg.content = "Hello wor"
    await agent.print(msg, last=False)
    msg.content = "Hello world"
    await agent.print(msg, last=True)
    assert capsys.readouterr().out == "Friday: Hello world\n"


async def test_react_agent_prints_its_streamed_reply_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    agent = ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel(["Hi, I am Friday. Nice to meet you."], tokens_per_second=1e6),
        memory=InMemoryMemory(),
        toolkit=Toolkit(),
    )
    chunks: list[bool] = []
    agent.register_instance_hook(
        "pre_print", "count", lambda self, kwargs: chunks.append(kwargs["last"])
    )
    await agent(Msg("user", "Who are you?", "user"))
    assert capsys.readouterr().out == "Friday: Hi, I am Friday. Nice to meet you.\n"
    assert chunks[-1] is True and chunks.count(True) == 1 and len(chunks) > 2


async def test_observe_hooks_change_what_is_recorded(agent: MyAgent) -> None:
    agent.register_instance_hook(
        "pre_observe", "p1", appending_pre("pre_1", returns=True, is_async=True)
    )
    agent.register_instance_hook(
        "pre_observe", "p2", appending_pre("pre_2", returns=False, is_async=True)
    )
    await agent.observe(text_msg())
    assert len(agent.memory) == 1
    assert texts(agent.memory[0]) == ["0", "pre_1"]

    agent.register_instance_hook(
        "post_observe", "q1", appending_post("post_1", returns=True, is_async=True)
    )
    agent.register_instance_hook(
        "post_observe", "q2", appending_post("post_2", returns=False, is_async=False)
    )
    await agent.observe(text_msg())
    assert agent.records == ["pre_1", "pre_2", "pre_1", "pre_2", "post_1", "post_2"]
    assert texts(agent.memory[1]) == ["0", "pre_1"]


async def test_agent_base_observe_records_into_memory_without_replying() -> None:
    class Plain(AgentBase):
        def __init__(self) -> None:
            super().__init__()
            self.name = "Plain"
            self.memory = InMemoryMemory()

        async def reply(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
            raise AssertionError("observe must not reply")

    agent = Plain()
    await agent.observe([Msg("Alice", "hi", "user"), Msg("Bob", "hello", "user")])
    await agent.observe(None)
    assert [m.content for m in agent.memory.messages] == ["hi", "hello"]
    assert agent.name == "Plain"


def test_an_agent_without_a_name_gets_its_class_name_until_one_is_set() -> None:
    agent = MyAgent()
    # differs on purpose: AgentScope leaves `name` unset, so messages built from it fail later.
    assert agent.name == "MyAgent"
    agent.name = "Friday"
    assert "Friday" in repr(agent)
    with pytest.raises(ValueError, match="non-empty name"):
        ReActAgent(name="", sys_prompt="", model=ScriptedModel([]))


# -- class hooks -----------------------------------------------------------------------------------
async def test_class_hooks_run_after_instance_hooks_and_can_be_removed(agent: MyAgent) -> None:
    MyAgent.register_class_hook(
        "pre_reply", "cls", appending_pre("cls", returns=True, is_async=False)
    )
    agent.register_instance_hook(
        "pre_reply", "inst", appending_pre("inst", returns=True, is_async=True)
    )
    assert texts(await agent(text_msg())) == ["0", "inst", "cls", "mark"]
    assert texts(await MyAgent()(text_msg())) == ["0", "cls", "mark"]
    MyAgent.remove_class_hook("pre_reply", "cls")
    assert texts(await agent(text_msg())) == ["0", "inst", "mark"]
    with pytest.raises(ValueError, match="No pre_reply hook named 'cls'"):
        MyAgent.remove_class_hook("pre_reply", "cls")


async def test_class_hooks_reach_subclasses_but_not_parents_or_siblings() -> None:
    # differs on purpose: AgentScope keeps one dict for AgentBase and every subclass, so a hook
    # registered on one agent class fires for all of them.
    AgentBase.register_class_hook(
        "pre_reply", "all", appending_pre("all", returns=True, is_async=False)
    )
    ChildAgent.register_class_hook(
        "pre_reply", "child", appending_pre("child", returns=True, is_async=False)
    )
    assert texts(await MyAgent()(text_msg())) == ["0", "all", "mark"]
    assert texts(await ChildAgent()(text_msg())) == ["0", "all", "child", "mark"]
    assert texts(await ChildWithReplyOverride()(text_msg())) == ["0", "all", "mark"]
    ChildAgent.clear_class_hooks()
    assert texts(await ChildAgent()(text_msg())) == ["0", "all", "mark"]
    AgentBase.clear_class_hooks("pre_reply")
    assert texts(await ChildAgent()(text_msg())) == ["0", "mark"]


def test_unknown_hook_types_and_non_callables_are_clear_errors(agent: MyAgent) -> None:
    with pytest.raises(ValueError, match="pre_reasoning"):
        agent.register_instance_hook("pre_reasoning", "x", lambda self, kwargs: None)
    with pytest.raises(ValueError, match="Unknown hook type 'pre_replay'"):
        MyAgent.register_class_hook("pre_replay", "x", lambda self, kwargs: None)
    with pytest.raises(TypeError, match="callable"):
        agent.register_instance_hook("pre_reply", "x", "not a function")  # type: ignore[arg-type]
    assert "pre_reasoning" in ReActAgent.supported_hook_types


# -- ReActAgent's reasoning and acting hooks -------------------------------------------------------
def weather_agent(script: list[Any]) -> ReActAgent:
    toolkit = Toolkit()

    def get_weather(city: str) -> str:
        """Get the weather.

        Args:
            city: the city.
        """
        return f"Sunny in {city}"

    toolkit.register_tool_function(get_weather)
    return ReActAgent(
        name="Friday",
        sys_prompt="You're a helpful assistant named Friday.",
        model=ScriptedModel(script, tokens_per_second=1e6),
        memory=InMemoryMemory(),
        toolkit=toolkit,
    )


async def test_reasoning_and_acting_hooks_see_and_change_each_step() -> None:
    agent = weather_agent(
        [
            ScriptedTurn(
                text="Let me check.",
                tool_calls=[ScriptedToolCall("get_weather", {"city": "Paris"})],
            ),
            "It is sunny.",
        ]
    )
    seen: list[tuple[str, Any]] = []

    def pre_reasoning(self: Any, kwargs: dict[str, Any]) -> None:
        seen.append(("pre_reasoning", dict(kwargs)))

    def post_reasoning(self: Any, kwargs: dict[str, Any], output: Msg) -> None:
        seen.append(("post_reasoning", output.get_text_content()))

    def pre_acting(self: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        call = kwargs["tool_call"]
        seen.append(("pre_acting", call.name))
        call.input = {"city": "Rome"}  # the hook redirects the call
        return kwargs

    def post_acting(self: Any, kwargs: dict[str, Any], output: Any) -> None:
        seen.append(("post_acting", output))

    agent.register_instance_hook("pre_reasoning", "a", pre_reasoning)
    agent.register_instance_hook("post_reasoning", "b", post_reasoning)
    ReActAgent.register_class_hook("pre_acting", "c", pre_acting)
    agent.register_instance_hook("post_acting", "d", post_acting)

    reply = await agent(Msg("user", "Weather in Paris?", "user"))

    assert reply.get_text_content() == "It is sunny."
    assert seen == [
        ("pre_reasoning", {"tool_choice": None}),
        ("post_reasoning", "Let me check."),
        ("pre_acting", "get_weather"),
        ("post_acting", None),
        ("pre_reasoning", {"tool_choice": None}),
        ("post_reasoning", "It is sunny."),
    ]
    results = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert results[0].output_text() == "Sunny in Rome"
    assert_history_valid(agent.memory.messages)


# -- hooks and interruption ------------------------------------------------------------------------
async def test_an_interrupted_reply_goes_through_post_reply_with_the_interrupted_message() -> None:
    # differs on purpose: AgentScope skips post_reply when the reply is interrupted.
    agent = weather_agent(["a long answer " * 200])
    agent.model = ScriptedModel(["a long answer " * 200], tokens_per_second=100)
    outputs: list[Msg] = []

    def post(self: Any, kwargs: dict[str, Any], output: Msg) -> Msg:
        outputs.append(output)
        output.metadata["seen_by_hook"] = True
        return output

    agent.register_instance_hook("post_reply", "record", post)
    task = asyncio.create_task(agent(Msg("user", "talk", "user")))
    await wait_for_event(agent, lambda e: e.kind == "message_updated")
    await agent.interrupt()
    result = await task
    assert result.metadata["_is_interrupted"] is True
    assert result.metadata["seen_by_hook"] is True
    assert len(outputs) == 1 and outputs[0].metadata["_is_interrupted"] is True
    assert_history_valid(agent.memory.messages)


async def test_an_interrupt_during_an_async_pre_hook_still_ends_interrupted() -> None:
    agent = weather_agent(["never streamed"])
    entered = asyncio.Event()

    async def slow_pre(self: Any, kwargs: dict[str, Any]) -> None:
        entered.set()
        await asyncio.sleep(30)

    agent.register_instance_hook("pre_reply", "slow", slow_pre)
    task = asyncio.create_task(agent(Msg("user", "hello", "user")))
    await asyncio.wait_for(entered.wait(), 10)
    assert agent.is_replying
    assert await agent.interrupt() is True
    result = await task
    assert result.metadata["_is_interrupted"] is True
    assert agent.memory.messages[0].get_text_content() == "hello"
    assert_history_valid(agent.memory.messages)
    agent.clear_instance_hooks()
    agent.model = ScriptedModel(["back"], tokens_per_second=1e6)
    assert (await agent(Msg("user", "again", "user"))).get_text_content() == "back"


async def test_a_failing_pre_reply_hook_is_a_clear_error_and_changes_nothing() -> None:
    agent = weather_agent(["fine"])

    def broken(self: Any, kwargs: dict[str, Any]) -> None:
        raise KeyError("oops")

    agent.register_instance_hook("pre_reply", "broken", broken)
    with pytest.raises(HookError, match="pre_reply hook 'broken' raised KeyError") as info:
        await agent(Msg("user", "hello", "user"))
    assert isinstance(info.value.__cause__, KeyError)
    assert agent.memory.messages == []
    assert not agent.is_replying
    agent.remove_instance_hook("pre_reply", "broken")
    assert (await agent(Msg("user", "hello", "user"))).get_text_content() == "fine"


async def test_a_failing_post_reply_hook_leaves_a_valid_history() -> None:
    agent = weather_agent(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("get_weather", {"city": "Oslo"})]), "Cold."]
    )
    agent.register_instance_hook("post_reply", "broken", lambda self, kwargs, output: 1 / 0)
    with pytest.raises(HookError, match=r"post_reply hook 'broken'.*stays in memory"):
        await agent(Msg("user", "Weather?", "user"))
    assert agent.memory.messages[-1].get_text_content() == "Cold."
    assert_history_valid(agent.memory.messages)
    assert not agent.is_replying


async def test_a_pre_hook_must_return_a_dict_or_none(agent: MyAgent) -> None:
    agent.register_instance_hook("pre_reply", "bad", lambda self, kwargs: "not a dict")
    with pytest.raises(HookError, match="keyword-argument dict or None"):
        await agent(text_msg())


async def test_a_failing_acting_hook_closes_the_tool_call() -> None:
    agent = weather_agent(
        [ScriptedTurn(tool_calls=[ScriptedToolCall("get_weather", {"city": "Oslo"})])]
    )

    def broken(self: Any, kwargs: dict[str, Any]) -> None:
        raise RuntimeError("no tools today")

    agent.register_instance_hook("pre_acting", "broken", broken)
    with pytest.raises(HookError, match="pre_acting hook 'broken'"):
        await agent(Msg("user", "Weather?", "user"))
    assert_history_valid(agent.memory.messages)  # the open call got an error result
    assert not agent.is_replying


class MyReActAgent(ReActAgent):
    """Overrides reply, _reasoning and _acting, each calling super(), as AgentScope users do."""

    async def reply(self, msg: Msg | list[Msg] | None = None, structured_model: Any = None) -> Msg:
        return await super().reply(msg, structured_model=structured_model)

    async def _reasoning(self, tool_choice: Any = None) -> Msg:
        return await super()._reasoning(tool_choice=tool_choice)

    async def _acting(self, tool_call: Any) -> dict | None:
        return await super()._acting(tool_call)


async def test_react_overrides_calling_super_run_each_hook_once_per_step() -> None:
    from pydantic import BaseModel, Field

    class Result(BaseModel):
        result: str = Field(description="Test result field.")

    agent = MyReActAgent(
        name="TestAgent",
        sys_prompt="You are a helpful assistant.",
        model=ScriptedModel(
            [
                "text_response",
                ScriptedTurn(
                    text="tool_response",
                    tool_calls=[
                        ScriptedToolCall("generate_response", {"result": "structured_value"})
                    ],
                ),
            ],
            tokens_per_second=1e6,
        ),
        memory=InMemoryMemory(),
        toolkit=Toolkit(),
    )
    counts: dict[str, int] = {}

    def count(kind: str) -> Any:
        def hook(self: Any, *args: Any) -> None:
            counts[kind] = counts.get(kind, 0) + 1

        return hook

    for kind in (
        "pre_reply",
        "post_reply",
        "pre_reasoning",
        "post_reasoning",
        "pre_acting",
        "post_acting",
    ):
        agent.register_instance_hook(kind, "count", count(kind))
    res = await agent(structured_model=Result)
    assert res.metadata == {"result": "structured_value"}
    assert res.get_text_content() == "tool_response"
    assert counts == {
        "pre_reply": 1,
        "post_reply": 1,
        "pre_reasoning": 2,  # text only (reminded), then the generate_response call
        "post_reasoning": 2,
        "pre_acting": 1,
        "post_acting": 1,
    }


async def test_react_agent_base_runs_reasoning_and_acting_hooks_of_a_subclass() -> None:
    from nb_hitl.agent import ReActAgentBase

    class Planner(ReActAgentBase):
        def __init__(self) -> None:
            super().__init__()
            self.name = "Planner"

        async def _reasoning(self, question: str) -> str:
            return f"plan for {question}"

        async def _acting(self, plan: str) -> str:
            return f"done: {plan}"

        async def reply(self, msg: Msg) -> Msg:
            plan = await self._reasoning(msg.get_text_content() or "")
            return Msg(self.name, await self._acting(plan), "assistant")

        async def observe(self, msg: Msg) -> None:
            return None

        async def handle_interrupt(self, *args: Any, **kwargs: Any) -> Msg:
            return Msg(self.name, "interrupted", "assistant")

    seen: list[str] = []

    def pre_reasoning(self: ReActAgentBase, kwargs: dict[str, Any]) -> dict[str, Any]:
        seen.append(f"pre_reasoning {kwargs['question']}")
        return {**kwargs, "question": kwargs["question"].upper()}

    def post_acting(self: ReActAgentBase, kwargs: dict[str, Any], output: Any) -> Any:
        seen.append(f"post_acting {output}")
        return output + "!"

    agent = Planner()
    agent.register_instance_hook("pre_reasoning", "upper", pre_reasoning)
    agent.register_instance_hook("post_acting", "bang", post_acting)
    reply = await agent(Msg("user", "tea", "user"))
    assert reply.get_text_content() == "done: plan for TEA!"
    assert seen == ["pre_reasoning tea", "post_acting done: plan for TEA"]
    assert isinstance(ReActAgent, type) and issubclass(ReActAgent, ReActAgentBase)
    assert "pre_acting" in ReActAgentBase.supported_hook_types
