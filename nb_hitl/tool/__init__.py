"""Tools: register functions, describe them to the model, run them; AgentScope's built-ins.

``Toolkit`` (``_toolkit.py``) registers functions (``_registered.py``, schemas in
``_schema.py``, kinds in ``_kind.py``) and runs calls (``_execute.py``); it owns two parts,
``grouping`` (``ToolGroups``, ``_groups.py``: groups and the meta tool) and ``background``
(``BackgroundTasks``, ``_background.py``), behind AgentScope's method names. Agent skills are
``_skills.py``; ``ToolResponse`` is ``_response.py``.
``_builtin/`` holds AgentScope 1.x's built-in tools (``execute_python_code``,
``execute_shell_command``, ``view_text_file``, ``write_text_file``, ``insert_text_file``),
loaded on first use. May import message and the foundation; nothing above.

Besides ``__all__``, two names for nb_hitl's own packages above (no compatibility promise):
``background_owner`` (the reply running a tool: the agent sets it, background tasks read it)
and ``strip_titles`` (the tools' schema rule, which structured output shares).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

if TYPE_CHECKING:
    from ._background import BackgroundTask
    from ._background import background_owner as background_owner  # for agents (docstring)
    from ._builtin import (
        execute_python_code,
        execute_shell_command,
        insert_text_file,
        view_text_file,
        write_text_file,
    )
    from ._execute import ToolCallStream
    from ._groups import ToolGroup
    from ._kind import ToolKind, tool_kind
    from ._registered import RegisteredTool
    from ._response import ToolResponse
    from ._schema import strip_titles as strip_titles  # for structured output (docstring)
    from ._toolkit import Toolkit

# AgentScope's names first, in its order, then nb_hitl's own.
__all__ = [
    "BackgroundTask",
    "RegisteredTool",
    "ToolCallStream",
    "ToolGroup",
    "ToolKind",
    "ToolResponse",
    "Toolkit",
    "execute_python_code",
    "execute_shell_command",
    "insert_text_file",
    "tool_kind",
    "view_text_file",
    "write_text_file",
]

# Each name loads its module on first use: an agent reads ``ToolResponse`` and
# ``background_owner`` at import, and the ``Toolkit`` (schemas, execution, groups, skills) only
# when it makes one. Type checkers read the imports above instead.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "._background": ("BackgroundTask", "background_owner"),
            "._execute": ("ToolCallStream",),
            "._groups": ("ToolGroup",),
            "._kind": ("ToolKind", "tool_kind"),
            "._registered": ("RegisteredTool",),
            "._response": ("ToolResponse",),
            "._schema": ("strip_titles",),
            "._toolkit": ("Toolkit",),
            "._builtin": (
                "execute_python_code",
                "execute_shell_command",
                "insert_text_file",
                "view_text_file",
                "write_text_file",
            ),
        },
    )
