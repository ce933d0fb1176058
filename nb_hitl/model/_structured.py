"""Structured output through one forced tool call (what AgentScope 1.x falls back to).

The pydantic model becomes the parameters of a tool named ``generate_structured_output``; the
model is made to call it, and the call's parsed arguments go into the response's ``metadata``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ._base import ChatResponse

STRUCTURED_TOOL = "generate_structured_output"
"""Name of the tool a ``structured_model`` call forces."""


def structured_tool(
    model: type[BaseModel],
    name: str = STRUCTURED_TOOL,
    description: str = "Give the required structured output by calling this function.",
) -> dict[str, Any]:
    """The tool schema called ``name`` whose arguments are ``model``'s fields (the model's
    forced call here, and ``ReActAgent``'s finish function)."""
    from nb_hitl.tool._schema import strip_titles  # the tools' own schema rule: one for both

    params = model.model_json_schema()  # a fresh dict on each call: safe to change in place
    strip_titles(params)  # schema titles only: a field called "title" stays, nested ones too
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": params,
        },
    }


def with_structured_output(chunk: ChatResponse) -> ChatResponse:
    """``chunk`` whose ``metadata`` is the forced call's parsed arguments (once complete)."""
    for block in chunk.content:
        if block.type == "tool_use" and block.name == STRUCTURED_TOOL and block.raw_input is None:
            # exactly the structured output, as AgentScope (the finish reason is not kept)
            return chunk.model_copy(update={"metadata": dict(block.input)})
    return chunk
