"""Formatters: ``Msg`` lists to a provider's chat format."""

from ._base import FormatterBase
from ._dashscope import DashScopeChatFormatter
from ._multiagent import DashScopeMultiAgentFormatter, OpenAIMultiAgentFormatter
from ._openai import OpenAIChatFormatter

__all__ = [
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "FormatterBase",
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
]
