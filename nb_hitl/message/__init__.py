"""Messages and their content blocks."""

from ._blocks import (
    AudioBlock,
    Base64Source,
    BlockType,
    ContentBlock,
    ContentBlockTypes,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)
from ._msg import BlockList, Msg, MsgListAdapter, Role

__all__ = [
    "AudioBlock",
    "Base64Source",
    "BlockList",
    "BlockType",
    "ContentBlock",
    "ContentBlockTypes",
    "ImageBlock",
    "Msg",
    "MsgListAdapter",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "VideoBlock",
]
