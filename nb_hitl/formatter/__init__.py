"""Formatters: ``Msg`` lists to a provider's chat format (AgentScope 1.x's formatters).

``OpenAIChatFormatter`` (``_openai.py``) and ``DashScopeChatFormatter`` (``_dashscope.py``) share
``FormatterBase`` (``_base.py``) and the media rules (``_media.py``); the multi-agent formatters
fold a conversation into one ``<history>`` message (``_multiagent.py``).
May import message and the foundation (``exceptions``); nothing above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nb_hitl._lazy import attach

from ._formatter_base import FormatterBase
from ._openai_formatter import OpenAIChatFormatter, OpenAIMultiAgentFormatter

if TYPE_CHECKING:
    from ._dashscope_formatter import DashScopeChatFormatter, DashScopeMultiAgentFormatter

__all__ = [
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "FormatterBase",
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
]

# An agent's default formatter is OpenAI's: the DashScope ones load when first named.
if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(
        __name__,
        {"._dashscope_formatter": ("DashScopeChatFormatter", "DashScopeMultiAgentFormatter")},
    )
