"""Benchmark the kernel-wide redraw budget: many chats (or hub rows) streaming at once.

    python bench/redraw_budget.py [--agents 1,10,60,100] [--rate 100] [--seconds 8] [--hub]

N agents on ``ScriptedModel`` stream ``--rate`` tokens/s each, all at once, in one process and
one event loop, each into its own ``ChatWidget`` (``--hub``: all as rows of one ``HubPanel``
running a ``FanoutPipeline``). The comm send path is hooked (``comm.create_comm`` returns a
comm that records every message it would publish, with its size), so the figures are the
comm messages a kernel would put on iopub. For each N it prints, for the shared budget and
for the per-message behaviour before it (``redraw_budget().set_rate(None)``), measured in the
same run: comm messages per second (peak over any 3 s window, which is how Jupyter server's
``iopub_msg_rate_limit`` of 1,000/s is measured, and mean), redraws per second of one live
message, and whether every panel's final text equals the agent's memory once the panels have
taken in the reply's last events (they arrive on the loop's next turns, after memory) and the
comm pacer has sent what it holds; rows not drawn yet when memory was final are counted as
"behind", with how long the panels took to catch up. "while streaming"
is the peak between the moment every row streams and the first finish: the whole-run peak
also holds the bursts of starting (and finishing) N replies in the same instant, which the
panels' comm pacer (``nb_hitl.widgets._pacer``) spreads out. Modes: the transcript's rows
(each chat's transcript is one model, ``TranscriptView``) without and with the shared budget
(the former HTML rows and ``LiveMessage`` anywidgets are gone: run this script from an older
checkout for their figures).
Goal: under ~500 messages/s with 100 streams; one stream alone still >= 15 redraws/s.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import re
import statistics
import time
from typing import Any

os.environ.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")

import _bootstrap  # noqa: F401  (this checkout's nb_hitl first on sys.path)
import _counting

_counting.install()
SENT = _counting.PUBLISHED

from nb_hitl import Msg, ReActAgent, ScriptedModel  # noqa: E402
from nb_hitl.pipeline import FanoutPipeline, MsgHub  # noqa: E402
from nb_hitl.widgets import ChatWidget, HubPanel  # noqa: E402
from nb_hitl.widgets._live_rows import LiveRow  # noqa: E402
from nb_hitl.widgets._pacer import comm_pacer  # noqa: E402
from nb_hitl.widgets._redraw import REDRAWS_PER_SECOND, redraw_budget  # noqa: E402


def text_for(i: int, tokens: int) -> str:
    words = [f"a{i}w{k}" for k in range(tokens)]
    return "\n\n".join(" ".join(words[p : p + 60]) for p in range(0, tokens, 60))


def plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def row_matches(drawn: Any, text: str) -> bool:
    """The finished row (as the transcript's model holds it) holds exactly ``text``."""
    want = " ".join(text.split())
    if drawn is None or isinstance(drawn, LiveRow):  # not drawn yet, or still streaming
        return False
    return want in plain(drawn.drawn_html())


def peak_3s(times: list[float]) -> float:
    """Most messages in any 3-second window, per second."""
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] < t - 3.0:
            j += 1
        best = max(best, i - j + 1)
    return best / 3.0


FINAL_WAIT = 10.0
"""How long the panels may take to draw (and send) the final text once memory has it."""


def matching(agents: list[ReActAgent], panels: list[Any], hub: bool) -> int:
    """How many agents' final message their panel's row draws in full."""
    count = 0
    for i, agent in enumerate(agents):
        final = agent.memory.messages[-1]
        entry = (panels[0] if hub else panels[i]).transcript.get(final.id)
        count += row_matches(entry.drawn if entry is not None else None,
                             final.get_text_content() or "")  # fmt: skip
    return count


