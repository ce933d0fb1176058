"""nb_hitl: human-in-the-loop interruption and resumption of LLM agents, in Jupyter.

The packages, lowest layer first (each imports only its own layer and those below; see
``tests/test_layers.py``): ``message`` -> ``events`` -> ``formatter``/``token`` ->
``tool``/``memory`` -> ``model`` -> ``compression`` -> ``session`` -> ``compression.replay`` ->
``agent`` -> ``pipeline`` -> ``serve`` -> ``widgets``/``extension``. ``import nb_hitl`` stays light:
widgets, the OpenAI SDK and tiktoken load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_hitl._lazy import attach
from nb_hitl._version import __version__

if TYPE_CHECKING:
    from nb_hitl.agent import (
        AgentBase,
        CompressionConfig,
        PermissionPolicy,
        PermissionRule,
        Question,
        ReActAgent,
        UserAgent,
        ask_user,
    )
    from nb_hitl.exceptions import AgentBusyError, NbHitlError
    from nb_hitl.formatter import OpenAIChatFormatter
    from nb_hitl.memory import InMemoryMemory
    from nb_hitl.message import Msg
    from nb_hitl.model import ScriptedModel
    from nb_hitl.tool import Toolkit, ToolResponse

__all__ = [
    "AgentBase",
    "AgentBusyError",
    "CompressionConfig",
    "InMemoryMemory",
    "Msg",
    "NbHitlError",
    "OpenAIChatFormatter",
    "PermissionPolicy",
    "PermissionRule",
    "Question",
    "ReActAgent",
    "ScriptedModel",
    "ToolResponse",
    "Toolkit",
    "UserAgent",
    "__version__",
    "ask_user",
    "serve",
    "show",
]

# Each name loads its subpackage on first use, so ``import nb_hitl`` itself imports no agent
# code (nor pydantic); ``nb_hitl.agent`` and the other subpackages load on first use too.
# Type checkers read the imports above instead, so a misspelt name is still an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {
            "nb_hitl.agent": (
                "AgentBase",
                "CompressionConfig",
                "PermissionPolicy",
                "PermissionRule",
                "Question",
                "ReActAgent",
                "UserAgent",
                "ask_user",
            ),
            "nb_hitl.exceptions": ("AgentBusyError", "NbHitlError"),
            "nb_hitl.formatter": ("OpenAIChatFormatter",),
            "nb_hitl.memory": ("InMemoryMemory",),
            "nb_hitl.message": ("Msg",),
            "nb_hitl.model": ("ScriptedModel",),
            "nb_hitl.tool": ("Toolkit", "ToolResponse"),
        },
        submodules=(
            "agent",
            "compression",
            "demo",
            "events",
            "exceptions",
            "extension",
            "formatter",
            "memory",
            "message",
            "model",
            "module",
            "pipeline",
            "serve",
            "server_extension",
            "session",
            "testing",
            "token",
            "tool",
            "widgets",
        ),
    )


def show(agent: Any, **kwargs: Any) -> Any:
    """Build the panel for ``agent``; display it in a cell.

    An agent gets an ``AgentPanel`` (chat + memory inspector); a ``MsgHub`` gets a
    ``HubPanel`` (one transcript for all participants, Stop, the pause prompt; run the
    discussion with ``panel.start(...)``). In a marimo notebook the panel comes as marimo
    shows it (``nb_hitl.widgets.marimo_panel``): the panel, one front-end module, through
    ``mo.ui.anywidget`` (``view.widget`` is the panel).

    Raises:
        TypeError: ``agent`` is neither an agent nor a ``MsgHub`` (checked before any widget
            is made, so nothing is left half-built).
    """
    from nb_hitl.agent import AgentBase
    from nb_hitl.pipeline import MsgHub

    if not isinstance(agent, (AgentBase, MsgHub)):
        from nb_hitl.model import ChatModelBase

        hint = ""
        if isinstance(agent, ChatModelBase):
            hint = " A model is not an agent: give it to one, ReActAgent(name=..., model=model)."
        raise TypeError(
            "show() takes an agent (ReActAgent, UserAgent, RemoteAgent, any AgentBase) or a "
            f"MsgHub, got {type(agent).__name__} {_short_repr(agent)}.{hint}"
        )
    from nb_hitl.widgets import in_marimo

    if in_marimo():
        from nb_hitl.widgets import marimo_panel

        return marimo_panel(agent, **kwargs)
    if isinstance(agent, MsgHub):
        from nb_hitl.widgets import HubPanel

        return HubPanel(agent, **kwargs)
    from nb_hitl.widgets import AgentPanel

    return AgentPanel(agent, **kwargs)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The Jupyter server extension (``jupyter server extension enable nb_hitl``): kernel
    websockets without Nagle's delay; see ``nb_hitl.server_extension``."""
    return [{"module": "nb_hitl.server_extension"}]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext nb_hitl``: Kernel ▸ Interrupt stops agents, magics, ``asyncio.run`` in cells.

    See ``nb_hitl.extension``; ``%unload_ext nb_hitl`` undoes it.
    """
    from nb_hitl.extension import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext nb_hitl``: put back everything ``%load_ext nb_hitl`` changed."""
    from nb_hitl.extension import unload_ipython_extension as unload

    unload(ipython)
