"""What a tool does to the world, declared so permission modes and rules can treat it right.

``"reads"`` (looks, changes nothing), ``"edits"`` (changes files or data), ``"runs"`` (executes
code or commands: anything can happen), ``"network"`` (talks to other machines). A function
declares its kind with ``tool_kind``; the toolkit reads it at registration
(``register_tool_function(kind=...)`` overrides it). A ``"reads"`` tool counts as read-only
for the ``allow_reads`` and ``plan`` permission modes; ``accept_edits`` lets ``"edits"`` tools
run; a rule can select tools by kind (``PermissionRule("deny", "*", kind="network")``).

``tool_kind`` also declares which arguments are file paths (``path_args``: normalised, with
symlinks resolved, before rules match them) and which argument a rule specifier such as
``run_shell(npm test:*)`` matches (``rule_arg``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar, get_args

ToolKind = Literal["reads", "edits", "runs", "network"]
"""The kinds a tool can declare."""

KIND_ATTR = "__nb_hitl_kind__"
"""The function attribute that carries a declared kind."""
PATH_ARGS_ATTR = "__nb_hitl_path_args__"
"""The function attribute that names its path arguments."""
RULE_ARG_ATTR = "__nb_hitl_rule_arg__"
"""The function attribute that names the argument rule specifiers match."""

F = TypeVar("F", bound=Callable[..., object])


def tool_kind(
    kind: ToolKind, *, path_args: Sequence[str] = (), rule_arg: str | None = None
) -> Callable[[F], F]:
    """Declare what the decorated tool function does (``@tool_kind("edits")``).

    Args:
        kind: ``"reads"``, ``"edits"``, ``"runs"`` or ``"network"``.
        path_args: the arguments that are file paths (``["file_path"]``).
        rule_arg: the argument a rule specifier matches (``"command"`` for
            ``run_shell(npm test:*)``); default: the first path argument, else the only
            required text argument.

    Raises:
        ValueError: ``kind`` is not one of ``ToolKind``'s.
    """
    if kind not in get_args(ToolKind):
        raise ValueError(f"A tool's kind is one of {get_args(ToolKind)}, got {kind!r}.")

    def declare(func: F) -> F:
        setattr(func, KIND_ATTR, kind)
        if path_args:
            setattr(func, PATH_ARGS_ATTR, tuple(path_args))
        if rule_arg is not None:
            setattr(func, RULE_ARG_ATTR, rule_arg)
        return func

    return declare


def declared_kind(func: Callable[..., object]) -> ToolKind | None:
    """The kind ``func`` declared, if it declared one."""
    kind = getattr(func, KIND_ATTR, None)
    return kind if kind in get_args(ToolKind) else None
