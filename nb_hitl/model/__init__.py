"""Chat models: the base interface, the offline ScriptedModel and OpenAI-compatible adapters.

``_base.py`` (``ChatModelBase``, ``ChatResponse``, ``ChatUsage``); ``_scripted.py`` the offline
model that drives tests and notebooks (its ``demo()`` answers with ``nb_hitl.demo.model``);
``_continuation.py`` the two forms of asking a model to continue a partial answer;
``_openai*.py`` the OpenAI-compatible adapter (it owns an ``Exchange``, ``_openai_exchange.py``:
request, reader task, retries; stream parsing, errors, DashScope's compatible mode),
``_dashscope_model.py``/``_dashscope_native.py`` DashScope (its own API through the
``dashscope`` SDK, or the compatible mode) and ``_openai_usage.py`` the provider's usage next
to nb_hitl's own count; ``_structured.py`` structured output as one forced tool call. Only
the base loads with the package; the other names load when first used. May import message,
formatter, token, tool and memory; never compression, session, agent or anything above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nb_hitl._lazy import attach

from ._base import ChatModelBase, ChatResponse, ChatUsage, ModelCall

if TYPE_CHECKING:
    from ._continuation import (
        CONTINUE_KWARG,
        ContinuationRequest,
        continuation_blocks,
        continuation_prompt,
        join_continuation,
        parse_continuation_prompt,
    )
    from ._dashscope_model import DashScopeChatModel
    from ._openai import OpenAIChatModel
    from ._openai_usage import PromptTokenCheck, check_prompt_tokens, reported_usage
    from ._scripted import (
        ScriptedCall,
        ScriptedModel,
        ScriptedToolCall,
        ScriptedTurn,
        structured_summary,
    )
    from ._structured import structured_tool

__all__ = [
    "CONTINUE_KWARG",
    "ChatModelBase",
    "ChatResponse",
    "ChatUsage",
    "ContinuationRequest",
    "DashScopeChatModel",
    "ModelCall",
    "OpenAIChatModel",
    "PromptTokenCheck",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedToolCall",
    "ScriptedTurn",
    "check_prompt_tokens",
    "continuation_blocks",
    "continuation_prompt",
    "join_continuation",
    "parse_continuation_prompt",
    "reported_usage",
    "structured_summary",
    "structured_tool",
]

_ADAPTERS = {"OpenAIChatModel": "._openai", "DashScopeChatModel": "._dashscope_model"}

if not TYPE_CHECKING:
    # An agent needs only the base: the scripted model, the usage check and the continuation
    # helpers load when first named.
    _lazy_getattr, _lazy_dir = attach(
        __name__,
        {
            "._continuation": (
                "CONTINUE_KWARG",
                "ContinuationRequest",
                "continuation_blocks",
                "continuation_prompt",
                "join_continuation",
                "parse_continuation_prompt",
            ),
            "._openai_usage": ("PromptTokenCheck", "check_prompt_tokens", "reported_usage"),
            "._scripted": (
                "ScriptedCall",
                "ScriptedModel",
                "ScriptedToolCall",
                "ScriptedTurn",
                "structured_summary",
            ),
            "._structured": ("structured_tool",),
        },
    )

    def __getattr__(name: str) -> Any:
        # The adapters need the optional openai package: load them only when asked for.
        if name in _ADAPTERS:
            import importlib

            from ._openai import import_openai

            import_openai()  # ImportError with the install command when missing
            return getattr(importlib.import_module(_ADAPTERS[name], __name__), name)
        return _lazy_getattr(name)

    def __dir__() -> list[str]:
        return sorted({*_lazy_dir(), *_ADAPTERS})
