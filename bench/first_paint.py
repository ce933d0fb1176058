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

``--breakdown`` also prints where the time went, each milestone from the key press on the
page's clock (the kernel's, from its messages' ``header.date``, on the same machine's clock):
the ``execute_request`` sent; the kernel busy and its first ``comm_open`` of an anywidget
model (kernel clock); that ``comm_open`` reaching the page (the websocket message decoded),
and the cell's output (``execute_result``, which asks for the panel's view);
the model's ES module handed to anywidget's blob-URL import (``URL.createObjectURL``) and
imported (anywidget revokes the URL right after); the panel drawn; the frame painted. It hooks
the page's kernel serializer and ``URL.createObjectURL`` / ``revokeObjectURL`` to see them.
With nb_hitl's server extension a kernel's panels after its first load their module by URL
(``nb_hitl/widgets/_modules.py``): imported once for the page, with no blob, so those two
steps are absent from the breakdown.

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
  const out = {key: null, shown: null, painted: null, at: {}};
  window.__nbhFirstPaint = out;
  if (arg.breakdown) {
    // Each milestone once per trial, in ms from the key press (kernel clock: header.date).
    const mark = (name, at = performance.now()) => {
      if (out.key !== null && out.at[name] === undefined) out.at[name] = at - out.key;
    };
    const kernelClock = (msg) => Date.parse(msg.header.date) - performance.timeOrigin;
    window.__nbhMark = (event, msg) => {
      if (event === 'sent' && msg.header.msg_type === 'execute_request') mark('request sent');
      if (event !== 'received') return;
      const type = msg.header.msg_type;
      if (type === 'status' && msg.content.execution_state === 'busy')
        mark('kernel busy (kernel clock)', kernelClock(msg));
      if (type === 'comm_open' && msg.content.data?.state?._model_name === 'AnyModel') {
        mark('comm_open sent (kernel clock)', kernelClock(msg));
        mark('comm_open at the page');
      }
      if (type === 'display_data' || type === 'execute_result') mark('output at the page');
    };
    window.__nbhModule = (event) => mark(event);
    if (!window.__nbhHooked) {
      window.__nbhHooked = true;
      const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
      const serializer = kernel.serverSettings.serializer;
      const { serialize, deserialize } = serializer;
      serializer.serialize = (msg, protocol) => {
        window.__nbhMark('sent', msg);
        return serialize.call(serializer, msg, protocol);
      };
      serializer.deserialize = (data, protocol) => {
        const msg = deserialize.call(serializer, data, protocol);
        window.__nbhMark('received', msg);
        return msg;
      };
      const { createObjectURL, revokeObjectURL } = URL;
      URL.createObjectURL = (blob) => {
        if (blob?.type === 'text/javascript') window.__nbhModule('module import started');
        return createObjectURL.call(URL, blob);
      };
      URL.revokeObjectURL = (url) => {
        window.__nbhModule('module imported');
        return revokeObjectURL.call(URL, url);
      };
    }
  }
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
    out.at['drawn'] = performance.now() - out.key;
    requestAnimationFrame(() => {
      const frameAt = performance.now();
      scheduler.postTask(() => { out.painted = frameAt - out.key; }, {priority: 'user-blocking'});
    });
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {childList: true, subtree: true});
}"""


def trial(page: Any, cell: Any, breakdown: bool = False) -> dict[str, Any]:
    page.evaluate(ARM, {"breakdown": breakdown})
    cell.click()  # the cell selected (command mode: Ctrl+Enter runs it and stays there)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => window.__nbhFirstPaint.painted !== null", timeout=60_000)
    found: dict[str, Any] = page.evaluate("() => window.__nbhFirstPaint")
    page.wait_for_selector("text=/\\| Idle/", timeout=60_000)
    return found


def run(args: argparse.Namespace, panel: str) -> list[dict[str, Any]]:
    cells = [SETUP, PANELS[panel]]
    ready = (".nb-hitl-chat .nb-hitl-send",)
    with lab_pages(args, f"first-paint-{panel}.ipynb", cells, ready) as pages:
        page, _kernel = next(iter(pages.values()))
        page.wait_for_selector("text=/\\| Idle/", timeout=60_000)
        cell = page.locator(".jp-CodeCell .jp-InputPrompt").nth(1)
        for _ in range(args.warmup):
            trial(page, cell, args.breakdown)
        return [trial(page, cell, args.breakdown) for _ in range(args.trials)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--panel", choices=[*PANELS, "both"], default="both")
    parser.add_argument("--breakdown", action="store_true", help="also print each milestone "
                        "from the key press (see the module docstring)")  # fmt: skip
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
        if args.breakdown:
            print_breakdown(trials)


def print_breakdown(trials: list[dict[str, Any]]) -> None:
    """Each milestone's median and p99 from the key press, in the order of their medians."""
    names = {name for t in trials for name in t["at"]} | {"painted"}
    values = {name: [t["at"].get(name, t.get(name)) for t in trials] for name in names}
    found = {name: [v for v in vs if v is not None] for name, vs in values.items()}
    print("  breakdown (ms from the key press; median, p99):")
    for name in sorted((n for n in found if found[n]), key=lambda n: statistics.median(found[n])):
        vs = found[name]
        print(f"    {name:32s} {statistics.median(vs):6.1f} {pct(vs, 0.99):6.1f}")


if __name__ == "__main__":
    main()
