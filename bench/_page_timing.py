"""What the browser benches share: timing a click in the page, the load line, a second kernel
client, and the summary lines (``stop_in_browser.py``, ``hub_stop_in_browser.py``,
``stop_in_marimo.py``).

Times are measured in the page, from the click, with ``performance.now()``:

- *seen*: a ``MutationObserver`` callback (or the check right after the click) saw the change;
- *painted*: the frame showing it was rendered: a ``requestAnimationFrame`` callback runs
  right before that frame renders, in the same task, and a ``user-blocking`` task posted from
  it runs right after the frame, ahead of tasks already queued (websocket messages).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from collections.abc import Iterator
from typing import Any

import _bootstrap  # noqa: F401  (this checkout's nb_hitl and test servers)
from _stats import pct
from lab_server import CHROMIUM_ARGS, LabServer, find_chromium

PAGE_HELPERS = """
  // then(frameAt) once the frame showing the DOM as it is now was rendered.
  const afterPaint = (then) => requestAnimationFrame(() => {
    const frameAt = performance.now();
    scheduler.postTask(() => then(frameAt), {priority: 'user-blocking'});
  });
  // Click button and call check(ms, stop) on every change under node (observed as options
  // say) and once right after the click; ms(at = now) is the time since the click.
  const watchClick = (button, node, options, check) => {
    let t0 = 0;
    const ms = (at = performance.now()) => at - t0;
    const observer = new MutationObserver(() => check(ms, () => observer.disconnect()));
    observer.observe(node, options);
    t0 = performance.now();
    button.click();
    check(ms, () => observer.disconnect());
  };
"""


def page_function(body: str) -> str:
    """A function for ``page.evaluate`` whose ``body`` can use ``afterPaint`` and
    ``watchClick`` (``PAGE_HELPERS``) and the argument ``arg``."""
    return "(arg) => {" + PAGE_HELPERS + body + "\n}"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages and the core count, as one line."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def chromium_or_exit() -> str:
    """Debian's chromium (never ``playwright install``), or exit saying how to get it."""
    chromium = find_chromium()
    if chromium is None:
        sys.exit("No chromium found: apt-get install -y chromium")
    return chromium


def new_page(pw: Any, chromium: str) -> tuple[Any, Any]:
    """A headless Chromium and a 1,400 x 1,000 page in it."""
    browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
    return browser, browser.new_page(viewport={"width": 1400, "height": 1000})


def run_notebook(page: Any, lab: LabServer, name: str, cells: list[str]) -> None:
    """Open a notebook of ``cells`` in JupyterLab and Run All, once the real kernel is idle."""
    page.goto(lab.write_notebook(name, cells))
    page.wait_for_selector("text=/\\| Idle/", timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def lab_arguments(parser: argparse.ArgumentParser) -> None:
    """``--comms`` (JupyterLab's commsOverSubshells), ``--nagle`` (no server extension) and
    ``--compare-nagle`` (both, trial by trial)."""
    parser.add_argument("--comms", default="disabled", help="commsOverSubshells setting")
    parser.add_argument("--nagle", action="store_true", help="the Jupyter server without "
                        "nb_hitl's server extension (Nagle's algorithm on its kernel "
                        "websockets, as before it)")  # fmt: skip
    parser.add_argument("--compare-nagle", action="store_true", help="two JupyterLabs, with "
                        "and without the server extension, trials alternating between them: "
                        "before and after it in one run, under the same load")  # fmt: skip


def servers(args: argparse.Namespace) -> list[str]:
    """The servers a run alternates between: ``on`` (nb_hitl's server extension), ``off``."""
    if args.compare_nagle:
        return ["on", "off"]
    return ["off"] if args.nagle else ["on"]


def lab_settings(args: argparse.Namespace) -> str:
    """The ``lab_arguments`` a run used, for its summary line."""
    ext = "on and off, alternating" if args.compare_nagle else servers(args)[0]
    return f"commsOverSubshells={args.comms}, server extension {ext}"


@contextlib.contextmanager
def lab_pages(
    args: argparse.Namespace, name: str, cells: list[str], ready: tuple[str, ...]
) -> Iterator[dict[str, tuple[Any, Kernel]]]:
    """For each of ``servers(args)``: a JupyterLab and a Chromium (a browser each: nothing is
    a background tab) whose page ran the notebook ``cells``. Yields ``{server: (page, kernel)}``
    once every selector in ``ready`` is in each page (``kernel``: a second kernel client).
    Everything is closed and stopped (by PID) on the way out."""
    from playwright.sync_api import sync_playwright

    chromium = chromium_or_exit()
    with contextlib.ExitStack() as stack:
        labs: dict[str, LabServer] = {}
        for server in servers(args):
            lab = labs[server] = LabServer(server_extension=server == "on")
            stack.callback(lab.stop)
            lab.set_setting("@jupyterlab/apputils-extension", "kernels-settings",
                            {"commsOverSubshells": args.comms})  # fmt: skip
        pw = stack.enter_context(sync_playwright())
        out: dict[str, tuple[Any, Kernel]] = {}
        for server, lab in labs.items():
            browser, page = new_page(pw, chromium)
            stack.callback(browser.close)
            run_notebook(page, lab, name, cells)
            for selector in ready:
                page.wait_for_selector(selector, state="attached", timeout=90_000)
            kernel = Kernel(lab)
            stack.callback(kernel.close)
            out[server] = (page, kernel)
        yield out


class Kernel:
    """A second client of the notebook's kernel, to set up each trial."""

    def __init__(self, lab: LabServer) -> None:
        from jupyter_client import BlockingKernelClient

        with open(next((lab.tmp / "runtime").glob("kernel-*.json"))) as f:
            info = json.load(f)
        self.client = BlockingKernelClient()
        self.client.load_connection_info(info)
        self.client.start_channels()

    def run(self, code: str) -> None:
        reply = self.client.execute_interactive(code, timeout=60, output_hook=lambda _m: None)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{code!r} failed: {reply['content']}")

    def close(self) -> None:
        self.client.stop_channels()


def figures(values: list[float], goal: float | None = None) -> str:
    """``median X ms, p99 Y ms, max Z ms`` of ``values`` (ms), and the goal if there is one."""
    line = (
        f"median {statistics.median(values):.1f} ms, p99 {pct(values, 0.99):.1f} ms, "
        f"max {max(values):.1f} ms"
    )
    return line + (f"   (goal: <= {goal:g} ms)" if goal is not None else "")
