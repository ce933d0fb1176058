"""One JupyterLab server on 127.0.0.1 for the real-browser tests, with throwaway folders.

Settings (commsOverSubshells, no news) are files in a temporary ``user_settings_dir`` that the
front end reads on each page load, so one server serves both settings.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""Chromium's flags for the browser tests and benchmarks: headless, no network of its own."""


def find_chromium() -> str | None:
    """The installed Chromium (Debian's ``chromium``), or None."""
    env = os.environ.get("NB_HITL_CHROMIUM")
    if env and Path(env).exists():
        return env
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LabServer:
    """A JupyterLab process and its folders; ``stop()`` ends it by PID.

    Args:
        server_extension: load nb_hitl's Jupyter server extension (kernel websockets without
            Nagle's delay) through the config file the wheel installs, as a user's server does;
            False: the server without it (``bench/``'s ``--nagle``, the figures before it).
    """

    def __init__(self, server_extension: bool = True) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="nb-hitl-lab-"))
        self.root = self.tmp / "root"
        self.settings = self.tmp / "settings"
        for d in (self.root, self.settings, self.tmp / "workspaces", self.tmp / "config"):
            d.mkdir()
        self.token = os.urandom(12).hex()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.set_setting("@jupyterlab/apputils-extension", "notification",
                         {"fetchNews": "false", "checkForUpdates": False})  # fmt: skip
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
            JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
            PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
        )
        self.server_extension = server_extension
        if server_extension:  # the file the wheel installs into etc/jupyter
            paths = [str(REPO / "jupyter-config"), env.get("JUPYTER_CONFIG_PATH", "")]
            env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in paths if p)
        else:  # ServerApp.jpserver_extensions itself wins over every *.d file (the wheel's too)
            (self.tmp / "config" / "jupyter_server_config.json").write_text(
                json.dumps({"ServerApp": {"jpserver_extensions": {"nb_hitl": False}}})
            )
        for key in [k for k in env if k.startswith("PYTEST")]:
            env.pop(key)
        self.log = open(self.tmp / "server.log", "wb")  # closed in stop()
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "jupyter", "lab", "--no-browser",
                "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0", "--allow-root",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={self.root}",
                f"--LabApp.user_settings_dir={self.settings}",
                f"--LabApp.workspaces_dir={self.tmp / 'workspaces'}",
                # window.jupyterapp: the look tests switch themes and side bars by command.
                "--LabApp.expose_app_in_browser=True",
                "--JupyterNotebookApp.expose_app_in_browser=True",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=str(self.root),
        )  # fmt: skip
        self._wait_ready()

    def _wait_ready(self, timeout: float = 90.0) -> None:
        end = time.monotonic() + timeout
        url = f"{self.url}/api/status?token={self.token}"
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {self.read_log()[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise TimeoutError(f"JupyterLab did not start: {self.read_log()[-3000:]}")

    def read_log(self) -> str:
        return (self.tmp / "server.log").read_text(errors="replace")

    def set_setting(self, plugin_pkg: str, plugin: str, values: dict[str, object]) -> None:
        """Write a user setting file (read by the front end on the next page load)."""
        folder = self.settings / plugin_pkg
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))

    def clear_setting(self, plugin_pkg: str, plugin: str) -> None:
        """Remove a user setting file: the front end falls back to JupyterLab's default."""
        (self.settings / plugin_pkg / f"{plugin}.jupyterlab-settings").unlink(missing_ok=True)

    def write_notebook(self, name: str, cells: list[str]) -> str:
        """Write a notebook of code cells into the server root; returns its lab URL."""
        nb = {
            "cells": [
                {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                 "source": src}
                for src in cells
            ],
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                               "language": "python"}
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }  # fmt: skip
        (self.root / name).write_text(json.dumps(nb))
        # A workspace of its own, reset: no tab of an earlier test is restored next to it.
        workspace = Path(name).stem
        return f"{self.url}/lab/workspaces/{workspace}/tree/{name}?reset&token={self.token}"

    def kernel_subshells(self) -> list[str]:
        """Subshell ids of the server's kernels, asked over each kernel's control channel."""
        from jupyter_client import BlockingKernelClient

        with urllib.request.urlopen(f"{self.url}/api/kernels?token={self.token}") as resp:
            kernels = json.loads(resp.read())
        found: list[str] = []
        for k in kernels:
            client = BlockingKernelClient()
            client.load_connection_file(str(self.tmp / "runtime" / f"kernel-{k['id']}.json"))
            client.start_channels(shell=False, iopub=False, stdin=False, hb=False)
            try:
                client.control_channel.send(client.session.msg("list_subshell_request", {}))
                reply = client.control_channel.get_msg(timeout=10)
                found.extend(reply["content"].get("subshell_id", []))
            finally:
                client.stop_channels()
        return found

    def kernel_eval(self, expression: str) -> str:
        """``repr`` of ``expression`` evaluated in the server's only kernel (a user expression
        sent over a client of its own: silent, the notebook's cells and outputs untouched)."""
        from jupyter_client import BlockingKernelClient

        with urllib.request.urlopen(f"{self.url}/api/kernels?token={self.token}") as resp:
            (kernel,) = json.loads(resp.read())
        client = BlockingKernelClient()
        client.load_connection_file(str(self.tmp / "runtime" / f"kernel-{kernel['id']}.json"))
        client.start_channels(iopub=False, stdin=False, hb=False, control=False)
        try:
            msg_id = client.execute("", silent=True, user_expressions={"x": expression})
            while True:
                reply = client.get_shell_msg(timeout=30)
                if reply["parent_header"].get("msg_id") == msg_id:
                    break
            found = reply["content"]["user_expressions"]["x"]
            if found.get("status") != "ok":
                raise RuntimeError(f"{expression!r} failed in the kernel: {found}")
            return str(found["data"]["text/plain"])
        finally:
            client.stop_channels()

    def shutdown_kernels(self) -> None:
        """Shut down every session and kernel the server runs (after each test).

        JupyterLab's DELETE returns once the kernel process has ended; one already gone (404)
        is fine.
        """
        for api in ("sessions", "kernels"):
            with urllib.request.urlopen(
                f"{self.url}/api/{api}?token={self.token}", timeout=10
            ) as r:
                items = json.loads(r.read())
            for item in items:
                url = f"{self.url}/api/{api}/{item['id']}?token={self.token}"
                try:
                    urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=30)
                except urllib.error.HTTPError as exc:
                    if exc.code != 404:
                        raise

    def stop(self) -> None:
        """Stop the server by its PID, then remove its folders."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
