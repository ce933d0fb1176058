"""One ``marimo run`` server on 127.0.0.1 for the marimo browser tests, with throwaway folders.

It serves ``marimo_app.py`` from this checkout (its kernel imports this checkout's nb_hitl).
marimo's theme is set to ``system`` in a user config of its own, so a page's colour scheme
(Playwright's ``color_scheme``, ``page.emulate_media``) picks light or dark. ``marimo run``
runs each page's kernel in a thread of the server process; the server is started in a process
group of its own and stopped by its PID (the group, should it ever start helpers).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from lab_server import REPO, free_port

APP = Path(__file__).with_name("marimo_app.py")


class MarimoServer:
    """A ``marimo run`` process serving the test app; ``stop()`` ends it by PID."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="nb-hitl-marimo-"))
        config = self.tmp / "config" / "marimo"
        config.mkdir(parents=True)
        (config / "marimo.toml").write_text('[display]\ntheme = "system"\n')
        app = self.tmp / "app.py"
        shutil.copy(APP, app)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ)
        env.update(
            XDG_CONFIG_HOME=str(self.tmp / "config"),
            XDG_STATE_HOME=str(self.tmp / "state"),
            XDG_CACHE_HOME=str(self.tmp / "cache"),
            MARIMO_SKIP_UPDATE_CHECK="1",
            PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        )
        for key in [k for k in env if k.startswith("PYTEST")]:
            env.pop(key)
        self.log = open(self.tmp / "server.log", "wb")  # closed in stop()
        marimo = [sys.executable, "-m", "marimo"]
        self.proc = subprocess.Popen(
            [*marimo, "run", str(app), "--headless", "--host", "127.0.0.1",
             "--port", str(self.port), "--no-token", "--no-sandbox", "--no-check"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=str(self.tmp),
            start_new_session=True,
        )  # fmt: skip
        self._wait_ready()

    def _wait_ready(self, timeout: float = 90.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"marimo exited: {self.read_log()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise TimeoutError(f"marimo did not start: {self.read_log()[-3000:]}")

    def page_url(self, case: str) -> str:
        """The app's URL for one case of ``marimo_app.py`` (a session of its own)."""
        return f"{self.url}/?case={case}"

    def read_log(self) -> str:
        return (self.tmp / "server.log").read_text(errors="replace")

    def stop(self) -> None:
        """Stop the server by its PID (its process group), then remove its folders."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
