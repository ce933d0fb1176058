"""Benchmark what a panel with a long history costs to open, this checkout and an older one.

    python bench/transcript_load.py [--messages 200] [--turns 20] [--trials 5] [--browser]
                                    [--before DIR] [--page-only] [--no-bytecode]

In a real kernel (ipykernel of this venv, driven by jupyter_client), for this checkout's rows
(``now``: every row drawn by the transcript's one model, ``TranscriptView``) and, with
``--before DIR``, for the nb_hitl of another checkout (``before``: e.g. a worktree of an older
commit, whose rows segments and streaming-row anywidgets this replaced), measured in the same
run, trials alternating:

- an ``AgentPanel`` over a ``--messages`` history (the default window: the last 50 rows drawn),
  then "Show earlier messages" until every row is drawn: comms opened, comm messages and bytes
  the kernel sent, and the comms the panel holds open (under ``commsOverSubshells=perComm``
  each is a kernel thread; a reloaded page opens a model for each);
- a live ``ChatWidget`` after ``--turns`` streamed replies: comms it holds open at the end;
- with ``--browser`` (JupyterLab + Chromium, as ``tests/browser``): the time from Run All to
  the last of the history's rows drawn on the page (median and p99 over ``--trials``).

Bytecode: the kernels load modules from ``.pyc`` as a user's kernel does (pip compiles an
installed wheel; an editable checkout writes ``__pycache__`` on first import): the run shares a
fresh ``PYTHONPYCACHEPREFIX``, filled by one untimed import, even where the environment sets
``PYTHONDONTWRITEBYTECODE`` (which made every kernel compile nb_hitl from source: ~0.3 s of
each trial). ``--no-bytecode`` measures that way instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
from kernel_harness import KernelHarness
from widget_streaming import COMM_TYPES, wire_size

MODES: tuple[str, ...] = ("now",)
"""What is measured: ``now`` (this checkout), and ``before`` (``--before DIR``) first."""
BEFORE = ""
"""The other checkout (``--before``): its nb_hitl goes first on the kernel's path."""

HISTORY = """
import nb_hitl
from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.widgets import AgentPanel
def history(n):
    out = []
    for i in range(n):
        text = (f"Message **{{i}}**: " + "the agent reads the memory and plans a step; " * 6
                + f"\\n\\n- item {{i}}a\\n- item {{i}}b")
        out.append(Msg("User" if i % 2 == 0 else "Friday", text,
                       "user" if i % 2 == 0 else "assistant"))
    return out
agent = ReActAgent("Friday", "sys", ScriptedModel(["ok"] * {turns}, tokens_per_second=4000))
agent.memory.add_sync(history({messages}))
"""


def rows_cell(mode: str) -> str:
    """The first cell of a kernel measuring ``mode``: the ``before`` checkout's nb_hitl."""
    if mode == "before":
        return f"import sys\nsys.path.insert(0, {BEFORE!r})\n" + rows_cell("now")
    return "import nb_hitl\nprint(nb_hitl.__file__)"


def use_rows(k: KernelHarness, mode: str) -> None:
    where = k.execute(rows_cell(mode)).strip()
    wanted = BEFORE if mode == "before" else str(Path(__file__).resolve().parents[1])
    if not where.startswith(wanted):
        raise RuntimeError(f"{mode}: the kernel imported {where}, not the nb_hitl of {wanted}")


def open_comms(k: KernelHarness) -> int:
    code = "from comm import get_comm_manager\nprint(len(get_comm_manager().comms))"
    return int(k.execute(code).strip())


def comms_sent(k: KernelHarness, mark: int) -> tuple[int, int, int]:
    """(comm opens, comm messages, bytes) on iopub since ``mark``."""
    time.sleep(0.3)
    k.execute("pass")  # what the pacer still had goes out meanwhile
    msgs = [m for _, m in k.log[mark:] if m["msg_type"] in COMM_TYPES]
    opens = sum(m["msg_type"] == "comm_open" for m in msgs)
    return opens, len(msgs), sum(wire_size(m) for m in msgs)


