"""Hub Stop as a person sees it: real JupyterLab, real Chromium, a speaker mid-stream.

    python bench/hub_stop_in_browser.py [--trials 20] [--rate 40] [--words 60]
                                         [--nagle | --compare-nagle]

A ``HubPanel`` runs Alice, Bob and Carol in turn; while Bob streams (``--words`` words on
screen) the bench clicks the hub's Stop (a DOM click on the button) and measures, in the page,
from the click:

- *style*: Bob's row carries the interrupted style (the kernel's ``nb-hitl-interrupted`` or
  the front end's ``nb-hitl-stopping`` guess, drawn in the click's own frame);
- *paused*: the panel's status line says "Paused" (the pipeline stopped and asks the person);
- *painted*: the frame showing "Paused" was rendered (a ``requestAnimationFrame`` after the
  change, then a ``user-blocking`` task posted from it).

Then it answers the prompt with Stop and starts the next trial from a second kernel client.
Goal: hub Stop -> "Paused" painted <= 100 ms (p99). The load average is printed too.

``--nagle``: the Jupyter server without nb_hitl's server extension (see stop_in_browser.py);
``--compare-nagle``: both, trials alternating (each server gets every other trial).
Run 40 trials or more to see that late trials are like early ones: the transcript passes its
80-row window after ~16 trials (before the window slid in steps each new row redrew every row).

Needs Debian's chromium and playwright (the test extra); never `playwright install`.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import _bootstrap  # noqa: F401  (this checkout's nb_hitl and test servers)
from _page_timing import (
    figures,
    lab_arguments,
    lab_pages,
    lab_settings,
    load_average,
    page_function,
    servers,
)

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.message import Msg
from nb_hitl.pipeline import MsgHub

LONG = " ".join(f"point{{i}}" for i in range(5000))

def speaker(name, text, tps):
    return ReActAgent(name, f"You are {{name}}.",
                      ScriptedModel(responder=lambda m, t: text, tokens_per_second=tps))

alice = speaker("Alice", "Tabs: one keystroke, one level.", 400)
bob = speaker("Bob", LONG, {rate})
carol = speaker("Carol", "Carol sums up.", 400)
hub = MsgHub([alice, bob, carol], announcement=Msg("Host", "Tabs or spaces?", "user"))
panel = nb_hitl.show(hub, inspector={inspector})
panel"""

HUB = ".nb-hitl-hub"
NOW = ".nb-hitl-hub-speakers"

CLICK_STOP = page_function("""
  return new Promise((resolve) => {
    const hub = document.querySelector('.nb-hitl-hub');
    const live = hub.querySelector('.nb-hitl-live');
    const stop = hub.querySelector('.nb-hitl-hub-stop');
    if (live === null || stop === null || stop.disabled) { resolve(null); return; }
    const now = hub.querySelector('.nb-hitl-hub-speakers');
    const words = live.textContent.split(/\\s+/).length;
    let style = null, done = false;
    const everything = {attributes: true, childList: true, subtree: true, characterData: true};
    watchClick(stop, hub, everything, (ms, disconnect) => {
      const t = ms();
      if (style === null && live.matches('.nb-hitl-interrupted, .nb-hitl-stopping')) style = t;
      if (done || !/Paused/.test(now.textContent)) return;
      done = true;
      disconnect();
      afterPaint(() => resolve({style, paused: t, painted: ms(), words}));
    });
  });""")

ENOUGH_WORDS = """(n) => {
  const live = document.querySelector('.nb-hitl-hub .nb-hitl-live');
  if (live === null || !/Bob/.test(live.textContent)) return false;
  return live.textContent.split(/\\s+/).length >= n;
}"""


def run(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    exts = servers(args)
    results: dict[str, list[dict[str, Any]]] = {ext: [] for ext in exts}
    setup = SETUP.format(rate=args.rate, inspector=not args.no_inspector)
    ready = (f"{HUB} .nb-hitl-hub-stop", f"{HUB} .nb-hitl-transcript")
    with lab_pages(args, "hub-bench.ipynb", [setup], ready) as pages:
        for trial in range(args.trials):
            ext = exts[trial % len(exts)]
            page, kernel = pages[ext]
            kernel.run(f"_ = panel.start(msg=Msg('User', 'Round {trial // len(exts)}.', 'user'))")
            page.wait_for_function(ENOUGH_WORDS, arg=args.words, timeout=120_000,
                                   polling=50)  # fmt: skip
            result: dict[str, Any] | None = page.evaluate(CLICK_STOP)
            if result is None:
                print(f"trial {trial + 1:3}: Bob finished before Stop; skipped")
            else:
                results[ext].append(result)
                style = result["style"]
                print(
                    f"trial {trial + 1:3} (extension {ext:3}): {result['words']:5} words, style "
                    f"after "
                    f"{style if style is not None else float('nan'):6.1f} ms, 'Paused' after "
                    f"{result['paused']:6.1f} ms, painted {result['painted']:6.1f} ms   "
                    f"{load_average()}",
                    flush=True,
                )
                page.locator(f"{HUB} .nb-hitl-pause-stop").click()
            page.wait_for_function(
                "() => !/Paused|speaking|Running|Stopping/.test("
                "document.querySelector('.nb-hitl-hub-speakers').textContent)",
                timeout=120_000,
            )
            time.sleep(0.3)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--rate", type=float, default=40.0, help="Bob's tokens per second")
    parser.add_argument("--words", type=int, default=60, help="Bob's words on screen at Stop")
    lab_arguments(parser)
    parser.add_argument("--no-inspector", action="store_true", help="the panel without its "
                        "memory inspector (default: as nb_hitl.show(hub) makes it)")  # fmt: skip
    args = parser.parse_args()
    print(f"start: {load_average()}", flush=True)
    found = run(args)
    print(
        f"\nhub Stop, {lab_settings(args)}, inspector {not args.no_inspector}; "
        f"end: {load_average()}"
    )
    for ext, trials in found.items():
        if len(found) > 1:
            print(f" extension {ext}:")
        if not trials:
            print("  no trial")
            continue
        for key, goal in (("style", 50), ("paused", 100), ("painted", 100)):
            vals = [r[key] for r in trials if r[key] is not None]
            if vals:
                print(f"  {key:8} {len(vals)} trials: {figures(vals, goal)}")


if __name__ == "__main__":
    main()
