"""AgentScope 1.x user-input code (``UserInputBase``, ``TerminalUserInput``, ``UserInputData``,
``UserAgent.override_instance_input_method`` / ``override_class_input_method``) run after
renaming the imports.

Written from AgentScope 1.0.21's documented behaviour. Differences kept on purpose are marked
``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from nb_hitl.agent import (
    QueueInput,
    ScriptedInput,
    TerminalUserInput,
    UserAgent,
    UserInputBase,
    UserInputData,
)
from nb_hitl.message import ImageBlock, TextBlock, URLSource


class RecordingInput(UserInputBase):
    """An input method as an AgentScope user writes one (e.g. for a web front end)."""

    def __init__(self, *answers: UserInputData) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    async def __call__(
        self,
        agent_id: str,
        agent_name: str,
        *args: Any,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> UserInputData:
        self.calls.append(
            {"agent_id": agent_id, "agent_name": agent_name, "structured_model": structured_model}
        )
        return self.answers.pop(0)


def text_input(text: str, structured: dict[str, Any] | None = None) -> UserInputData:
    return UserInputData(
        blocks_input=[TextBlock(type="text", text=text)], structured_input=structured
    )


class Booking(BaseModel):
    guests: int = Field(description="How many people", ge=1)
    note: str = "none"


@pytest.fixture(autouse=True)
def class_input_method() -> Iterator[None]:
    """``override_class_input_method`` changes the class for the whole process: put it back."""
    saved = UserAgent.__dict__["_input_method"]
    yield
    UserAgent._input_method = saved


def test_the_default_input_method_is_the_terminal() -> None:
    user = UserAgent(name="user")
    assert isinstance(user._input_method, TerminalUserInput)
    assert user._input_method.input_hint == "User Input: "
    assert user.input_source is None
    assert user.reads_terminal  # a notebook panel (HubPanel) replaces the terminal
    user.override_instance_input_method(RecordingInput())
    assert not user.reads_terminal
    assert not UserAgent(name="q", input_source=QueueInput()).reads_terminal


async def test_an_instance_input_method_gives_the_reply() -> None:
    method = RecordingInput(text_input("Hello!"))
    user = UserAgent(name="user")
    user.override_instance_input_method(method)
    reply = await user()
    assert reply.name == "user" and reply.role == "user"
    assert reply.content == "Hello!"  # one text block: the text itself
    assert method.calls == [{"agent_id": user.id, "agent_name": "user", "structured_model": None}]


async def test_several_blocks_stay_blocks() -> None:
    url = "https://example.com/cat.png"
    blocks: list[Any] = [
        TextBlock(type="text", text="Look:"),
        ImageBlock(type="image", source=URLSource(type="url", url=url)),
    ]
    user = UserAgent(name="user")
    user.override_instance_input_method(RecordingInput(UserInputData(blocks_input=blocks)))
    reply = await user()
    assert reply.get_text_content() == "Look:"
    assert reply.get_content_blocks("image")[0]["source"]["url"] == url


async def test_structured_input_goes_to_metadata() -> None:
    method = RecordingInput(text_input("Book a table", {"guests": 2, "note": "window"}))
    user = UserAgent(name="user")
    user.override_instance_input_method(method)
    reply = await user(structured_model=Booking)
    assert method.calls[0]["structured_model"] is Booking
    assert reply.metadata == {"guests": 2, "note": "window"}


async def test_structured_input_that_does_not_fit_is_an_error() -> None:
    user = UserAgent(name="user")
    user.override_instance_input_method(RecordingInput(text_input("x", {"guests": 0})))
    # differs on purpose: AgentScope puts whatever the method returned into metadata; nb_hitl
    # checks it against the model, so code reading reply.metadata can trust the fields.
    with pytest.raises(ValueError, match="RecordingInput returned structured_input"):
        await user(structured_model=Booking)


async def test_a_method_returning_something_else_is_a_clear_error() -> None:
    class Wrong(UserInputBase):
        async def __call__(self, agent_id: str, agent_name: str, *a: Any, **k: Any) -> Any:
            return "hello"

    user = UserAgent(name="user")
    user.override_instance_input_method(Wrong())
    with pytest.raises(TypeError, match="must return UserInputData"):
        await user()


async def test_the_class_method_applies_to_agents_without_their_own() -> None:
    UserAgent.override_class_input_method(RecordingInput(text_input("a"), text_input("b")))
    first, second = UserAgent(name="first"), UserAgent(name="second")
    own = UserAgent(name="own")
    own.override_instance_input_method(RecordingInput(text_input("mine")))
    scripted = UserAgent(name="scripted", input_source=ScriptedInput(["scripted"]))
    assert (await first()).content == "a"
    assert (await second()).content == "b"
    assert (await own()).content == "mine"  # the instance's method wins over the class's
    assert (await scripted()).content == "scripted"  # so does nb_hitl's input source


async def test_the_latest_instance_choice_wins() -> None:
    user = UserAgent(name="user", input_source=ScriptedInput(["from the source"]))
    user.override_instance_input_method(RecordingInput(text_input("from the method")))
    assert (await user()).content == "from the method"
    user.input_source = ScriptedInput(["from the source again"])
    assert (await user()).content == "from the source again"


def test_only_user_input_base_is_accepted() -> None:
    user = UserAgent(name="user")
    with pytest.raises(ValueError, match="subclass of UserInputBase"):
        user.override_instance_input_method(lambda **kw: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="UserAgent\\(name, input_source\\)"):
        UserAgent.override_class_input_method(QueueInput())  # type: ignore[arg-type]


async def test_a_base_without_call_says_what_to_implement() -> None:
    user = UserAgent(name="user")
    user.override_instance_input_method(UserInputBase())
    with pytest.raises(NotImplementedError, match="returning UserInputData"):
        await user()


async def test_interrupting_a_user_waiting_on_an_input_method() -> None:
    asked = asyncio.Event()

    class Never(UserInputBase):
        async def __call__(self, agent_id: str, agent_name: str, *a: Any, **k: Any) -> Any:
            asked.set()
            await asyncio.Event().wait()

    user = UserAgent(name="user")
    user.override_instance_input_method(Never())
    task = asyncio.create_task(user())
    await asked.wait()
    await user.interrupt()
    reply = await task
    assert reply.metadata["_is_interrupted"] is True and reply.role == "user"


async def test_print_hooks_see_the_reply() -> None:
    seen: list[str] = []
    user = UserAgent(name="user")
    user.override_instance_input_method(RecordingInput(text_input("hi")))
    user.register_instance_hook(
        "pre_print", "record", lambda agent, kwargs: seen.append(kwargs["msg"].content)
    )
    await user()
    assert seen == ["hi"]


TERMINAL = """
import asyncio
import os
from pydantic import BaseModel, Field
from agentscope.agent import UserAgent


