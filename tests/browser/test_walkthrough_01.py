"""The README's promise: open walkthrough 01 in JupyterLab, press Run All, and see an
interrupted reply and a resumed one, with no API key."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from lab_page import open_and_run_all
from lab_server import LabServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "01_interrupt_and_resume.ipynb"


def test_run_all_on_walkthrough_01_shows_interrupt_and_resume(
    lab: LabServer, browser: Any, artifacts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(NOTEBOOK, lab.root / NOTEBOOK.name)
    url = f"{lab.url}/lab/workspaces/walkthrough01/tree/{NOTEBOOK.name}?reset&token={lab.token}"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, url)
        # Run All is done when the last code cell shows its execution count instead of [*].
        last_prompt = page.locator(".jp-CodeCell .jp-InputPrompt").last
        deadline = time.monotonic() + 180
        while not re.fullmatch(r"\[\d+\]:", last_prompt.inner_text().strip()):
            assert time.monotonic() < deadline, "Run All did not finish in 180 s"
            page.wait_for_timeout(500)
        outputs = page.locator(".jp-CodeCell").last.locator(".jp-OutputArea").inner_text()
        assert "continued by: assistant_prefix" in outputs  # the resumed answer, after the asserts
        assert page.locator(".nb-hitl-chat .nb-hitl-interrupted").count() >= 1
        errors = page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
        )
        texts = [errors.nth(i).inner_text() for i in range(errors.count())]
        assert not [t for t in texts if "Error" in t or "Traceback" in t], texts
        page.screenshot(path=str(artifacts / "walkthrough-01-run-all.png"), full_page=False)
    finally:
        page.close()
        lab.shutdown_kernels()
