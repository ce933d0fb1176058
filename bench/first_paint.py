"""First paint of a new panel: real JupyterLab, real Chromium, a cell run again and again.

    python bench/first_paint.py [--trials 30] [--panel chat|show|both] [--comms disabled]

A notebook's cell makes a new panel (``ChatWidget(agent)``, or ``nb_hitl.show(agent)``: the
chat with its inspector); the bench runs it ``--trials`` times (Ctrl+Enter on the selected
cell, as a person does) and measures, in the page, from the key press:

- *shown*: the new panel's element is in the output (the kernel built it and the widget
  manager made its views);
- *painted*: the frame showing the panel's controls (a new Send button and the status line)
  was rendered (``requestAnimationFrame``, then a ``user-blocking`` task posted from it);
- *front end*: painted minus shown, what drawing the controls costs the page.

Goal: painted <= 100 ms (median; p99 printed too). The load average is printed with the
figures: the machine may be shared. Needs Debian's chromium and playwright (the test
extra); never ``playwright install``.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import _bootstrap  # noqa: F401  (this checkout's nb_hitl and test servers)
from _page_timing import figures, lab_arguments, lab_pages, lab_settings, load_average
from _stats import pct

SETUP = """\
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.widgets import ChatWidget
def agent():
    return ReActAgent("Friday", "You are a test agent.", ScriptedModel(["ok"]))
"""
PANELS = {"chat": "ChatWidget(agent())", "show": "nb_hitl.show(agent(), session=None)"}

ARM = """(arg) => {
  // Every Send button drawn so far: the trial waits for one that is not among them.
  const seen = new WeakSet(document.querySelectorAll('.nb-hitl-send'));
  const seenChats = new WeakSet(document.querySelectorAll('.nb-hitl-chat'));
  const out = {key: null, shown: null, painted: null};
  window.__nbhFirstPaint = out;
  const onKey = (ev) => {
    if (ev.key !== 'Enter' || !(ev.ctrlKey || ev.metaKey) || out.key !== null) return;
    out.key = performance.now();
    window.removeEventListener('keydown', onKey, true);
  };
  window.addEventListener('keydown', onKey, true);
  const check = () => {
    if (out.key === null) return;
    if (out.shown === null &&
        [...document.querySelectorAll('.nb-hitl-chat')].some((c) => !seenChats.has(c)))
      out.shown = performance.now() - out.key;
    const fresh = [...document.querySelectorAll('.nb-hitl-send')].find((b) => !seen.has(b));
    const status = fresh?.closest('.nb-hitl-chat')?.querySelector('.nb-hitl-status');
    if (!fresh || !status || !fresh.textContent.trim()) return;
    observer.disconnect();
    if (out.shown === null) out.shown = performance.now() - out.key;
    requestAnimationFrame(() => {
      const frameAt = performance.now();
      scheduler.postTask(() => { out.painted = frameAt - out.key; }, {priority: 'user-blocking'});
    });
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {childList: true, subtree: true});
}"""


def trial(page: Any, cell: Any) -> dict[str, float]:
    page.evaluate(ARM)
    cell.click()  # the cell selected (command mode: Ctrl+Enter runs it and stays there)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => window.__nbhFirstPaint.painted !== null", timeout=60_000)
    found: dict[str, float] = page.evaluate("() => window.__nbhFirstPaint")
    page.wait_for_selector("text=/\\| Idle/", timeout=60_000)
    return found


def run(args: argparse.Namespace, panel: str) -> list[dict[str, float]]:
    cells = [SETUP, PANELS[panel]]
    ready = (".nb-hitl-chat .nb-hitl-send",)
    with lab_pages(args, f"first-paint-{panel}.ipynb", cells, ready) as pages:
        page, _kernel = next(iter(pages.values()))
        page.wait_for_selector("text=/\\| Idle/", timeout=60_000)
        cell = page.locator(".jp-CodeCell .jp-InputPrompt").nth(1)
        for _ in range(args.warmup):
            trial(page, cell)
        return [trial(page, cell) for _ in range(args.trials)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--panel", choices=[*PANELS, "both"], default="both")
    lab_arguments(parser)
    args = parser.parse_args()
    print(f"start: {load_average()}", flush=True)
    found = {p: run(args, p) for p in (PANELS if args.panel == "both" else [args.panel])}
    print(f"\nfirst paint of a new panel, {lab_settings(args)}; end: {load_average()}")
    for panel, trials in found.items():
        print(f" {PANELS[panel]} ({len(trials)} trials, from Ctrl+Enter):")
        shown = [t["shown"] for t in trials]
        painted = [t["painted"] for t in trials]
        front = [t["painted"] - t["shown"] for t in trials]
        print(f"  shown      {figures(shown)}")
        print(f"  painted    {figures(painted, 100)}")
        mid, p99 = statistics.median(front), pct(front, 0.99)
        print(f"  front end  median {mid:.1f} ms, p99 {p99:.1f} ms")


if __name__ == "__main__":
    main()
