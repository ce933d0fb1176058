"""``execute_python_code`` and ``execute_shell_command``: AgentScope 1.x's coding tools.

Both answer one text block, ``<returncode>N</returncode><stdout>...</stdout><stderr>...</stderr>``,
as AgentScope's do (``-1`` and a ``TimeoutError: ...`` line in stderr after a timeout). Differs
on purpose: the program runs in a process group of its own that a timeout or an interrupt ends
completely (AgentScope terminates the direct child only, so a shell's own children outlive it
and its pipes keep the call waiting), and a result after a timeout is marked ``is_error``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from nb_hitl.message import TextBlock

from .._kind import tool_kind
from .._response import ToolResponse
from ._process import Finished, run_program


def _response(done: Finished, what: str, timeout: float) -> ToolResponse:
    stderr = done.stderr
    if done.timed_out:
        note = f"TimeoutError: The {what} exceeded the timeout of {timeout} seconds."
        stderr = f"{stderr}\n{note}" if stderr else note
    text = (
        f"<returncode>{done.returncode}</returncode>"
        f"<stdout>{done.stdout}</stdout>"
        f"<stderr>{stderr}</stderr>"
    )
    return ToolResponse(content=[TextBlock(type="text", text=text)], is_error=done.timed_out)


@tool_kind("runs")
async def execute_python_code(code: str, timeout: float = 300, **kwargs: Any) -> ToolResponse:
    """Execute the given python code in a temp file and capture the return code, standard
    output and error. Note you must `print` the output to get the result, and the tmp file
    will be removed right after the execution.

    Args:
        code: The Python code to be executed.
        timeout: The maximum time (in seconds) allowed for the code to run.

    Returns:
        The response containing the return code, standard output, and standard error of the
        executed code.
    """
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, f"tmp_{uuid.uuid4().hex}.py")
        await asyncio.to_thread(script.write_text, code, encoding="utf-8")
        env = {**os.environ, "PYTHONUTF8": "1", "PYTHONIOENCODING": "utf-8"}
        done = await run_program([sys.executable, "-u", str(script)], timeout=timeout, env=env)
    return _response(done, "code execution", timeout)


@tool_kind("runs")
async def execute_shell_command(command: str, timeout: int = 300, **kwargs: Any) -> ToolResponse:
    """Execute given command and return the return code, standard output and error within
    <returncode></returncode>, <stdout></stdout> and <stderr></stderr> tags.

    Args:
        command: The shell command to execute.
        timeout: The maximum time (in seconds) allowed for the command to run.

    Returns:
        The tool response containing the return code, standard output, and standard error of
        the executed command.
    """
    done = await run_program(shell=command, timeout=timeout)
    return _response(done, "command execution", timeout)