async def run(
    n: int, rate: float, seconds: float, hub: bool, shared: bool, front_end: str
) -> dict[str, Any]:
    budget = redraw_budget()
    budget.set_rate(REDRAWS_PER_SECOND if shared else None)
    tokens = int(rate * seconds)
    agents = [
        ReActAgent(f"A{i}", "sys", ScriptedModel([text_for(i, tokens)], tokens_per_second=rate))
        for i in range(n)
    ]
    panels: list[Any]
    if hub:
        panel = HubPanel(MsgHub(agents), inspector=False)
        panels = [panel]
        lives = list(panel.feed._live.values())
    else:
        panels = [ChatWidget(a) for a in agents]
        lives = [c.live for c in panels]
    await asyncio.sleep(0.2)
    SENT.clear()
    start = time.monotonic()
    flushes0 = [lv.flushes for lv in lives]
    if hub:
        panels[0].start(FanoutPipeline(agents), msg=Msg("Host", "Go.", "user"))
    else:
        for chat in panels:
            chat.send("go")
    sent = None  # the streaming phase: every row streaming, none finished yet
    first_done = None
    while True:
        if sent is None and all(lv.views for lv in lives):
            sent = time.monotonic()
        done = [len(a.memory) >= 2 and not a.is_replying for a in agents]
        if first_done is None and any(done):
            first_done = time.monotonic()
        if all(done):
            break
        await asyncio.sleep(0.05)
    if hub:
        await panels[0].wait()
    wall = time.monotonic() - start
    # Memory is final now, but the panels take the last events in on the loop's next turns
    # (the agent's event bus delivers with call_soon) and the comm pacer may still hold
    # updates: the panels are read once they are drawn and sent, or after FINAL_WAIT.
    behind = len(agents) - matching(agents, panels, hub)  # read at once (the former bench did)
    pacer = comm_pacer(asyncio.get_running_loop())
    caught_up = time.monotonic()
    while time.monotonic() - caught_up < FINAL_WAIT:
        if matching(agents, panels, hub) == len(agents) and not pacer.backlog:
            break
        await asyncio.sleep(0.005)
    lag = time.monotonic() - caught_up
    times = [m.at for m in SENT]
    ok = matching(agents, panels, hub) == len(agents) and not pacer.backlog
    per_row = [(lv.flushes - f0) / wall for lv, f0 in zip(lives, flushes0, strict=True)]
    for p in panels:
        p.close()
    sent = sent or start
    streaming = [t for t in times if sent <= t <= (first_done or sent)]
    return {
        "peak": peak_3s(times),
        "streaming": peak_3s(streaming) if streaming else 0.0,
        "mean": len(times) / wall,
        "bytes": sum(m.size for m in SENT),
        "row_hz": statistics.median(per_row),
        "ok": ok,
        "behind": behind,
        "lag": lag,
        "wall": wall,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="1,10,60,100")
    parser.add_argument("--rate", type=float, default=100.0, help="tokens/s of each agent")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each streams")
    parser.add_argument("--hub", action="store_true", help="hub rows instead of chats")
    args = parser.parse_args()
    kind = "hub rows (one HubPanel, FanoutPipeline)" if args.hub else "chats (one ChatWidget each)"
    print(
        f"{kind} streaming {args.rate:.0f} tokens/s each for {args.seconds:.0f} s; shared budget "
        f"{REDRAWS_PER_SECOND:.0f} redraws/s; goal: peak < ~500 comm messages/s, one stream "
        ">= 15 redraws/s, final text == memory"
    )
    print(
        "final == memory: every panel's row draws its agent's final message in full and the "
        f"comm pacer has sent it all, read once drawn (at most {FINAL_WAIT:.0f} s after memory "
        "is final); 'behind' rows were not drawn yet at that moment, 'drawn after' is how long "
        "the panels took to catch up"
    )
    print(
        f"{'N':>4} | {'mode':<19} | {'peak msg/s (3 s)':>16} | {'while streaming':>15} | "
        f"{'mean msg/s':>10} | "
        f"{'redraws/s per row':>17} | {'kB sent':>8} | final == memory | behind | drawn after"
    )
    for n in [int(x) for x in args.agents.split(",")]:
        for front_end, shared in (("transcript", False), ("transcript", True)):
            r = await run(n, args.rate, args.seconds, args.hub, shared, front_end)
            mode = f"{front_end}, " + ("shared" if shared else "per-message")
            print(
                f"{n:>4} | {mode:<19} | {r['peak']:>16.0f} | {r['streaming']:>15.0f} | "
                f"{r['mean']:>10.0f} | "
                f"{r['row_hz']:>17.1f} | {r['bytes'] / 1000:>8.0f} | {r['ok']!s:>15} | "
                f"{r['behind']:>6} | {r['lag'] * 1000:>8.0f} ms"
                + (f"  (took {r['wall']:.1f} s)" if r["wall"] > args.seconds * 1.5 else "")
            )
    redraw_budget().set_rate(REDRAWS_PER_SECOND)


if __name__ == "__main__":
    asyncio.run(main())
