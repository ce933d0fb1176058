"""AgentScope's built-in tools: results, kinds, and no process left behind by a timeout or Stop.

AgentScope 1.0.21's own ``tool_test.py`` checks the result texts (``scripts/agentscope_tests.py``
runs it by the rename); these tests check what nb_hitl adds: the program's whole process group
ends on timeout and on interrupt (real subprocesses, checked with psutil), the kinds the
permission modes read, and the file tools' fixes.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import psutil
import pytest

import nb_hitl.tool
from nb_hitl.agent import ReActAgent
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import (
    Toolkit,
    execute_python_code,
    execute_shell_command,
    insert_text_file,
    view_text_file,
    write_text_file,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

# A program that starts a grandchild, writes both pids, and then waits for a long time.
FAMILY = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open({pids!r} + ".tmp", "w") as f:
    f.write(f"{{os.getpid()}} {{child.pid}}")
os.replace({pids!r} + ".tmp", {pids!r})
print("started", flush=True)
time.sleep(60)
"""


def written_pids(path: Path) -> list[int] | None:
    return [int(p) for p in path.read_text().split()] if path.exists() else None


async def read_pids(path: Path, timeout: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (pids := written_pids(path)) is None:
        assert time.monotonic() < deadline, "the program never started"
        await asyncio.sleep(0.05)
    return pids


async def assert_all_gone(pids: list[int], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [
            p
            for p in pids
            if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
        ]
        await asyncio.sleep(0.05)
    assert not alive, f"still running: {alive}"


def test_the_builtins_are_agentscope_names_in_all() -> None:
    for name in (
        "execute_python_code",
        "execute_shell_command",
        "view_text_file",
        "write_text_file",
        "insert_text_file",
        "Toolkit",
        "ToolResponse",
    ):
        assert name in nb_hitl.tool.__all__, name


def test_each_builtin_declares_its_kind_and_the_toolkit_reads_it() -> None:
    toolkit = Toolkit()
    for func in (
        execute_python_code,
        execute_shell_command,
        view_text_file,
        write_text_file,
        insert_text_file,
    ):
        toolkit.register_tool_function(func)
    kinds = {name: (t.kind, t.read_only) for name, t in toolkit.tools.items()}
    assert kinds == {
        "execute_python_code": ("runs", False),
        "execute_shell_command": ("runs", False),
        "view_text_file": ("reads", True),
        "write_text_file": ("edits", False),
        "insert_text_file": ("edits", False),
    }
    shell = toolkit.tools["execute_shell_command"].json_schema["function"]
    assert shell["parameters"]["required"] == ["command"]  # **kwargs is not offered
    assert set(shell["parameters"]["properties"]) == {"command", "timeout"}
    other = Toolkit().register_tool_function(view_text_file, kind="edits")
    assert (other.kind, other.read_only) == ("edits", False)


async def test_a_timeout_ends_the_shell_and_what_it_started(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    script = tmp_path / "family.py"
    script.write_text(FAMILY.format(pids=str(pids_file)))
    start = time.monotonic()
    res = await execute_shell_command(f"{sys.executable} {script}; echo never", timeout=3)
    took = time.monotonic() - start
    text = res.content[0]["text"]
    assert text.startswith("<returncode>-1</returncode><stdout>started\n</stdout>")
    assert "TimeoutError: The command execution exceeded the timeout of 3 seconds." in text
    assert res.is_error
    assert took < 3 + 4, took  # AgentScope waits for the grandchild's pipe: 60 s
    await assert_all_gone(await read_pids(pids_file))


async def test_cancelling_the_call_kills_the_process_group_at_once(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    call = asyncio.ensure_future(execute_python_code(FAMILY.format(pids=str(pids_file))))
    pids = await read_pids(pids_file)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await assert_all_gone(pids, timeout=2.0)


async def test_stop_during_execute_shell_command_leaves_nothing_running(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    script = tmp_path / "family.py"
    script.write_text(FAMILY.format(pids=str(pids_file)))
    toolkit = Toolkit()
    toolkit.register_tool_function(execute_shell_command)
    model = ScriptedModel(
        [
            ScriptedTurn(
                tool_calls=[
                    ScriptedToolCall(
                        "execute_shell_command", {"command": f"{sys.executable} {script}"}
                    )
                ]
            ),
            "Done.",
        ]
    )
    agent = ReActAgent("Friday", "You run commands.", model, toolkit=toolkit)
    started = asyncio.ensure_future(wait_for_event(agent, lambda e: e.kind == "tool_call_started"))
    task = asyncio.ensure_future(agent(Msg("user", "Run it.", "user")))
    await started
    pids = await read_pids(pids_file)
    await agent.interrupt()
    reply = await task
    assert reply.is_interrupted
    await assert_all_gone(pids, timeout=3.0)
    (result,) = [b for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert result.is_interrupted
    assert_history_valid(agent.memory.messages)


async def test_negative_ranges_count_from_the_end(tmp_path: Path) -> None:
    path = tmp_path / "ten.txt"
    path.write_text("".join(f"{n}\n" for n in range(1, 11)))
    res = await view_text_file(str(path), ranges=[-3, -1])
    assert res.content[0]["text"] == (
        f"The content of {path} in [-3, -1] lines:\n```\n8: 8\n9: 9\n10: 10\n```"
    )


async def test_written_and_appended_text_starts_and_ends_its_own_lines(tmp_path: Path) -> None:
    path = tmp_path / "abc.txt"
    path.write_text("a\nb\nc\n")
    await write_text_file(str(path), "B", [2, 2])
    assert path.read_text() == "a\nB\nc\n"
    await insert_text_file(str(path), "d", 4)
    assert path.read_text() == "a\nB\nc\nd"
    res = await insert_text_file(str(path), "x", 9)
    assert res.is_error and "valid range [1, 5]" in res.content[0]["text"]
