"""UserAgent: a person's turn in a loop, awaited without blocking the event loop.

    user = UserAgent("User", QueueInput())      # or TerminalInput(), or a widget's input source
    msg = None
    while True:
        msg = await user(msg)
        msg = await agent(msg)

Interrupting a UserAgent that waits returns an interrupted ``Msg`` like any agent.

``await user(msg, structured_model=Form)`` (AgentScope's structured user input) then asks for
each field of the pydantic model in turn, through the same input source, re-asking after an
invalid value, and puts the validated fields in the reply's ``metadata``. A ``Msg`` input whose
metadata already holds valid fields (a form in a front end) is taken as it is.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterable
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import BaseModel, TypeAdapter, ValidationError

from nb_hitl.exceptions import NbHitlError
from nb_hitl.message import Msg

from ._base import AgentBase
from ._structured import check_structured_model

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
        """Queue one input from any thread."""
        if self._queue is None or self._loop is None:
            self._early.append(item)
        else:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

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

        def read() -> str:
            sys.stdout.write(asking)
            sys.stdout.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError("stdin closed")
            return line.rstrip("\n")

        return await asyncio.get_running_loop().run_in_executor(None, read)


class UserAgent(AgentBase):
    """An agent that speaks for a person: its reply is whatever the input source yields."""

    def __init__(self, name: str, input_source: InputSource | None = None) -> None:
        super().__init__(name, interrupt_text="[Interrupted] Stopped waiting for user input.")
        self.input_source: InputSource = input_source or TerminalInput()

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
        item = await self.input_source(msg)
        reply = item if isinstance(item, Msg) else Msg(self.name, str(item), "user")
        if structured_model is not None:
            model = check_structured_model(structured_model)
            reply.metadata.update(await self._fill_in(model, reply.metadata))
        if self.console_output_enabled or self.has_hooks("print"):
            await self.print(reply)
        return reply

    async def _fill_in(self, model: type[BaseModel], given: dict[str, Any]) -> dict[str, Any]:
        try:  # a front end sent the form already filled in
            return model.model_validate(given).model_dump(mode="json")
        except ValidationError:
            pass
        values: dict[str, Any] = {}
        properties = model.model_json_schema().get("properties", {})
        for key, info in model.model_fields.items():
            schema = {k: v for k, v in properties.get(key, {}).items() if k != "title"}
            field_type: Any = Annotated[info.annotation, info]
            adapter: TypeAdapter[Any] = TypeAdapter(field_type)
            problem = ""
            while True:
                self._where = f"waiting for the field {key}"
                label = f"{key} ({json.dumps(schema, ensure_ascii=False)}){problem}: "
                prompt = Msg(self.name, label, "assistant", metadata={FIELD_KEY: key})
                answer = await self.input_source(prompt)
                text = answer.get_text_content() or "" if isinstance(answer, Msg) else str(answer)
                if not text.strip():
                    if info.is_required():
                        problem = " [required]"
                        continue
                    break  # the model's default applies
                try:
                    values[key] = _validate(adapter, text)
                    break
                except ValidationError as exc:
                    problem = f" [invalid: {exc.errors()[0]['msg']}]"
        return model.model_validate(values).model_dump(mode="json")

    async def handle_interrupt(self, msg: Msg | None = None, **kwargs: Any) -> Msg:
        """The interrupted message of a person's turn (role ``user``)."""
        return self._interrupted_msg(role="user")


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
