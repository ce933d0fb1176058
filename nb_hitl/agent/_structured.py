"""Structured output: ``await agent(msg, structured_model=Model)`` as AgentScope 1.x does it.

The agent offers the model one more tool, ``generate_response``, whose parameters are the
pydantic model's JSON schema, and asks for a tool call (``tool_choice="required"``). The call's
arguments are validated with the model; a validation error goes back to the model as the tool's
result (it can retry), a valid call ends with the fields in the reply's ``metadata``. If the
model's message with that call also had text, that text is the reply; otherwise the model is
asked once more for a text answer (``tool_choice="none"``). Hints to the model (AgentScope's
``<system-hint>`` messages) are added to the next prompt only, never kept in memory.

Difference kept on purpose: ``generate_response`` is not registered in ``agent.toolkit``
(AgentScope registers and removes it there on every reply); the toolkit the user built stays
exactly as built, and a tool of the user's named ``generate_response`` is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from nb_hitl.message import Msg, ToolUseBlock

FINISH_FUNCTION_NAME = "generate_response"
"""The name of the tool that returns the structured output (AgentScope's default)."""

SUCCESS_TEXT = "Successfully generated response."
TEXT_NOW_HINT = (
    "<system-hint>Now generate a text response based on your current situation</system-hint>"
)


def structured_required_hint(name: str = FINISH_FUNCTION_NAME) -> str:
    """The hint sent when the model answered without calling the finish function."""
    return (
        "<system-hint>Structured output is required, go on to finish your task or call "
        f"'{name}' to generate the required structured output.</system-hint>"
    )


def check_structured_model(structured_model: Any) -> type[BaseModel]:
    """``structured_model`` itself, or a ``TypeError`` that says what to pass."""
    if not (isinstance(structured_model, type) and issubclass(structured_model, BaseModel)):
        raise TypeError(
            "structured_model must be a pydantic BaseModel subclass (the class, not an "
            f"instance), got {structured_model!r}."
        )
    return structured_model


def finish_function_schema(
    structured_model: type[BaseModel], name: str = FINISH_FUNCTION_NAME
) -> dict[str, Any]:
    """The OpenAI-style tool schema of the finish function for ``structured_model``."""
    from nb_hitl.model import structured_tool  # one schema rule for both

    description = "Generate the required structured output by this function and return it."
    return structured_tool(structured_model, name, description)


def validate_structured(
    structured_model: type[BaseModel], arguments: Any
) -> tuple[dict[str, Any] | None, str]:
    """Validate a finish-function call: ``(fields, result text)``; fields ``None`` if invalid."""
    if not isinstance(arguments, dict):
        return None, (
            f"Arguments Validation Error: expected a JSON object with the fields of "
            f"{structured_model.__name__}, got {type(arguments).__name__}."
        )
    try:
        fields = structured_model.model_validate(arguments).model_dump(mode="json")
    except ValidationError as exc:
        return None, f"Arguments Validation Error: {exc}"
    return fields, SUCCESS_TEXT


@dataclass
class StructuredTurn:
    """The structured-output state of one reply (AgentScope's loop, in one place)."""

    model: type[BaseModel] | None = None
    """The model still to be filled; ``None`` when none was asked for or it is done."""
    name: str = FINISH_FUNCTION_NAME
    """The finish function's name."""
    output: dict[str, Any] | None = None
    """The validated fields, once the model called the finish function correctly."""
    hint: str | None = None
    """A hint for the next prompt only (never kept in memory)."""
    offered: type[BaseModel] | None = None
    """The model the finish function validates against, offered for the whole reply."""

    def __post_init__(self) -> None:
        if self.offered is None:
            self.offered = self.model

    @property
    def first_tool_choice(self) -> str | None:
        """``"required"`` while structured output is wanted (the model must call a tool)."""
        return "required" if self.model is not None else None

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The finish function's schema while it is wanted."""
        if self.offered is None:
            return []
        return [finish_function_schema(self.offered, self.name)]

    def handles(self, call: ToolUseBlock) -> bool:
        """Whether ``call`` is a call of the finish function this reply offered."""
        return self.offered is not None and call.name == self.name

    def take_hint(self) -> str | None:
        """The pending hint, cleared (it goes into one prompt only)."""
        hint, self.hint = self.hint, None
        return hint

    def after_step(
        self,
        agent_name: str,
        response: Msg,
        outputs: list[dict[str, Any] | None],
        tool_choice: str | None,
    ) -> tuple[str | None, Msg | None]:
        """After a reasoning-acting step while the fields are wanted: the next tool choice,
        and the reply if this step finished it."""
        found = [o for o in outputs if o]
        if found:
            self.output = found[-1]
            texts = response.get_content_blocks("text")
            if texts:  # the same message already said something: that is the answer
                return tool_choice, Msg(agent_name, texts, "assistant", metadata=dict(self.output))
            self.model = None  # satisfied: now ask for a text answer only
            self.hint = TEXT_NOW_HINT
            return "none", None
        if not response.get_content_blocks("tool_use"):
            self.hint = structured_required_hint(self.name)
            return "required", None
        return tool_choice, None

    def finish(self, reply: Msg) -> Msg:
        """Put the validated fields (if any) into ``reply.metadata``."""
        if self.output:
            reply.metadata.update(self.output)
        return reply


__all__ = [
    "FINISH_FUNCTION_NAME",
    "TEXT_NOW_HINT",
    "StructuredTurn",
    "check_structured_model",
    "finish_function_schema",
    "structured_required_hint",
    "validate_structured",
]
