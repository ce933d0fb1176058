"""Tools: register functions, describe them to the model, run them."""

from ._background import BackgroundTask
from ._execute import ToolCallStream
from ._groups import ToolGroup
from ._response import ToolResponse
from ._toolkit import RegisteredTool, Toolkit

__all__ = [
    "BackgroundTask",
    "RegisteredTool",
    "ToolCallStream",
    "ToolGroup",
    "ToolResponse",
    "Toolkit",
]
