"""UserAgent: a person's turn in a loop, awaited without blocking the event loop.

    user = UserAgent("User", QueueInput())      # or TerminalInput(), or a widget's input source
    user = UserAgent("User")                    # AgentScope's input methods: TerminalUserInput
    msg = None
    while True:
        msg = await user(msg)
        msg = await agent(msg)

Interrupting a UserAgent that waits returns an interrupted ``Msg`` like any agent.

``await user(msg, structured_model=Form)`` (AgentScope's structured user input) then asks for
each field of the pydantic model in turn, through the same input source, re-asking after an
invalid value, and puts the validated fields in the reply's ``metadata``. A ``Msg`` input whose
metadata already holds valid fields (a form in a front end) is taken as it is. An
AgentScope input method (``_user_input.py``) fills in the form itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from nb_hitl.exceptions import NbHitlError
from nb_hitl.message import Msg

from ._base import AgentBase
from ._lifecycle import on_loop_thread
from ._structured import check_structured_model
from ._user_input import TerminalUserInput, UserInputBase, UserInputData, ask_fields, read_line

FIELD_KEY = "structured_field"
"""``metadata`` key of the prompt a UserAgent sends to ask for one field of a structured model."""


@runtime_checkable
class InputSource(Protocol):
    """Where a UserAgent's input comes from: an awaitable returning text or a ``Msg``."""

    async def __call__(self, prompt: Msg | None) -> str | Msg: ...


class QueueInput:
    """Input fed programmatically (pipelines, tests): ``put(text)`` from the loop's thread,
    ``put_threadsafe(text)`` from any other."""

    def __init__(self, items: Iterable[str | Msg] = ()) -> None:
        self._queue: asyncio.Queue[str | Msg] | None = None
        self._early: list[str | Msg] = list(items)
        self._loop: asyncio.AbstractEventLoop | None = None

    def _q(self) -> asyncio.Queue[str | Msg]:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._loop = asyncio.get_running_loop()
            for item in self._early:
                self._queue.put_nowait(item)
            self._early.clear()
        return self._queue

    def put(self, item: str | Msg) -> None:
        """Queue one input (call on the event loop's thread, or before the loop runs)."""
        if self._queue is None:
            self._early.append(item)
        else:
            self._queue.put_nowait(item)

    def put_threadsafe(self, item: str | Msg) -> None:
        """Queue one input from any thread (through the agent's one hop, ``on_loop_thread``)."""
        queue = self._queue
        if queue is None or self._loop is None:
            self._early.append(item)
        else:
            on_loop_thread(
                self._loop, lambda: queue.put_nowait(item), lambda: queue.put_nowait(item)
            )

    @property
    def waiting(self) -> int:
        """Inputs queued and not yet consumed."""
        return len(self._early) if self._queue is None else self._queue.qsize()

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        return await self._q().get()


class ScriptedInput:
    """Plays a fixed list of inputs; a clear error when it runs out."""

    def __init__(self, items: Iterable[str | Msg]) -> None:
        self.items = list(items)
        self._next = 0

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        if self._next >= len(self.items):
            raise NbHitlError(
                f"ScriptedInput has no input left after {len(self.items)} item(s); add more "
                "items or use QueueInput to feed input as you go."
            )
        item = self.items[self._next]
        self._next += 1
        await asyncio.sleep(0)
        return item


class TerminalInput:
    """Reads a line from stdin in a worker thread, so the event loop keeps running.

    If the wait is interrupted, the thread stays blocked on stdin until a line arrives; that
    line is then discarded.
    """

    def __init__(self, prompt: str = "You: ") -> None:
        self.prompt = prompt

    async def __call__(self, prompt: Msg | None) -> str | Msg:
        asking = self.prompt
        if prompt is not None and FIELD_KEY in prompt.metadata:  # a field of a form
            asking = f"\t{prompt.get_text_content()}"
        return await read_line(asking)


