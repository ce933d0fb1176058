"""Stop latency as a person sees it: real JupyterLab, real Chromium, a long partial answer.

    python bench/stop_in_browser.py [--words 2000] [--rate 500] [--trials 30] [--comms disabled]
                                    [--paths both|front|kernel]
                                    [--nagle | --compare-nagle]

A panel streams a long answer; once ``--words`` words are on screen the bench clicks Stop (a
DOM click on the button) and measures, in the page, two times from the click:

- *applied*: the partial answer's row carries the interrupted style (the kernel's
  ``nb-hitl-interrupted`` class or the front end's ``nb-hitl-stopping`` guess);
- *painted*: the frame with that style was rendered (style, layout, paint, commit): a
  ``requestAnimationFrame`` after the change, then a ``user-blocking`` task posted from it,
  which runs right after that frame, ahead of tasks already queued (websocket messages).

Two paths, alternating trial by trial in the same page so both see the same machine load:
*front* (the default: the front end draws the style in the click's own frame) and *kernel*
(``stopping_rows`` switched off, as before: the style waits for the kernel's round trip, one
``live`` op of the transcript's model). The streaming row is a row of the transcript's one
model (``TranscriptView``; the former ``LiveMessage`` anywidget and ipywidgets HTML rows are
gone: run this script from an older checkout for their figures). Goal: painted p99 <= 50 ms
for a 2,000-word partial answer (front path). The load average is printed with the figures:
the machine may be shared.

The server runs nb_hitl's Jupyter server extension (kernel websockets with ``TCP_NODELAY``), as
a user's does; ``--nagle`` runs it without (Nagle's algorithm on: before it, the kernel path's
style waited for the browser's delayed ACK, ~40-50 ms in every trial on a quiet machine);
``--compare-nagle`` runs both servers, trials alternating between them (before and after it in
one run, under the same load).

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
import random
import nb_hitl
from nb_hitl import ReActAgent, ScriptedModel

random.seed(7)
_words = ("agent memory token stream widget kernel reply interrupt resume summary plan "
          "threshold notebook message tool result model context budget").split()
def long_text(n):
    paras, para = [], []
    for i in range(n):
        w = random.choice(_words)
        para.append(f"**{{w}}**" if i % 37 == 0 else w)
        if len(para) >= 80:
            paras.append(" ".join(para) + ".")
            para = []
    return "\\n\\n".join(paras + [" ".join(para)])
LONG = long_text({words})
agent = ReActAgent("Friday", "You are a helpful assistant.",
                   ScriptedModel(responder=lambda messages, tools: LONG,
                                 tokens_per_second={rate}))
# Only the last rows are drawn, so every trial stops a 2,000-word answer in a page of the same size.
panel = nb_hitl.show(agent, session=None, chat={{"max_rendered": 4}})
panel"""

CLICK_STOP = page_function("""
  return new Promise((resolve) => {
    const chat = document.querySelector('.nb-hitl-chat');
    const live = chat.querySelector('.nb-hitl-live');
    if (live === null) { resolve(null); return; }  // the answer finished first: no trial
    const button = [...chat.querySelectorAll('button')].find(
      (b) => b.textContent.trim() === 'Stop');
    const words = live.textContent.split(/\\s+/).length;
    let done = false;
    watchClick(button, live, {attributes: true, attributeFilter: ['class']}, (ms, stop) => {
      if (done || !live.matches('.nb-hitl-interrupted, .nb-hitl-stopping')) return;
      done = true;
      stop();
      const seen = ms();
      const by = live.classList.contains('nb-hitl-stopping') ? 'front' : 'kernel';
      afterPaint((frameAt) => resolve({seen, frame: ms(frameAt), painted: ms(), words, by}));
    });
  });""")

ENOUGH_WORDS = """(n) => {
  const live = document.querySelector('.nb-hitl-chat .nb-hitl-live');
  return live !== null && live.textContent.split(/\\s+/).length >= n;
}"""


def run(args: argparse.Namespace) -> dict[str, list[dict[str, float]]]:
    paths = ["front", "kernel"] if args.paths == "both" else [args.paths]
    fronts = ["transcript"]
    exts = servers(args)
    combos = [(p, f, x) for p in paths for f in fronts for x in exts]

    def key(path: str, front_end: str, ext: str) -> str:
        return f"{front_end} rows, {path}" + (f", extension {ext}" if len(exts) > 1 else "")

    results: dict[str, list[dict[str, float]]] = {key(*c): [] for c in combos}
    setup = SETUP.format(words=args.words * 3, rate=args.rate)
    ready = (".nb-hitl-chat textarea", ".nb-hitl-chat .nb-hitl-keys")
    with lab_pages(args, "stop-bench.ipynb", [setup], ready) as pages:
        for trial in range(args.trials):
            path, front_end, ext = combos[trial % len(combos)]
            page, kernel = pages[ext]
            rows = ".nb-hitl-live" if path == "front" else ""
            kernel.run(f"panel.chat.shortcuts.stopping_rows = {rows!r}")
            page.locator(".nb-hitl-chat textarea").fill(f"Tell me everything ({trial}).")
            page.locator(".nb-hitl-chat button.nb-hitl-send").click()
            page.wait_for_function(ENOUGH_WORDS, arg=args.words, timeout=300_000,
                                   polling=100)  # fmt: skip
            result: dict[str, Any] | None = page.evaluate(CLICK_STOP)
            if result is None:
                print(f"trial {trial + 1:3}: the answer finished before Stop; skipped")
                page.wait_for_selector(".nb-hitl-status[data-state='idle']", timeout=60_000)
                continue
            if result["by"] != path:
                raise RuntimeError(f"trial {trial + 1}: the {result['by']} path drew the "
                                   f"style, not the {path} path")  # fmt: skip
            results[key(path, front_end, ext)].append(result)
            print(
                f"trial {trial + 1:3} ({front_end:5}, {path:6}, extension {ext:3}): "
                f"{result['words']:5} words, "
                f"style after "
                f"{result['seen']:6.1f} ms, frame {result['frame']:6.1f} ms, painted after "
                f"{result['painted']:6.1f} ms   "
                f"{load_average()}",
                flush=True,
            )
            page.wait_for_selector(".nb-hitl-status[data-state='idle']", timeout=60_000)
            time.sleep(0.3)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=2000, help="words on screen at Stop")
    parser.add_argument("--rate", type=float, default=500.0, help="tokens per second")
    parser.add_argument("--trials", type=int, default=30)
    lab_arguments(parser)
    parser.add_argument("--paths", choices=("both", "front", "kernel"), default="both",
                        help="front: style drawn by the front end at the click; kernel: "
                        "by the kernel's answer (the path before); both: alternate")  # fmt: skip
    args = parser.parse_args()
    print(f"start: {load_average()}", flush=True)
    results = run(args)
    print(
        f"\nStop -> interrupted style, {args.words:,}-word partial answer, {args.rate:g} tok/s, "
        f"{lab_settings(args)}; "
        f"end: {load_average()}"
    )
    for path, found in results.items():
        if not found:
            print(f"  {path}: no trial")
            continue
        print(f"  {path}, {len(found)} trials:")
        print(f"    style applied  {figures([r['seen'] for r in found])}")
        print(f"    painted        {figures([r['painted'] for r in found], goal=50)}")


if __name__ == "__main__":
    main()
