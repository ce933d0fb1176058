"""Decision latency: ``agent.decide(call_id, "approve")`` from another thread (a web hook) to the
approved tool starting on the agent's loop, and the cost of the permission check per call.

Each trial parks a reply on one call that needs approval, then a worker thread decides it;
the time runs from the ``decide`` call to the tool's first line. The floor is the same hop
done bare (``loop.call_soon_threadsafe`` setting a future the loop awaits), in the same run.
The policy figures are ``agent.permission_verdict(call)`` with 20 rules: argument globs and
regexes, and a second set on a tool that declares a path argument (normalised and resolved
through symlinks before matching) with ``**`` globs and specifiers. Goal: median under 100 us.

    python bench/decide_latency.py [--trials 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import threading
import time

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from _stats import median_p99, timed

from nb_hitl import Msg, PermissionPolicy, ReActAgent, ScriptedModel, Toolkit
from nb_hitl.message import ToolUseBlock
from nb_hitl.model import ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import wait_for_event


async def decide_trials(trials: int) -> list[float]:
    started: list[float] = []

    def deploy(env: str) -> str:
        """Deploy.

        Args:
            env: where.
        """
        started.append(time.perf_counter())
        return "ok"

    toolkit = Toolkit()
    toolkit.register_tool_function(deploy, needs_approval=True)
    script = []
    for i in range(trials):
        script += [ScriptedTurn(tool_calls=[ScriptedToolCall("deploy", {"env": "x"}, id=f"d{i}")])]
        script += ["done"]
    model = ScriptedModel(script, tokens_per_second=1e6)
    agent = ReActAgent("Friday", "T.", model, toolkit=toolkit,
                       permissions=PermissionPolicy(user_rules=False))  # fmt: skip
    loop = asyncio.get_running_loop()
    times: list[float] = []
    for i in range(trials):
        task = asyncio.create_task(agent(Msg("User", "deploy", "user")))
        await wait_for_event(agent, lambda e: e.kind == "approval_requested")
        sent: list[float] = []

        def hook(call_id: str = f"d{i}", sent: list[float] = sent) -> None:
            sent.append(time.perf_counter())
            agent.decide(call_id, "approve")

        await loop.run_in_executor(None, hook)
        await task
        times.append(started[-1] - sent[0])
    return times


async def floor_trials(trials: int) -> list[float]:
    loop = asyncio.get_running_loop()
    times: list[float] = []
    for _ in range(trials):
        fut: asyncio.Future[float] = loop.create_future()

        def hop(fut: asyncio.Future[float] = fut) -> None:
            sent = time.perf_counter()
            loop.call_soon_threadsafe(lambda: fut.done() or fut.set_result(sent))

        threading.Thread(target=hop).start()
        sent = await fut
        times.append(time.perf_counter() - sent)
    return times


def verdict_times(repeat: int) -> list[float]:
    toolkit = Toolkit()

    def search_notes(query: str, folder: str = "") -> str:
        """Search.

        Args:
            query: what.
            folder: where.
        """
        return ""

    toolkit.register_tool_function(search_notes)
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit,
                       permissions=PermissionPolicy(user_rules=False))  # fmt: skip
    for i in range(10):
        agent.permissions.ask("search_*", {"query": f"secret{i}*"})
        agent.permissions.deny("search_notes", {"folder": f"re:^private{i}/.*"})
    call = ToolUseBlock(id="c", name="search_notes", input={"query": "lunch", "folder": "notes/a"})
    return timed(lambda: agent.permission_verdict(call), repeat)


def path_verdict_times(repeat: int) -> list[float]:
    toolkit = Toolkit()

    def write_file(path: str, text: str) -> str:
        """Write.

        Args:
            path: which.
            text: what.
        """
        return ""

    toolkit.register_tool_function(write_file, path_args=["path"], kind="edits")
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit,
                       permissions=PermissionPolicy(user_rules=False))  # fmt: skip
    for i in range(10):
        agent.permissions.deny(f"write_file(secret{i}/**)")
        agent.permissions.allow("write_file", {"path": f"notes{i}/*", "text": f"re:^draft{i}\\b"})
    call = ToolUseBlock(
        id="c", name="write_file", input={"path": "./notes/../notes9//a.txt", "text": "x"}
    )
    return timed(lambda: agent.permission_verdict(call), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    args = parser.parse_args()
    decide = asyncio.run(decide_trials(args.trials))
    floor = asyncio.run(floor_trials(args.trials))
    verdicts = verdict_times(2000)
    paths = path_verdict_times(2000)
    print(f"decide from a thread -> tool starts (ms): {median_p99(decide)}")
    print(f"bare thread -> loop hop (ms):             {median_p99(floor)}")
    print(f"permission verdict, 20 rules (us):        {median_p99(verdicts, 1e6)}")
    print(f"verdict, 20 path rules + specifiers (us): {median_p99(paths, 1e6)}")
    print("goal: each verdict median under 100 us")


if __name__ == "__main__":
    main()
