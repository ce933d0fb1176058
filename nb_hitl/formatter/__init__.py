"""Formatters: ``Msg`` lists to a provider's chat format."""

from ._openai import OpenAIChatFormatter

__all__ = ["OpenAIChatFormatter"]
