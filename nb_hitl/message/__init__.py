"""Messages and their content blocks: ``Msg``, ``TextBlock``, ``ToolUseBlock``, ...

``_blocks.py`` holds the blocks (validated, typed ``dict`` subclasses, JSON as they are);
``_msg.py`` the message itself; ``_metadata.py`` the metadata keys nb_hitl writes (``MetaKey``),
each named once. Everything else passes these around.
May import only the foundation (``exceptions``, ``_render`` for ``Msg._repr_html_``).
"""

from ._blocks import (
    AudioBlock,
    Base64Source,
    BlockType,
    ContentBlock,
    ContentBlockTypes,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolOutputBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)
from ._metadata import MetaKey
from ._msg import BlockList, Msg, MsgListAdapter, Role

__all__ = [
    "AudioBlock",
    "Base64Source",
    "BlockList",
    "BlockType",
    "ContentBlock",
    "ContentBlockTypes",
    "ImageBlock",
    "MetaKey",
    "Msg",
    "MsgListAdapter",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolOutputBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "VideoBlock",
]
