"""Chat models: the base interface, the offline ScriptedModel and OpenAI-compatible adapters.

``_base.py`` (``ChatModelBase``, ``ChatResponse``, ``ChatUsage``); ``_scripted.py`` the offline
model that drives tests and notebooks; ``_openai*.py`` the OpenAI-compatible adapter (request,
exchange with retries, stream parsing, errors, DashScope's compatible mode),
``_dashscope_model.py``/``_dashscope_native.py`` DashScope (its own API through the
``dashscope`` SDK, or the compatible mode) and ``_openai_usage.py`` the
provider's usage next to nb_hitl's own count; ``_structured.py`` structured output as one
forced tool call. May import message, formatter, token, tool and memory; never compression,
session, agent or anything above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import ChatModelBase, ChatResponse, ChatUsage, ModelCall
from ._openai_usage import PromptTokenCheck, check_prompt_tokens, reported_usage
from ._scripted import ScriptedCall, ScriptedModel, ScriptedToolCall, ScriptedTurn

if TYPE_CHECKING:
    from ._dashscope_model import DashScopeChatModel
    from ._openai import OpenAIChatModel

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

_LAZY = {"OpenAIChatModel": "._openai", "DashScopeChatModel": "._dashscope_model"}


def __getattr__(name: str) -> Any:
    # The adapters need the optional openai package: load them only when asked for.
    if name in _LAZY:
        import importlib

        from ._openai import import_openai

        import_openai()  # ImportError with the install command when missing
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
