"""Tools: register functions, describe them to the model, run them."""

from ._response import ToolResponse
from ._toolkit import RegisteredTool, Toolkit

__all__ = ["RegisteredTool", "ToolResponse", "Toolkit"]
