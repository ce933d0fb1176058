"""AgentScope 1.x's user-input methods: ``UserInputBase``, ``TerminalUserInput``, ``UserInputData``.

An input method is an object whose ``await method(agent_id, agent_name,
structured_model=None)`` returns ``UserInputData`` (the person's content blocks and, when a
structured model was asked for, its fields). ``UserAgent.override_instance_input_method`` /
``override_class_input_method`` install one, as in AgentScope:

    class WebInput(UserInputBase):
        async def __call__(self, agent_id, agent_name, *args, structured_model=None, **kwargs):
            text = await my_web_queue.get()
            return UserInputData(blocks_input=[TextBlock(type="text", text=text)])

    UserAgent.override_class_input_method(WebInput())

nb_hitl's own input sources (``QueueInput``, ``ScriptedInput``, ``TerminalInput``, a chat
widget's ``input_source()``) stay the simpler way: ``UserAgent(name, input_source)``.

``ask_fields`` is the field-by-field form filling both kinds share: each field of the pydantic
model is asked in turn, an empty answer skips an optional field and re-asks a required one,
and an invalid value is re-asked with the reason.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from nb_hitl.message import TextBlock


@dataclass
class UserInputData:
    """What an input method returns: the person's content and their structured answer."""

    blocks_input: list[Any] | None = None
    """The content blocks (``TextBlock``, ``ImageBlock``... or their dicts)."""
    structured_input: dict[str, Any] | None = None
    """The fields of the structured model asked for, or ``None``."""


class UserInputBase:
    """Base class of AgentScope-style input methods for ``UserAgent``."""

    async def __call__(
        self,
        agent_id: str,
        agent_name: str,
        *args: Any,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> UserInputData:
        """Wait for the person's input.

        Args:
            agent_id: the asking ``UserAgent``'s id.
            agent_name: its name.
            structured_model: a pydantic model whose fields the person fills in, or ``None``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not implement `async def __call__(self, agent_id, "
            "agent_name, *args, structured_model=None, **kwargs)` returning UserInputData."
        )


Ask = Callable[[str, str], Awaitable[str]]
"""``await ask(field_name, label)`` -> the person's answer for one field."""


async def ask_fields(model: type[BaseModel], ask: Ask) -> dict[str, Any]:
    """Ask for every field of ``model`` in turn; return the validated values (JSON-able).

    The label of a field is ``name (schema)`` plus `` [required]`` or `` [invalid: why]``
    when it is asked again.
    """
    values: dict[str, Any] = {}
    properties = model.model_json_schema().get("properties", {})
    for key, info in model.model_fields.items():
        schema = {k: v for k, v in properties.get(key, {}).items() if k != "title"}
        field_type: Any = Annotated[info.annotation, info]
        adapter: TypeAdapter[Any] = TypeAdapter(field_type)
        problem = ""
        while True:
            answer = await ask(key, f"{key} ({json.dumps(schema, ensure_ascii=False)}){problem}: ")
            if not answer.strip():
                if info.is_required():
                    problem = " [required]"
                    continue
                break  # the model's default applies
            try:
                values[key] = _validate(adapter, answer)
                break
            except ValidationError as exc:
                problem = f" [invalid: {exc.errors()[0]['msg']}]"
    return model.model_validate(values).model_dump(mode="json")


def _validate(adapter: TypeAdapter[Any], text: str) -> Any:
    # "42", "true", "[1, 2]" are read as JSON first; a text field takes the text as typed.
    try:
        parsed = json.loads(text)
    except ValueError:
        return adapter.validate_python(text)
    try:
        return adapter.validate_python(parsed)
    except ValidationError:
        if isinstance(parsed, str):
            raise
        return adapter.validate_python(text)


async def read_line(prompt: str) -> str:
    """``input(prompt)`` in a worker thread, so the event loop keeps running.

    ``builtins.input`` is looked up at each call, so tests and scripts that patch it (as
    AgentScope's do) feed the terminal input. If the wait is cancelled, the thread stays
    blocked until a line arrives; that line is then discarded.

    Raises:
        EOFError: stdin is closed.
    """

    def read() -> str:
        line: str = builtins.input(prompt)
        return line

    return await asyncio.get_running_loop().run_in_executor(None, read)


class TerminalUserInput(UserInputBase):
    """Reads the person's input from the terminal (AgentScope's default input method).

    The text is read after ``input_hint``; with a structured model each field is then asked on
    its own line (``ask_fields``).

    Differs on purpose: AgentScope calls the blocking ``input()`` on the event loop, so nothing
    else runs while the person types (other agents stall, an interrupt cannot land); here the
    line is read in a worker thread and the wait can be interrupted.

    Args:
        input_hint: the prompt written before the person's text.
    """

    def __init__(self, input_hint: str = "User Input: ") -> None:
        self.input_hint = input_hint

    async def __call__(
        self,
        agent_id: str,
        agent_name: str,
        *args: Any,
        structured_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> UserInputData:
        """Read the text, then the structured model's fields if one is asked for."""
        # Surrogates (undecodable terminal bytes) would fail later, in JSON and HTML.
        text = (await read_line(self.input_hint)).encode("utf-8", errors="ignore").decode()
        structured = None
        if structured_model is not None:
            sys.stdout.write("Structured input (press Enter to skip for optional):\n")
            structured = await ask_fields(
                structured_model, lambda _key, label: read_line("\t" + label)
            )
        return UserInputData(blocks_input=[TextBlock(text=text)], structured_input=structured)


__all__ = ["TerminalUserInput", "UserInputBase", "UserInputData", "ask_fields", "read_line"]
