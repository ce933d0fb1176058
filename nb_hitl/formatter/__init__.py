"""Formatters: ``Msg`` lists to a provider's chat format."""

from ._base import FormatterBase
from ._dashscope import DashScopeChatFormatter
from ._openai import OpenAIChatFormatter

__all__ = ["DashScopeChatFormatter", "FormatterBase", "OpenAIChatFormatter"]