class Booking(BaseModel):
    guests: int = Field(description="How many people", ge=1)
    note: str = "none"


async def main():
    user = UserAgent(name="user")
    msg = await user()
    print("got:", repr(msg.content))
    msg = await user(structured_model=Booking)
    print("got:", repr(msg.content), msg.metadata)


asyncio.run(main())
"""


def test_terminal_user_input_in_a_script() -> None:
    script = TERMINAL.replace("agentscope", "nb_hitl")
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        # text; then text, guests: empty (required), "zero" (invalid), 0 (too small), 3;
        # note: empty (the default)
        input="hello\nbook it\n\nzero\n0\n3\n\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PYTHONUNBUFFERED": "1", "NB_HITL_DISABLE_CONSOLE_OUTPUT": "true"},
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("User Input: got: 'hello'\nUser Input: Structured input")
    assert '\tguests ({"description": "How many people", "minimum": 1, "type": "integer"}): ' in out
    assert "[required]: " in out and "[invalid: Input should be a valid integer" in out
    assert "[invalid: Input should be greater than or equal to 1]" in out
    assert out.endswith("got: 'book it' {'guests': 3, 'note': 'none'}\n")


async def test_terminal_input_leaves_the_loop_running_and_can_be_interrupted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "r") as stdin, os.fdopen(write_end, "w") as feed:
        monkeypatch.setattr(sys, "stdin", stdin)
        user = UserAgent(name="user")
        task = asyncio.create_task(user())
        ticks = 0
        while ticks < 20:  # other work goes on while the person has not typed anything
            await asyncio.sleep(0.01)
            ticks += 1
        # differs on purpose: AgentScope's TerminalUserInput calls the blocking input() on
        # the event loop, so nothing else would run and this interrupt could not land.
        assert not task.done()
        await user.interrupt()
        reply = await task
        assert reply.metadata["_is_interrupted"] is True
        feed.write("typed too late\n")  # releases the reading thread; the line is dropped
        feed.flush()
        # this test's own loop: wait for the reading thread before the pipe closes
        await asyncio.get_running_loop().shutdown_default_executor()


async def test_patching_builtins_input_feeds_the_terminal_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # AgentScope's tests and scripts feed UserAgent by patching input(); the worker thread
    # calls builtins.input too, so the same patch works here.
    from pydantic import BaseModel, Field

    class Choice(BaseModel):
        thinking: str = Field(min_length=1, max_length=10)
        decision: str

    answers = iter(["Hi!", "sth", "apple"])
    asked: list[str] = []

    def fake_input(prompt: str = "") -> str:
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", fake_input)
    reply = await UserAgent("Alice")(structured_model=Choice)
    assert reply.content == "Hi!"
    assert reply.metadata == {"thinking": "sth", "decision": "apple"}
    assert len(asked) == 3