class UserAgent(AgentBase):
    """An agent that speaks for a person: its reply is whatever the person enters.

    The input comes from ``input_source`` when one is given (nb_hitl's sources: a queue, a
    script, the terminal, a chat widget), else from the input method: AgentScope's
    ``TerminalUserInput()`` unless ``override_instance_input_method`` or, for every
    ``UserAgent``, ``override_class_input_method`` installed another ``UserInputBase``. The
    latest choice made for an instance (its ``input_source`` or its own input method) wins
    over the class's.
    """

    _input_method: UserInputBase = TerminalUserInput()
    """The class's input method (``override_class_input_method`` replaces it)."""

    def __init__(self, name: str, input_source: InputSource | None = None) -> None:
        super().__init__(name, interrupt_text="[Interrupted] Stopped waiting for user input.")
        self.input_source: InputSource | None = input_source

    @property
    def reads_terminal(self) -> bool:
        """Whether the input comes from the terminal (``TerminalInput`` or, with no input
        source, a ``TerminalUserInput`` method), which a notebook panel replaces."""
        if self.input_source is None:
            return isinstance(self._input_method, TerminalUserInput)
        return isinstance(self.input_source, TerminalInput)

    def override_instance_input_method(self, input_method: UserInputBase) -> None:
        """Take this agent's input from ``input_method`` (AgentScope's API).

        Raises:
            ValueError: ``input_method`` is not a ``UserInputBase`` (as in AgentScope).
        """
        self._input_method = _checked(input_method)
        self.input_source = None

    @classmethod
    def override_class_input_method(cls, input_method: UserInputBase) -> None:
        """Take the input of every agent of this class from ``input_method`` (agents given
        their own ``input_source`` or input method keep theirs).

        Raises:
            ValueError: ``input_method`` is not a ``UserInputBase`` (as in AgentScope).
        """
        cls._input_method = _checked(input_method)

    async def reply(
        self, msg: Msg | None = None, structured_model: Any = None, **kwargs: Any
    ) -> Msg:
        """Wait for the person's next input and return it as a user message.

        Args:
            msg: what the person answers (shown by input sources that show it).
            structured_model: a pydantic model whose fields the person fills in next; the
                validated values go into the reply's ``metadata``.
        """
        self._where = "waiting for input"
        model = None if structured_model is None else check_structured_model(structured_model)
        if self.input_source is None:
            reply = await self._from_input_method(model)
        else:
            item = await self.input_source(msg)
            reply = item if isinstance(item, Msg) else Msg(self.name, str(item), "user")
            if model is not None:
                reply.metadata.update(await self._fill_in(model, reply.metadata))
        if self._print_wanted():
            await self.print(reply)
        return reply

    async def _from_input_method(self, model: type[BaseModel] | None) -> Msg:
        method = self._input_method
        data = await method(agent_id=self.id, agent_name=self.name, structured_model=model)
        if not isinstance(data, UserInputData):
            raise TypeError(
                f"The input method {type(method).__name__} returned {type(data).__name__}; "
                "it must return UserInputData(blocks_input=[...], structured_input=...)."
            )
        blocks = list(data.blocks_input or [])
        content: Any = blocks
        if len(blocks) == 1 and blocks[0].get("type") == "text":
            content = blocks[0].get("text")  # one text block: the text itself, as AgentScope
        metadata = dict(data.structured_input or {})
        if model is not None:
            # differs on purpose: AgentScope stores whatever the method returned; here the
            # fields are checked against the model, so the caller can trust them.
            try:
                model.model_validate(metadata)
            except ValidationError as exc:
                raise ValueError(
                    f"The input method {type(method).__name__} returned structured_input "
                    f"{data.structured_input!r}, which does not fit {model.__name__}: {exc}"
                ) from exc
        return Msg(self.name, content if content else "", "user", metadata=metadata)

    async def _fill_in(self, model: type[BaseModel], given: dict[str, Any]) -> dict[str, Any]:
        try:  # a front end sent the form already filled in
            return model.model_validate(given).model_dump(mode="json")
        except ValidationError:
            pass

        async def ask(key: str, label: str) -> str:
            self._where = f"waiting for the field {key}"
            prompt = Msg(self.name, label, "assistant", metadata={FIELD_KEY: key})
            answer = await self.input_source(prompt)  # type: ignore[misc]
            return answer.get_text_content() or "" if isinstance(answer, Msg) else str(answer)

        return await ask_fields(model, ask)

    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """The interrupted message of a person's turn (role ``user``)."""
        return self._interrupted_msg(role="user")


def _checked(input_method: Any) -> UserInputBase:
    if not isinstance(input_method, UserInputBase):
        raise ValueError(
            "The input method should be an instance of a subclass of UserInputBase, got "
            f"{type(input_method).__name__}. nb_hitl's input sources (QueueInput, "
            "ScriptedInput, TerminalInput, a chat's input_source()) go in "
            "UserAgent(name, input_source) or user.input_source = ... instead."
        )
    return input_method
