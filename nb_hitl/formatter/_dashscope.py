"""DashScopeChatFormatter: messages for DashScope's OpenAI-compatible mode."""

from __future__ import annotations

from ._openai import OpenAIChatFormatter

__all__ = ["DashScopeChatFormatter"]


class DashScopeChatFormatter(OpenAIChatFormatter):
    """Formats messages for DashScope (Qwen) through its OpenAI-compatible endpoint.

    The compatible mode takes the OpenAI chat format, so this is ``OpenAIChatFormatter`` with
    one difference: message ``name`` fields are left out by default (DashScope ignores them, as
    AgentScope's DashScope formatter does). It exists so that AgentScope code pairing
    ``DashScopeChatModel`` with ``DashScopeChatFormatter()`` runs unchanged.
    """

    def __init__(self, include_names: bool = False) -> None:
        super().__init__(include_names=include_names)
