"""Walkthrough 05 (approvals and sessions) executes in a real kernel and its asserts hold."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_approvals_and_sessions.ipynb"


def outputs_text(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.notebook
def test_notebook_05_runs_offline_and_backs_its_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    asserts = sum(c.source.count("assert ") for c in nb.cells if c.cell_type == "code")
    assert asserts >= 20  # the walkthrough checks what it teaches
    client = NotebookClient(
        nb,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors
    text = outputs_text(nb)
    assert "waiting for you" in text
    assert "refused: The edited arguments are not valid JSON" in text
    assert "late decision refused:" in text and "closed by an interrupt" in text
    assert "1 call(s) wait for you: ['inv_ann']" in text
    assert "Invited Ann; Bob is on holiday" in text
    assert "future.json: " in text and "newer nb_hitl" in text
    assert "broken.json: " in text and "corrupted" in text
    assert "missing.json: No session file" in text
