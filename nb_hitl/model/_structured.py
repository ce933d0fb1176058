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
    description: str = "Generate the required structured output with this function",
) -> dict[str, Any]:
    """The tool schema called ``name`` whose arguments are ``model``'s fields (the model's
    forced call here, and ``ReActAgent``'s finish function)."""
    from nb_hitl.tool import strip_titles  # the tools' own schema rule: one for both

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
    calls = [b for b in chunk.content if b.type == "tool_use" and b.raw_input is None]
    # The forced call; else (a server that renamed it, or answered a tool_choice downgraded to
    # "auto") the first complete call, the only tool offered, as AgentScope reads it.
    named = [b for b in calls if b.name == STRUCTURED_TOOL] or calls[:1]
    for block in named:
        # exactly the structured output, as AgentScope (the finish reason is not kept)
        return chunk.model_copy(update={"metadata": dict(block.input)})
    return chunk
