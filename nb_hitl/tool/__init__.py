"""Tools: register functions, describe them to the model, run them.

``Toolkit`` (``_toolkit.py``) registers functions (``_registered.py``, schemas in
``_schema.py``), groups them (``_groups.py``) and runs calls (``_execute.py``, background ones
in ``_background.py``); ``ToolResponse`` is ``_response.py``.
May import message and the foundation; nothing above.
"""

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
