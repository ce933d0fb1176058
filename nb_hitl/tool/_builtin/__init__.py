"""AgentScope 1.x's built-in tools: run Python or a shell command, view and edit text files.

Same names, signatures and result texts as AgentScope's (``execute_python_code``,
``execute_shell_command``, ``view_text_file``, ``write_text_file``, ``insert_text_file``), each
declaring its kind (``_kind.py``). Programs run in a process group of their own
(``_process.py``), so a timeout or an interrupt ends them and everything they started.
May import message and the tool package's ``_response`` and ``_kind``.
"""

from ._coding import execute_python_code, execute_shell_command
from ._text_file import insert_text_file, view_text_file, write_text_file

__all__ = [
    "execute_python_code",
    "execute_shell_command",
    "insert_text_file",
    "view_text_file",
    "write_text_file",
]
