"""Fixtures for the real-browser tests: one JupyterLab server and Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_server import CHROMIUM_ARGS, LabServer, find_chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of the installed Chromium; skips loudly when there is none."""
    path = find_chromium()
    if path is None:
        reason = (
            "REAL-BROWSER TESTS SKIPPED: no Chromium found (tried chromium, chromium-browser, "
            "google-chrome, $NB_HITL_CHROMIUM). Install it with `apt-get install -y chromium`."
        )
        print(f"\n{'!' * 20} {reason} {'!' * 20}\n")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def lab() -> Iterator[LabServer]:
    """A JupyterLab server for the whole session."""
    server = LabServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def marimo_server() -> Iterator[Any]:
    """A ``marimo run`` server of ``marimo_app.py`` for the whole session."""
    from marimo_server import MarimoServer

    server = MarimoServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def clean_lab_after_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that used the session's JupyterLab: its kernels shut down, and JupyterLab's
    default ``commsOverSubshells`` put back.

    Both outlived the test otherwise. A test that ran under ``perComm`` left every later test
    running under it too; a kernel left running (a test that closed its page but not its
    kernel) kept its agents and panels alive on the 2 cores the later tests share, and in a
    full run the look matrix's Run All did not finish in time after them.
    """
    server = request.getfixturevalue("lab") if "lab" in request.fixturenames else None
    yield
    if server is not None:
        server.clear_setting("@jupyterlab/apputils-extension", "kernels-settings")
        server.shutdown_kernels()


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """A headless Chromium driven by Playwright, for one test module.

    Playwright's sync API runs its own event loop in this thread while it is open, which
    breaks every later asyncio test; module scope closes it before other folders' tests run.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def artifacts() -> Path:
    """Folder for screenshots (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
