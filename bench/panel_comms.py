"""Count the comms each panel opens, this checkout against an older one, in the same run.

    python bench/panel_comms.py [--before 120ebb7] [--participants 3]

Every ipywidget opens a comm (most also a ``Layout`` and a ``Style``); one anywidget per panel
is one model (and its ``Layout``). Under JupyterLab's ``commsOverSubshells=perComm`` each comm
is a kernel thread, and each is one more model the page builds and the notebook saves. The
comm send path is hooked (``comm.create_comm`` returns a comm that counts what it would
publish: ``bench/_counting.py``), so the figures are the ``comm_open`` messages a kernel would
send when the panel is built. Each panel is counted in this checkout and, when ``--before``
names a commit (default: the last one before the panels became one front end each), in a
temporary ``git worktree`` of that commit, by the same code in a child process, so both
columns come from one run. Goal (issue 32): at most 5 comms per panel, none for an
approval card or a question form (each drawn inside the panel).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import inspect
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

BEFORE = "120ebb7"
"""The last commit before issue 32's front ends (every panel built of ipywidgets)."""
GOAL = 5
"""The most comms a panel may open (issue 32)."""
CARD_GOAL = 0
"""The comms an approval card or a question form may open: none (drawn inside the panel)."""
CARDS = ("approval card (in the panel)", "question form (in the panel)")


def cases(participants: int) -> dict[str, Any]:
    """The panels counted, by name: each builds one with the public API of either checkout."""
    import nb_hitl
    from nb_hitl import ReActAgent, ScriptedModel
    from nb_hitl.demo import long_task_transcript
    from nb_hitl.pipeline import MsgHub
    from nb_hitl.widgets import CompressionExplorer, MemoryInspector

    def agent(name: str = "Friday", history: int = 0) -> Any:
        friday = ReActAgent(name, "You are a test agent.", ScriptedModel(["Hello there."]))
        if history:
            friday.memory.add_sync(long_task_transcript()[:history])
        return friday

    async def waiting_in_panel(published: list[Any], tool: str, args: dict[str, Any]) -> Any:
        """The comms a card opens: the panel is built, then a reply waits on the card."""
        from nb_hitl.agent import ask_user
        from nb_hitl.model import ScriptedToolCall, ScriptedTurn
        from nb_hitl.tool import Toolkit

        def deploy(env: str) -> str:
            """Deploy.

            Args:
                env: where.
            """
            return env

        toolkit = Toolkit()
        toolkit.register_tool_function(deploy, needs_approval=True)
        toolkit.register_tool_function(ask_user)
        turn = ScriptedTurn(tool_calls=[ScriptedToolCall(tool, args, id="c1")])
        model = ScriptedModel([turn, "Done."], tokens_per_second=1e6)
        panel = nb_hitl.show(ReActAgent("Friday", "Test.", model, toolkit=toolkit), session=None)
        chat = panel.chat
        cards = chat.approvals if tool == "deploy" else chat.questions
        published.clear()  # only what the card opens
        chat.send("go")
        for _ in range(2000):
            if cards.waiting:
                break
            await asyncio.sleep(0.005)
        assert cards.waiting, f"no {tool} card came"
        return panel

    question = {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]}

    def explore(published: list[Any]) -> Any:
        inspector = MemoryInspector(agent(history=30))
        published.clear()  # only what Explore settings opens
        inspector.open_explorer()
        return inspector

    return {
        "show(agent)": lambda _p: nb_hitl.show(agent()),
        f"show(MsgHub of {participants})": lambda _p: nb_hitl.show(
            MsgHub([agent(f"A{i}") for i in range(participants)])
        ),
        "MemoryInspector(agent)": lambda _p: MemoryInspector(agent(history=30)),
        "CompressionExplorer(agent)": lambda _p: CompressionExplorer(agent(history=30)),
        "Explore settings (explorer)": explore,
        CARDS[0]: lambda p: waiting_in_panel(p, "deploy", {"env": "eu"}),
        CARDS[1]: lambda p: waiting_in_panel(p, "ask_user", {"questions": [question]}),
    }


async def measure(participants: int) -> dict[str, int]:
    """Comms opened by each case, in the checkout whose nb_hitl is first on ``sys.path``."""
    import _counting

    _counting.install()
    published = _counting.PUBLISHED
    out: dict[str, int] = {}
    for name, make in cases(participants).items():
        published.clear()
        try:
            keep = make(published)  # held until counted: nothing closes early
            if inspect.isawaitable(keep):
                keep = await keep
        except Exception as exc:  # an older checkout without that API: no figure for it
            print(f"{name}: not measured ({type(exc).__name__}: {exc})", file=sys.stderr)
            continue
        await asyncio.sleep(0)
        out[name] = collections.Counter(m.msg_type for m in published)["comm_open"]
        del keep
    return out


def measure_at(rev: str, participants: int) -> dict[str, int] | str:
    """``measure`` run on a temporary worktree of ``rev`` (a child process); or why not."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="nb_hitl_before_") as tmp:
        tree = Path(tmp) / "tree"
        added = subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "--detach", str(tree), rev],
            capture_output=True,
            text=True,
        )
        if added.returncode != 0:
            return f"cannot check out {rev}: {added.stderr.strip()[:200]}"
        try:
            child = [sys.executable, __file__, "--measure", "--root", str(tree)]
            done = subprocess.run(
                [*child, "--participants", str(participants)],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                return f"failed at {rev}: {done.stderr.strip()[-300:]}"
            return dict(json.loads(done.stdout.strip().splitlines()[-1]))
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
                capture_output=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--participants", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="older commit to compare ('' skips)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # the child: count in the checkout at --root, print JSON
        here = Path(__file__).resolve().parent
        sys.path[:0] = [args.root, str(here)]
        print(json.dumps(asyncio.run(measure(args.participants))))
        return
    import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)

    now = asyncio.run(measure(args.participants))
    before = measure_at(args.before, args.participants) if args.before else {}
    if isinstance(before, str):
        print(f"({before})")
        before = {}
    print(f"comms opened when the panel is built (comm_open messages); goal <= {GOAL}")
    print(f"{'panel':30s} {'before ' + args.before if args.before else '':>16s} {'now':>6s}")
    for name, n in now.items():
        old = before.get(name)
        goal = CARD_GOAL if name in CARDS else GOAL
        mark = "" if n <= goal else f"  (over {goal})"
        print(f"{name:30s} {'' if old is None else old:>16} {n:>6d}{mark}")


if __name__ == "__main__":
    main()
