"""Chat models: the base interface, the offline ScriptedModel and OpenAI-compatible adapters."""

from ._base import ChatModelBase, ChatResponse, ChatUsage
from ._scripted import ScriptedCall, ScriptedModel, ScriptedToolCall, ScriptedTurn

__all__ = [
    "ChatModelBase",
    "ChatResponse",
    "ChatUsage",
    "ScriptedCall",
    "ScriptedModel",
    "ScriptedToolCall",
    "ScriptedTurn",
]
