"""Toolkit: register Python functions as tools, describe them as JSON schemas, call them.

Schemas come from the function signature (via pydantic) and the Google-style docstring.
Sync functions run in a worker thread so the event loop, and with it the Stop button, stays
responsive; if the reply is interrupted the agent stops waiting and discards the late result.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import re
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Union, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from nb_hitl.exceptions import ToolError
from nb_hitl.message import ToolUseBlock

from ._response import ToolResponse

ApprovalRule = Union[bool, Callable[[ToolUseBlock], bool]]  # noqa: UP007

_ARGS_RE = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$", re.MULTILINE)
_SECTION_RE = re.compile(r"^\s*[A-Z][A-Za-z ]+:\s*$")
_PARAM_RE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")

# A small private pool: a stuck sync tool must not starve the loop's default executor.
_TOOL_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="nb_hitl-tool")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts."""
    doc = inspect.cleandoc(doc or "")
    match = _ARGS_RE.search(doc)
    if not match:
        return doc.strip(), {}
    description = doc[: match.start()].strip()
    params: dict[str, str] = {}
    current: str | None = None
    for line in doc[match.end() :].splitlines():
        if _SECTION_RE.match(line) and not line.startswith((" ", "\t")):
            break
        m = _PARAM_RE.match(line)
        indent = len(line) - len(line.lstrip())
        if m and (current is None or indent <= 4):
            current = m.group(1).lstrip("*")
            params[current] = m.group(2).strip()
        elif current and line.strip():
            params[current] = (params[current] + " " + line.strip()).strip()
    return description, params


@dataclass
class RegisteredTool:
    """A registered tool: the function, its argument model and its JSON schema."""

    name: str
    func: Callable[..., Any]
    args_model: type[BaseModel]
    description: str
    needs_approval: ApprovalRule = False
    preset_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def json_schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema."""
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        for prop in params.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def requires_approval(self, call: ToolUseBlock) -> bool:
        """Whether ``call`` must wait for a person's decision before it runs."""
        rule = self.needs_approval
        return bool(rule(call)) if callable(rule) else bool(rule)


def _build_args_model(func: Callable[..., Any], name: str, skip: set[str]) -> type[BaseModel]:
    _, param_docs = _parse_docstring(func.__doc__ or "")
    try:
        hints = get_type_hints(func)
    except Exception:  # unresolvable forward refs: fall back to raw annotations
        hints = {}
    fields: dict[str, Any] = {}
    from pydantic import Field

    for pname, param in inspect.signature(func).parameters.items():
        if pname in skip or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, param.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    return create_model(f"{name}_args", __config__=config, **fields)


def _to_response(value: Any) -> ToolResponse:
    if isinstance(value, ToolResponse):
        return value
    if isinstance(value, str):
        return ToolResponse.text(value)
    if value is None:
        return ToolResponse.text("")
    try:
        return ToolResponse.text(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return ToolResponse.text(str(value))


class Toolkit:
    """A set of tools an agent can call."""

    def __init__(self) -> None:
        self.tools: dict[str, RegisteredTool] = {}

    def register_tool_function(
        self,
        tool_func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        preset_kwargs: dict[str, Any] | None = None,
        needs_approval: ApprovalRule = False,
    ) -> RegisteredTool:
        """Register a sync function, async function or async generator as a tool.

        Args:
            tool_func: the function. Its signature gives the argument schema; its docstring's
                first part the description and its ``Args:`` section the argument texts.
            name: the tool's name (default: the function's name).
            description: overrides the docstring description.
            preset_kwargs: arguments filled in by the toolkit, hidden from the model.
            needs_approval: ``True``, or a predicate on the call, to make calls wait for a
                person's approval before they run.
        """
        if not callable(tool_func):
            raise ToolError(f"register_tool_function needs a function, got {tool_func!r}.")
        tool_name = name or getattr(tool_func, "__name__", None)
        if not tool_name or not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tool_name):
            raise ToolError(
                f"Tool name {tool_name!r} is not valid: use 1-64 letters, digits, '_' or '-' "
                "(pass name=... to choose one)."
            )
        if tool_name in self.tools:
            raise ToolError(
                f"A tool named {tool_name!r} is already registered; pass name=... or call "
                "remove_tool_function first."
            )
        preset = dict(preset_kwargs or {})
        doc_description, _ = _parse_docstring(tool_func.__doc__ or "")
        tool = RegisteredTool(
            name=tool_name,
            func=tool_func,
            args_model=_build_args_model(tool_func, tool_name, set(preset)),
            description=description or doc_description or tool_name,
            needs_approval=needs_approval,
            preset_kwargs=preset,
        )
        self.tools[tool_name] = tool
        return tool

    def remove_tool_function(self, name: str) -> None:
        """Unregister a tool."""
        self.tools.pop(name, None)

    def get_json_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-tool schemas of every registered tool."""
        return [t.json_schema for t in self.tools.values()]

    def validate_call(self, call: ToolUseBlock) -> dict[str, Any]:
        """Validate ``call``'s arguments; return them, or raise ``ToolError`` saying why."""
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise ToolError(f"Unknown tool {call.name!r}. Available tools: {known}.")
        if call.raw_input is not None:
            raise ToolError(
                f"The arguments for {call.name!r} are not valid JSON: {call.raw_input[:200]!r}."
            )
        try:
            model = tool.args_model.model_validate(call.input)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in exc.errors()
            )
            raise ToolError(f"Invalid arguments for {call.name!r}: {problems}.") from None
        return {k: getattr(model, k) for k in type(model).model_fields}

    async def call_tool_function(self, call: ToolUseBlock) -> AsyncGenerator[ToolResponse, None]:
        """Run ``call`` and yield its output (several times for streaming tools).

        Errors (unknown tool, invalid arguments, an exception in the tool) are yielded as a
        response with ``is_error=True`` so the model can see them and recover.
        """
        try:
            kwargs = self.validate_call(call)
        except ToolError as exc:
            yield ToolResponse.text(f"Error: {exc}", is_error=True)
            return
        tool = self.tools[call.name]
        kwargs.update(tool.preset_kwargs)
        func = tool.func
        try:
            if inspect.isasyncgenfunction(func):
                last: ToolResponse | None = None
                async for item in func(**kwargs):
                    last = _to_response(item)
                    last.is_last = False
                    yield last
                final = last.model_copy() if last is not None else ToolResponse.text("")
                final.is_last = True
                yield final
            elif inspect.iscoroutinefunction(func):
                yield _to_response(await func(**kwargs))
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(
                    _TOOL_THREADS, functools.partial(func, **kwargs)
                )
                yield _to_response(result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            yield ToolResponse.text(
                f"Error: tool {call.name!r} raised {type(exc).__name__}: {exc}", is_error=True
            )