def bench_load(messages: int, turns: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        k = KernelHarness(sys.executable)
        try:
            use_rows(k, mode)
            k.execute(HISTORY.format(messages=messages, turns=turns))
            base = open_comms(k)
            mark = len(k.log)
            k.execute("import time\nt0 = time.perf_counter()\n"
                      "panel = AgentPanel(agent, session=None)\n"
                      "build = time.perf_counter() - t0\ndisplay(panel)")  # fmt: skip
            first = comms_sent(k, mark)
            held = open_comms(k) - base
            build = float(k.execute("print(build)").strip())
            mark = len(k.log)
            k.execute(
                "t = panel.chat.transcript\n"
                "while t.earlier.layout.display != 'none':\n    t.show_earlier()\n"
            )
            earlier = comms_sent(k, mark)
            held_all = open_comms(k) - base
            k.execute(
                "import asyncio\n"
                "live = ReActAgent('Friday', 'sys', ScriptedModel(['An answer. ' * 40] * "
                f"{turns}, tokens_per_second=4000))\n"
                "from nb_hitl.widgets import ChatWidget\n"
                "chat = ChatWidget(live)\n"
                "async def turns():\n"
                f"    for i in range({turns}):\n"
                "        chat.send(f'question {i}')\n"
                "        while chat.state != 'idle' or live.is_replying:\n"
                "            await asyncio.sleep(0.02)\n"
                "task = asyncio.get_running_loop().create_task(turns())\n"
            )
            while k.execute("print(task.done())").strip() != "True":
                time.sleep(0.3)
            live_held = open_comms(k) - base - held_all
            out[mode] = dict(first=first, held=held, build=build, earlier=earlier,
                             held_all=held_all, live_held=live_held)  # fmt: skip
        finally:
            k.close()
    return out


def print_load(out: dict[str, dict[str, Any]], messages: int, turns: int) -> None:
    print(f"panel over a {messages}-message history (the last 50 rows drawn at first):")
    for mode in MODES:
        r = out[mode]
        opens, msgs, size = r["first"]
        print(f"  {mode:>7} rows: {opens} comms opened, {msgs} comm messages, {size:,} bytes; "
              f"{r['held']} comms held open; built in {r['build'] * 1000:.0f} ms")  # fmt: skip
    for mode in MODES:
        r = out[mode]
        opens, msgs, size = r["earlier"]
        print(f"  {mode:>7} rows, 'Show earlier' until all {messages} are drawn: {opens} more "
              f"comms opened, {msgs} messages, {size:,} bytes; "
              f"{r['held_all']} comms held")  # fmt: skip
    if "before" in out:
        old, new = out["before"], out["now"]
        print(f"  ratio (now / before): comms opened {new['first'][0] / old['first'][0]:.2f}, "
              f"bytes {new['first'][2] / old['first'][2]:.2f}; with every row drawn: comms "
              f"held {new['held_all'] / old['held_all']:.2f}")  # fmt: skip
    print(f"a ChatWidget after {turns} streamed turns, comms it holds open:")
    for mode in MODES:
        print(f"  {mode:>7} rows: {out[mode]['live_held']}")


WARM_UP = (
    "import nb_hitl, nb_hitl.widgets._panel, markdown_it, tiktoken, ipykernel.kernelapp\n"
    "from nb_hitl import Msg, ReActAgent, ScriptedModel\n"
    "agent = ReActAgent('Friday', 'sys', ScriptedModel(['ok']))\n"
    "agent.memory.add_sync([Msg('User', 'hi', 'user')])\n"
    "nb_hitl.show(agent, session=None).close()\n"
)
"""One untimed import of what a trial's kernel loads, to fill the bytecode cache."""


def use_bytecode(bytecode: bool) -> str:
    """Make the kernels the Lab starts load ``.pyc`` (``bytecode``) or compile every module
    from source (``PYTHONDONTWRITEBYTECODE=1``); returns how, for the summary line."""
    if not bytecode:
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        os.environ.pop("PYTHONPYCACHEPREFIX", None)
        return "no .pyc written"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="nb_hitl_pycache_")
    for where in filter(None, (BEFORE, str(Path(__file__).resolve().parents[1]))):
        env = dict(os.environ, PYTHONPATH=where)
        subprocess.run([sys.executable, "-c", WARM_UP], env=env, check=True, timeout=300)
    return "bytecode cached"


def bench_browser(messages: int, trials: int, bytecode: bool = True) -> None:
    from _page_timing import figures, load_average
    from lab_page import run_all
    from lab_server import CHROMIUM_ARGS, LabServer, find_chromium
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        print("page time: skipped (no Chromium)")
        return
    how = use_bytecode(bytecode)
    lab = LabServer()
    times: dict[str, list[float]] = {m: [] for m in MODES}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            for trial in range(trials):
                for mode in MODES:
                    cells = [
                        rows_cell(mode),
                        HISTORY.format(messages=messages, turns=1)
                        + "panel = nb_hitl.show(agent, session=None, "
                        f"chat={{'max_rendered': {messages}}})\npanel",
                    ]
                    url = lab.write_notebook(f"load-{mode}-{trial}.ipynb", cells)
                    page = browser.new_page(viewport={"width": 1400, "height": 900})
                    last = f"Message {messages - 1}:"
                    page.goto(url)
                    page.wait_for_selector("text=/\\| Idle/", timeout=90_000)
                    t0 = time.perf_counter()
                    run_all(page)
                    page.wait_for_function(
                        "([n, last]) => document.querySelectorAll('.nb-hitl-chat .nb-hitl-msg')"
                        ".length >= n && document.body.innerText.includes(last)",
                        arg=[messages, last],
                        timeout=180_000,
                        polling="raf",
                    )
                    times[mode].append((time.perf_counter() - t0) * 1000)
                    lab.shutdown_kernels()
                    page.close()
            browser.close()
    finally:
        lab.stop()
    print(f"page time, Run All -> all {messages} rows drawn (JupyterLab + Chromium, "
          f"{trials} trials, max_rendered={messages}, {how}; {load_average()}):")  # fmt: skip
    for mode in MODES:
        print(f"  {mode:>7} rows: {figures(times[mode])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=200)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    ap.add_argument("--before", default="", help="another checkout to measure first (old)")
    ap.add_argument("--page-only", action="store_true", help="only the page time (--browser)")
    ap.add_argument(
        "--no-bytecode",
        action="store_true",
        help="kernels write no .pyc (PYTHONDONTWRITEBYTECODE=1): each compiles nb_hitl anew",
    )
    args = ap.parse_args()
    global MODES, BEFORE
    if args.before:
        BEFORE = str(Path(args.before).resolve())
        MODES = ("before", "now")
    if args.page_only:
        bench_browser(args.messages, args.trials, bytecode=not args.no_bytecode)
        return
    out = bench_load(args.messages, args.turns)
    print_load(out, args.messages, args.turns)
    if args.browser:
        bench_browser(args.messages, args.trials, bytecode=not args.no_bytecode)
    print(json.dumps({m: {k: v for k, v in r.items()} for m, r in out.items()}))


if __name__ == "__main__":
    main()
