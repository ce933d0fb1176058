"""Chat models: the base interface, the offline ScriptedModel and OpenAI-compatible adapters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import ChatModelBase, ChatResponse, ChatUsage, ModelCall
from ._openai_usage import PromptTokenCheck, check_prompt_tokens, reported_usage
from ._scripted import ScriptedCall, ScriptedModel, ScriptedToolCall, ScriptedTurn

if TYPE_CHECKING:
    from ._openai import OpenAIChatModel
    from ._openai_dashscope import DashScopeChatModel

__all__ = [
    "ChatModelBase",
    "ChatResponse",
    "ChatUsage",
    "DashScopeChatModel",
    "ModelCall",
    "OpenAIChatModel",
    "PromptTokenCheck",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedToolCall",
    "ScriptedTurn",
    "check_prompt_tokens",
    "reported_usage",
]

_LAZY = {"OpenAIChatModel": "._openai", "DashScopeChatModel": "._openai_dashscope"}


def __getattr__(name: str) -> Any:
    # The adapters need the optional openai package: load them only when asked for.
    if name in _LAZY:
        import importlib

        from ._openai import import_openai

        import_openai()  # ImportError with the install command when missing
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
