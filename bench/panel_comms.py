"""Count the comms panels open: ``show(agent)``, a hub, the explorer, a card; shared looks on/off.

    python bench/panel_comms.py [--participants 3]

Every ipywidget opens a comm, and most open two more: a ``Layout`` and a ``Style``. Under
JupyterLab's ``commsOverSubshells=perComm`` each comm is a kernel thread, and each is one
more model the page builds. nb_hitl's widgets that it never restyles share one frozen
``Layout`` and one frozen style of each kind (``nb_hitl.widgets._look``). The comm send path
is hooked (``comm.create_comm`` returns a comm that counts what it would publish), so the
figures are the ``comm_open`` messages a kernel would send. For each panel it prints the
comms opened with the shared looks ("shared") and, in the same run, with every widget given
its own (``_look.SHARED = False``, how the panels were built before), by model kind.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
from typing import Any

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
import _counting

_counting.install()
PUBLISHED = _counting.PUBLISHED

import nb_hitl  # noqa: E402
from nb_hitl import ReActAgent, ScriptedModel  # noqa: E402
from nb_hitl.agent import Question  # noqa: E402
from nb_hitl.demo import long_task_transcript  # noqa: E402
from nb_hitl.message import ToolUseBlock  # noqa: E402
from nb_hitl.pipeline import MsgHub  # noqa: E402
from nb_hitl.widgets import _look  # noqa: E402
from nb_hitl.widgets._approval import ApprovalCard  # noqa: E402
from nb_hitl.widgets._question import QuestionCard  # noqa: E402


def agent(name: str = "Friday") -> ReActAgent:
    return ReActAgent(name, "You are a test agent.", ScriptedModel(["Hello there."]))


def approval_card() -> Any:
    """One more approval card (the cards' stylesheet and shared looks made by a first one)."""
    friday = agent()
    ApprovalCard(friday, ToolUseBlock(id="first", name="deploy", input={"env": "prod"}))
    PUBLISHED.clear()
    return ApprovalCard(friday, ToolUseBlock(id="next", name="deploy", input={"env": "prod"}))


def question_card() -> Any:
    """One more ``ask_user`` form: a choice question and a multi-select one."""
    friday = agent()
    questions = [
        Question(question="Which database?", options=["PostgreSQL", "SQLite"]),
        Question(question="Which features?", options=["auth", "search"], multi_select=True),
    ]
    QuestionCard(friday, "first", questions)
    PUBLISHED.clear()
    return QuestionCard(friday, "next", questions)


def explorer() -> Any:
    """The inspector's *Explore settings* on a 30-message history (only the explorer counted)."""
    friday = agent()
    friday.memory.add_sync(long_task_transcript()[:30])
    panel = nb_hitl.show(friday)
    PUBLISHED.clear()
    panel.inspector.open_explorer()
    return panel


async def count(make: Any, shared: bool) -> collections.Counter[str]:
    """Comms opened by ``make()`` (the panel and everything it builds at once)."""
    _look.SHARED = shared
    _look.forget()  # no instance left over from the other mode
    PUBLISHED.clear()
    make()
    await asyncio.sleep(0)
    return collections.Counter(m.model for m in PUBLISHED if m.msg_type == "comm_open")


def kinds(opened: collections.Counter[str]) -> str:
    layouts = opened["LayoutModel"]
    styles = sum(n for k, n in opened.items() if k.endswith("StyleModel"))
    return f"{sum(opened.values()):4d}  (layouts {layouts:3d}, styles {styles:3d})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--participants", type=int, default=3)
    args = parser.parse_args()
    cases = {
        "show(agent)": lambda: nb_hitl.show(agent()),
        f"show(MsgHub of {args.participants})": lambda: nb_hitl.show(
            MsgHub([agent(f"A{i}") for i in range(args.participants)])
        ),
        "Explore settings (explorer)": explorer,
        "an approval card": approval_card,
        "a question card (ask_user)": question_card,
    }
    print("comms opened when the panel is built (comm_open messages)")
    print(f"{'panel':28s} {'own looks (before)':34s} shared looks (after)")
    for name, make in cases.items():
        before = await count(make, shared=False)
        after = await count(make, shared=True)
        print(f"{name:28s} {kinds(before):34s} {kinds(after)}")


if __name__ == "__main__":
    asyncio.run(main())
