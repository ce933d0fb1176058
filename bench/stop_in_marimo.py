"""Stop latency in marimo as a person sees it: ``marimo run`` + Chromium, the panel shown
natively (one ``PanelModel`` through ``mo.ui.anywidget``), a long answer streaming at 500
tokens/s.

    python bench/stop_in_marimo.py [--words 2000] [--trials 20]
    python bench/stop_in_marimo.py --hub [--words 60] [--trials 20]

Once ``--words`` words are on screen the bench clicks Stop (a DOM click) and measures, in the
page, from the click: *front* (the streaming row takes the front end's ``nb-hitl-stopping``
guess, drawn by the chat's keys in the click's own frame) and *kernel* (the kernel's
``nb-hitl-interrupted`` class arrives as the panel's op: the click's message to the kernel,
``agent.interrupt()``, the op back), each up to the frame that painted it (a
``requestAnimationFrame`` then a ``user-blocking`` task). Prints median and p99 of each.
``--hub``: ``nb_hitl.show(hub)`` instead (Alice, Bob streaming at 40 tokens/s, Carol): once
Bob has ``--words`` words on screen the bench clicks the hub's Stop and measures *style* (Bob's
row takes the interrupted or stopping style), *paused* (the status says "Paused") and
*painted* (the frame showing it), as ``bench/hub_stop_in_browser.py`` does in JupyterLab; then
it answers the pause prompt with Stop and starts the next round from the page. The panel is
found across marimo's shadow roots. Goal: hub Stop -> "Paused" <= 100 ms.
Needs Debian's chromium and playwright (the test extra).
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

import _bootstrap  # noqa: F401  (this checkout's nb_hitl and test servers)
from _page_timing import chromium_or_exit, figures, load_average, new_page, page_function
from marimo_server import MarimoServer

SHADOW = "document.querySelector('marimo-anywidget').shadowRoot"

CLICK_STOP = page_function(
    """
  return new Promise((resolve) => {
    const root = """
    + SHADOW
    + """;
    const chat = root.querySelector('.nb-hitl-chat');
    const live = chat.querySelector('.nb-hitl-live');
    if (live === null) { resolve(null); return; }
    const button = chat.querySelector('button.nb-hitl-stop');
    const words = live.textContent.split(/\\s+/).length;
    const out = {words};
    let clickMs = null;
    const painted = (name) => afterPaint(() => {
      out[name] = clickMs();
      if (out.front !== undefined && out.kernel !== undefined) resolve(out);
    });
    watchClick(button, live, {attributes: true, attributeFilter: ['class']}, (ms, stop) => {
      clickMs = ms;
      if (out.frontSeen === undefined && live.matches('.nb-hitl-stopping')) {
        out.frontSeen = ms(); painted('front');
      }
      if (out.kernelSeen === undefined && live.matches('.nb-hitl-interrupted')) {
        out.kernelSeen = ms(); painted('kernel'); stop();
        if (out.frontSeen === undefined) { out.frontSeen = out.kernelSeen; painted('front'); }
      }
    });
  });"""
)

ENOUGH_WORDS = (
    "(n) => { const live = " + SHADOW + ".querySelector('.nb-hitl-chat .nb-hitl-live');"
    " return live !== null && live.textContent.split(/\\s+/).length >= n; }"
)


DEEP = """const deep = (sel) => {
    const find = (root) => {
      const e = root.querySelector(sel);
      if (e) return e;
      for (const x of root.querySelectorAll('*'))
        if (x.shadowRoot) { const f = find(x.shadowRoot); if (f) return f; }
      return null;
    };
    return find(document);
  };"""
"""JavaScript: ``deep(selector)``, the first match in the page or any open shadow root."""

HUB_STOP = page_function(
    """
  return new Promise((resolve) => {
    """
    + DEEP
    + """
    // Every element is looked up again at each change (a redraw may replace one).
    const hub = deep('.nb-hitl-hub');
    const live = hub && hub.querySelector('.nb-hitl-live');
    const stop = hub && hub.querySelector('.nb-hitl-hub-stop');
    if (!live || !stop || stop.disabled) { resolve(null); return; }
    const STYLED = '.nb-hitl-interrupted, .nb-hitl-stopping';
    const styledBefore = hub.querySelectorAll(STYLED).length;
    const words = live.textContent.split(/\\s+/).length;
    let style = null, done = false;
    const everything = {attributes: true, childList: true, subtree: true, characterData: true};
    setTimeout(() => { if (!done) { done = true; resolve(null); } }, 20000);
    watchClick(stop, hub, everything, (ms, disconnect) => {
      const t = ms();
      if (style === null && hub.querySelectorAll(STYLED).length > styledBefore) style = t;
      const now = hub.querySelector('.nb-hitl-hub-speakers');
      if (done || !now || !/Paused/.test(now.textContent)) return;
      done = true;
      disconnect();
      afterPaint(() => resolve({style, paused: t, painted: ms(), words}));
    });
  });"""
)

BOB_WORDS = (
    "(n) => { " + DEEP + " const live = deep('.nb-hitl-hub .nb-hitl-live');"
    " if (live === null || !/Bob/.test(live.textContent)) return false;"
    " return live.textContent.split(/\\s+/).length >= n; }"
)
HUB_IDLE = (
    "() => { " + DEEP + " const now = deep('.nb-hitl-hub-speakers');"
    " return now !== null && !/Paused|speaking|Running|Stopping/.test(now.textContent); }"
)


def hub_trials(page: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Stop while Bob streams, ``args.trials`` rounds started from the page."""
    results: list[dict[str, Any]] = []
    page.goto(args.server.page_url("hubbench"))
    page.locator(".nb-hitl-hub .nb-hitl-hub-start").first.wait_for(timeout=90_000)
    for trial in range(args.trials):
        runs = page.locator(".nb-hitl-hub-start:visible:enabled, .nb-hitl-hub-next:visible:enabled")
        runs.first.click()
        page.wait_for_function(BOB_WORDS, arg=args.words, timeout=120_000, polling=50)
        result = page.evaluate(HUB_STOP)
        if result is None:
            print(f"trial {trial + 1:3}: Bob finished before Stop, or no 'Paused' in 20 s")
        else:
            results.append(result)
            style = result["style"] if result["style"] is not None else float("nan")
            print(f"trial {trial + 1:3}: {result['words']:5} words, style after {style:6.1f} ms, "
                  f"'Paused' after {result['paused']:6.1f} ms, painted "
                  f"{result['painted']:6.1f} ms   {load_average()}", flush=True)  # fmt: skip
        answer = page.locator(".nb-hitl-hub .nb-hitl-pause-stop:visible").first
        try:  # the pause prompt: End discussion (none when Bob finished first)
            answer.click(timeout=30_000)
        except Exception:  # Playwright's TimeoutError: no prompt to answer
            pass
        page.wait_for_function(HUB_IDLE, timeout=120_000, polling=100)
        page.wait_for_timeout(300)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=2000, help="words on screen at Stop")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--hub", action="store_true", help="a MsgHub's Stop -> Paused instead")
    args = parser.parse_args()
    if args.hub and args.words == 2000:
        args.words = 60
    print(f"start: {load_average()}", flush=True)
    # A `timeout` that ends the bench still stops its marimo server (the `finally` below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    from playwright.sync_api import sync_playwright

    chromium = chromium_or_exit()
    server = MarimoServer()
    results: list[dict[str, Any]] = []
    try:
        with sync_playwright() as pw:
            browser, page = new_page(pw, chromium)
            if args.hub:
                args.server = server
                hub_results = hub_trials(page, args)
                browser.close()
                print(f"\nhub Stop in marimo ({len(hub_results)} trials; end: {load_average()}):")
                for key, goal in (("style", 50), ("paused", 100), ("painted", 100)):
                    vals = [r[key] for r in hub_results if r[key] is not None]
                    if vals:
                        print(f"  {key:8} {len(vals)} trials: {figures(vals, goal)}")
                return
            page.goto(server.page_url("bench"))
            page.wait_for_selector(".nb-hitl-chat textarea", timeout=90_000)
            for trial in range(args.trials):
                page.locator(".nb-hitl-chat textarea").fill(f"Tell me everything ({trial}).")
                page.locator(".nb-hitl-chat button.nb-hitl-send").click()
                page.wait_for_function(ENOUGH_WORDS, arg=args.words, timeout=120_000,
                                       polling=100)  # fmt: skip
                result = page.evaluate(CLICK_STOP)
                if result is None:
                    print(f"trial {trial + 1:3}: the answer finished before Stop; skipped")
                else:
                    results.append(result)
                    print(f"trial {trial + 1:3}: {result['words']:5} words, front painted "
                          f"{result['front']:6.1f} ms, kernel painted {result['kernel']:6.1f} ms",
                          flush=True)  # fmt: skip
                page.wait_for_selector(".nb-hitl-status[data-state='idle']", timeout=60_000)
            browser.close()
    finally:
        server.stop()
    print(f"\nStop in marimo ({len(results)} trials, ~{args.words} words on screen; end: "
          f"{load_average()}):")  # fmt: skip
    for key, label in (("front", "interrupted style painted (front end)"),
                       ("kernel", "kernel's interrupted style painted")):  # fmt: skip
        values = [r[key] for r in results]
        if values:
            print(f"  {label:40} {figures(values)}")


if __name__ == "__main__":
    main()
