"""RegisteredTool: one tool in a toolkit, its schema (optionally extended) and its settings."""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Union

from pydantic import BaseModel

from nb_hitl.message import ToolUseBlock

from ._kind import ToolKind
from ._response import ToolResponse
from ._schema import strip_titles

ApprovalRule = Union[bool, Callable[[ToolUseBlock], bool]]  # noqa: UP007
"""``True``/``False``, or a predicate on the call, deciding if a call waits for a person."""

PostprocessFunc = Callable[
    [ToolUseBlock, ToolResponse], "ToolResponse | Awaitable[ToolResponse | None] | None"
]
"""Called with the call and each response; a returned ``ToolResponse`` replaces it."""


@dataclass
class RegisteredTool:
    """A registered tool: the function, its argument model, its JSON schema and settings."""

    name: str
    func: Callable[..., Any]
    args_model: type[BaseModel]
    description: str
    needs_approval: ApprovalRule = False
    preset_kwargs: dict[str, Any] = field(default_factory=dict)
    group: str = "basic"
    """The tool group; tools outside ``basic`` are offered only while their group is active."""
    json_schema: dict[str, Any] = field(default_factory=dict)
    """The OpenAI function-tool schema, without the extended model."""
    original_name: str | None = None
    """The function's own name when the tool was registered under another one."""
    extended_model: type[BaseModel] | None = None
    """Extra arguments merged into the schema (``Toolkit.set_extended_model``)."""
    postprocess_func: PostprocessFunc | None = None
    async_execution: bool = False
    """Run in the background; the call answers at once with a task id."""
    var_positional: str | None = None
    """Name of the function's ``*args`` when the schema offers it."""
    read_only: bool = False
    """The tool only reads: the ``allow_reads`` permission mode lets its calls run."""
    kind: ToolKind | None = None
    """What the tool does: ``"reads"``, ``"edits"``, ``"runs"`` or ``"network"`` (``None``:
    not declared)."""
    path_args: tuple[str, ...] = ()
    """Arguments that are file paths: normalised (``..``, ``.``, ``//``, symlinks) before
    permission rules match them."""
    rule_arg: str | None = None
    """The argument a rule specifier (``run_shell(npm test:*)``) matches."""
    rule_matcher: Callable[[str, dict[str, Any]], bool] | None = None
    """``matcher(specifier, arguments)``: the tool's own reading of a rule specifier."""
    always_ask: bool = False
    """Every call waits for a person: no mode or broad rule allows it, only a decision on
    that call (deny rules and deny modes still refuse it)."""
    outlive_reply: bool = False
    """A background task of this tool keeps running when the reply that started it is
    interrupted (others are cancelled)."""

    @property
    def original_func(self) -> Callable[..., Any]:
        """The function (AgentScope's name for it)."""
        return self.func

    @property
    def extended_json_schema(self) -> dict[str, Any]:
        """The schema with the extended model's fields merged in (the plain one without).

        Raises:
            ValueError: an extended field, or a same-named ``$defs`` entry with another
                shape, clashes with the function's own.
        """
        if self.extended_model is None:
            return self.json_schema
        extra = self.extended_model.model_json_schema()
        strip_titles(extra)
        merged = copy.deepcopy(self.json_schema)
        params = merged["function"]["parameters"]
        props = params.setdefault("properties", {})
        for key, value in extra.get("properties", {}).items():
            if key in props:
                raise ValueError(
                    f"The extended model's field {key!r} already exists in the arguments of "
                    f"tool {self.name!r}; rename the field."
                )
            props[key] = value
            if key in extra.get("required", []):
                params.setdefault("required", []).append(key)
        for key, value in extra.get("$defs", {}).items():
            defs = params.setdefault("$defs", {})
            if key in defs and defs[key] != value:
                raise ValueError(
                    f"The extended model's definition {key!r} differs from the one in tool "
                    f"{self.name!r}'s arguments; rename one of the two models."
                )
            defs[key] = value
        return merged

    def requires_approval(self, call: ToolUseBlock) -> bool:
        """Whether ``call`` must wait for a person's decision before it runs."""
        rule = self.needs_approval
        return bool(rule(call)) if callable(rule) else bool(rule)
