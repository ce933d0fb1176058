"""Formatters: ``Msg`` lists to a provider's chat format (AgentScope 1.x's formatters).

``OpenAIChatFormatter`` (``_openai.py``) and ``DashScopeChatFormatter`` (``_dashscope.py``) share
``FormatterBase`` (``_base.py``) and the media rules (``_media.py``); the multi-agent formatters
fold a conversation into one ``<history>`` message (``_multiagent.py``).
May import message and the foundation (``exceptions``); nothing above.
"""

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
