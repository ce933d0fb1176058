"""Formatters: ``Msg`` lists to a provider's chat format."""

from ._dashscope_formatter import DashScopeChatFormatter, DashScopeMultiAgentFormatter
from ._formatter_base import FormatterBase
from ._openai_formatter import OpenAIChatFormatter, OpenAIMultiAgentFormatter

__all__ = [
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "FormatterBase",
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
]
