"""Run a program with its output captured, ended with everything it started on timeout or Stop.

The program leads a new process group (a new session on POSIX, a new process group on
Windows). On timeout the group gets SIGTERM, then SIGKILL if it is still there after a grace
period; when the awaiting task is cancelled (an interrupt) the group is killed at once, the
child is reaped and the cancellation goes on. Output is read while the program runs, so what it
printed before a timeout is kept.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

GRACE_SECONDS = 2.0
"""How long a timed-out program has to exit after SIGTERM before it is killed."""


@dataclass
class Finished:
    """What a program left: its exit code (``-1`` after a timeout) and its output."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool


def _group_options() -> dict[str, Any]:
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def _signal_group(proc: asyncio.subprocess.Process, sig: int) -> None:
    """Send ``sig`` to the program's whole group (just the program on Windows)."""
    if proc.returncode is not None and sys.platform == "win32":
        return
    try:
        if sys.platform == "win32":
            proc.kill()
        else:
            os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already


async def _drain(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        into.extend(chunk)


async def run_program(
    argv: list[str] | None = None,
    *,
    shell: str | None = None,
    timeout: float,
    env: dict[str, str] | None = None,
) -> Finished:
    """Run ``argv`` (or the ``shell`` command line) and wait at most ``timeout`` seconds.

    Raises:
        asyncio.CancelledError: the caller was cancelled; the program's group is dead by then.
    """
    pipe = asyncio.subprocess.PIPE
    group = _group_options()
    if shell is not None:
        proc = await asyncio.create_subprocess_shell(
            shell, stdout=pipe, stderr=pipe, env=env, **group
        )
    elif argv:
        proc = await asyncio.create_subprocess_exec(
            argv[0], *argv[1:], stdout=pipe, stderr=pipe, env=env, **group
        )
    else:
        raise ValueError("run_program needs argv or shell.")
    out, err = bytearray(), bytearray()
    readers = asyncio.gather(_drain(proc.stdout, out), _drain(proc.stderr, err))
    timed_out = False
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout=timeout)
        except asyncio.TimeoutError:
            timed_out = True
            _signal_group(proc, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout=GRACE_SECONDS)
            except asyncio.TimeoutError:
                _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
                await proc.wait()
        # Children that left the group may still hold the pipes: stop reading after a while.
        try:
            await asyncio.wait_for(asyncio.shield(readers), timeout=GRACE_SECONDS)
        except asyncio.TimeoutError:
            readers.cancel()
    except BaseException:  # cancelled (Stop) or failed: nothing may outlive the call
        _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
        readers.cancel()
        await asyncio.shield(_reap(proc, readers))
        raise
    return Finished(
        returncode=-1 if timed_out else (proc.returncode or 0),
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        timed_out=timed_out,
    )


async def _reap(proc: asyncio.subprocess.Process, readers: asyncio.Future[Any]) -> None:
    """Wait for the killed program to be gone (so no zombie stays) and its readers to stop."""
    await proc.wait()
    try:
        await readers
    except (asyncio.CancelledError, Exception):  # the readers were cancelled
        pass
