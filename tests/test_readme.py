"""The README is true: its two commands are what CI runs, and its quick start executes."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def two_commands() -> list[str]:
    section = README.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if line.startswith("    ")]


def test_readme_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    walkthrough, test = two_commands()
    assert walkthrough == "bash scripts/walkthrough"
    assert test == "bash scripts/test"
    ci_lines = [
        line.strip()
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert ci_lines[-1] == f"exec {test}"
    script = (ROOT / "scripts/walkthrough").read_text()
    # It opens a working copy of notebooks/ (tests/test_walkthrough_script.py runs it).
    assert "FIRST=01_interrupt_and_resume.ipynb" in script and "for nb in notebooks/*" in script
    assert re.search(r'jupyter"? lab "\$FIRST"', script)
    assert (ROOT / "notebooks/01_interrupt_and_resume.ipynb").exists()
    test_script = (ROOT / "scripts/test").read_text()
    assert "-m pytest" in test_script and "exit $rc" in test_script


def test_readme_screenshot_exists() -> None:
    image = re.search(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert image is not None
    assert (ROOT / image.group(1)).is_file()


@pytest.mark.notebook
def test_quick_start_block_executes_in_a_kernel() -> None:
    block = README.split("## Quick start", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) <= 20
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(block)])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # show(agent) displayed the panel widget
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
