"""What a tool does to the world, declared so permission modes can treat it right.

``"reads"`` (looks, changes nothing), ``"edits"`` (changes files or data), ``"runs"`` (executes
code or commands: anything can happen). A function declares its kind with ``tool_kind``; the
toolkit reads it at registration (``register_tool_function(kind=...)`` overrides it) and a
``"reads"`` tool counts as read-only for the ``allow_reads`` permission mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar, get_args

ToolKind = Literal["reads", "edits", "runs"]
"""The kinds a tool can declare."""

KIND_ATTR = "__nb_hitl_kind__"
"""The function attribute that carries a declared kind."""

F = TypeVar("F", bound=Callable[..., object])


def tool_kind(kind: ToolKind) -> Callable[[F], F]:
    """Declare what the decorated tool function does (``@tool_kind("edits")``).

    Raises:
        ValueError: ``kind`` is not one of ``ToolKind``'s.
    """
    if kind not in get_args(ToolKind):
        raise ValueError(f"A tool's kind is one of {get_args(ToolKind)}, got {kind!r}.")

    def declare(func: F) -> F:
        setattr(func, KIND_ATTR, kind)
        return func

    return declare


def declared_kind(func: Callable[..., object]) -> ToolKind | None:
    """The kind ``func`` declared, if it declared one."""
    kind = getattr(func, KIND_ATTR, None)
    return kind if kind in get_args(ToolKind) else None
