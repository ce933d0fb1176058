"""Messages and their content blocks."""

from ._blocks import ContentBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from ._msg import Msg, MsgListAdapter, Role

__all__ = [
    "ContentBlock",
    "Msg",
    "MsgListAdapter",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
]
