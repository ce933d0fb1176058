"""First paint of a new panel in JupyterLab + Chromium: how long a panel takes to appear.

    python bench/panel_first_paint.py [--trials 20] [--comms disabled]

(bench/first_paint.py times each panel kind on its own; this one times whole panels from the
page's first comm_open, the cost the comm count drives.)

Each trial runs one notebook cell that builds a new panel (a new agent each time) and times,
in the page with ``performance.now()``:

- *from open*: from the first ``comm_open`` of that run reaching the page (the kernel
  connection's iopub signal) to the frame showing the whole panel drawn (its chat's box, its
  inspector's header, its session bar: ``READY``). This is the front end's share: building
  every widget model the kernel opened, then rendering them; fewer comms, less of it;
- *from Run*: from the cell's Run command to that frame (the kernel's building included).

"Painted" is the frame after the DOM was complete (``requestAnimationFrame``, then a
``user-blocking`` task: ``_page_timing.PAGE_HELPERS``). Cases: ``show(agent)`` (the whole
panel), ``MemoryInspector(agent)`` and ``SessionBar(agent)`` (one model each). Goal
(issue 32): first paint of a new panel <= 100 ms. Prints median and p99 per case and the
load average.
"""

from __future__ import annotations

import argparse
import statistics

import _bootstrap  # noqa: F401  (this checkout's nb_hitl and test servers)
from _page_timing import PAGE_HELPERS, chromium_or_exit, figures, load_average, new_page
from _stats import pct
from lab_server import LabServer

GOAL = 100.0
"""ms: the first paint of a new panel (issue 32)."""

SETUP = """\
import nb_hitl, tempfile, pathlib
from nb_hitl import ReActAgent, ScriptedModel
from nb_hitl.demo import demo_toolkit, long_task_transcript
from nb_hitl.widgets import MemoryInspector, SessionBar
_n = 0
_where = pathlib.Path(tempfile.mkdtemp())
def fresh():
    global _n
    _n += 1
    agent = ReActAgent(f"Friday{_n}", "You are a test agent.", ScriptedModel(["Hi."]),
                       toolkit=demo_toolkit())
    agent.memory.add_sync(long_task_transcript()[:12])
    return agent
def case(name):
    if name == "show(agent)":
        return nb_hitl.show(fresh(), session=_where / "s.json")
    if name == "MemoryInspector(agent)":
        return MemoryInspector(fresh())
    return SessionBar(fresh(), _where / "s.json")
"""
CASES = {
    "show(agent)": ".nb-hitl-panel",
    "MemoryInspector(agent)": ".nb-hitl-inspector",
    "SessionBar(agent)": ".nb-hitl-session-bar",
}
"""Each case and the element it draws."""
READY = {
    "show(agent)": [
        ".nb-hitl-chat textarea",
        ".nb-hitl-inspector .nbh-inspector-header b",
        ".nb-hitl-panel-parts .nbh-session-save",
    ],
    "MemoryInspector(agent)": [".nbh-inspector-header b", ".nb-hitl-table"],
    "SessionBar(agent)": [".nbh-session-save"],
}
"""What must be in the case's element for it to count as drawn."""

TRIAL = (
    "(arg) => {"
    + PAGE_HELPERS
    + """
  const shell = window.jupyterapp.shell;
  let panel = shell.currentWidget;
  const kernel = panel.sessionContext.session.kernel;
  for (const e of document.querySelectorAll(arg.selector)) e.dataset.nbhOld = "1";
  return new Promise((resolve, reject) => {
    let opened = null;
    const onMsg = (_k, msg) => {
      if (opened === null && msg.header.msg_type === "comm_open") opened = performance.now();
    };
    kernel.iopubMessage.connect(onMsg);
    const fresh = () => [...document.querySelectorAll(arg.selector)].find(
      (e) => !e.dataset.nbhOld && arg.ready.every((s) => e.querySelector(s)));
    let done = false;
    const check = () => {
      if (done || !fresh()) return;
      done = true;
      observer.disconnect();
      afterPaint((frameAt) => {
        kernel.iopubMessage.disconnect(onMsg);
        resolve({ open: opened === null ? null : frameAt - opened, run: frameAt - t0 });
      });
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { childList: true, subtree: true, attributes: true });
    setTimeout(() => { if (!done) reject(new Error("not drawn in 60 s")); }, 60000);
    panel.content.activeCellIndex = arg.cell;
    const t0 = performance.now();
    window.jupyterapp.commands.execute("notebook:run-cell");
  });
}"""
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--comms", default="disabled", help="commsOverSubshells setting")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    chromium = chromium_or_exit()
    lab = LabServer()
    try:
        lab.set_setting(
            "@jupyterlab/apputils-extension", "kernels-settings", {"commsOverSubshells": args.comms}
        )
        cells = [SETUP, *(f"case({name!r})" for name in CASES)]
        with sync_playwright() as pw:
            browser, page = new_page(pw, chromium)
            try:
                page.goto(lab.write_notebook("panel_first_paint.ipynb", cells))
                page.wait_for_selector("text=/\\| Idle/", timeout=90_000)
                page.wait_for_function(
                    "() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session"
                    "?.kernel?.status === 'idle'",
                    timeout=90_000,
                )
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
                for selector in CASES.values():
                    page.wait_for_selector(selector, timeout=120_000)
                page.wait_for_timeout(1000)
                print(f"first paint of a new panel, JupyterLab + Chromium, {args.trials} trials "
                      f"per case (commsOverSubshells={args.comms}); {load_average()}")  # fmt: skip
                for i, (name, selector) in enumerate(CASES.items(), start=1):
                    opens: list[float] = []
                    runs: list[float] = []
                    for trial in range(args.trials + 2):
                        out = page.evaluate(
                            TRIAL, {"selector": selector, "ready": READY[name], "cell": i}
                        )
                        page.wait_for_timeout(150)
                        if trial < 2:
                            continue  # warm-up: modules loaded, caches filled
                        if out["open"] is not None:
                            opens.append(out["open"])
                        runs.append(out["run"])
                    print(f"{name:24s} from open: {figures(opens, GOAL)}")
                    print(f"{'':24s} from Run:  {figures(runs)}")
                    print(f"{'':24s} ({len(opens)} trials; p99 of {len(opens)} is the max"
                          f" when fewer than 100: {pct(opens, 0.99):.1f} ms; "
                          f"mean {statistics.fmean(opens):.1f} ms)")  # fmt: skip
            finally:
                browser.close()
    finally:
        lab.stop()


if __name__ == "__main__":
    main()
