"""Walkthrough 05 (approvals and sessions) executes in a real kernel and its asserts hold."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from walkthrough_run import NOTEBOOKS, outputs_text, run_walkthrough

import nb_hitl

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = NOTEBOOKS / "05_approvals_and_sessions.ipynb"


@pytest.mark.notebook
def test_notebook_05_runs_offline_and_backs_its_claims(
    walkthrough_kernel: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for var in ("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    asserts = sum(c.source.count("assert ") for c in nb.cells if c.cell_type == "code")
    assert asserts >= 20  # the walkthrough checks what it teaches
    nb = run_walkthrough(NOTEBOOK.name, walkthrough_kernel, tmp_path)  # the session file there
    text = outputs_text(nb)
    assert "waiting for you" in text
    assert "refused: The edited arguments are not valid JSON" in text
    assert "late decision refused:" in text and "closed by an interrupt" in text
    assert "1 call(s) wait for you: ['inv_ann']" in text
    assert "Invited Ann; Bob is on holiday" in text
    assert "future.json: " in text and "newer nb_hitl, 9.0.0 (session schema 99)" in text
    assert f"this nb_hitl ({nb_hitl.__version__})" in text
    assert "broken.json: " in text and "corrupted" in text
    assert "missing.json: No session file" in text
    assert "allow `send_email` with to matching '*@example.com' for this session" in text
    assert "denied by policy: rule: deny `delete_files`" in text
    assert "refused rule: The rule for tool 'send_mail' can match nothing" in text
    assert 'the model received: {"Which day suits you?": "Friday"' in text
    assert "suggested rule: allow `send_email` with any arguments for this session" in text
    assert "approved at" in text and "second decision refused:" in text
    assert "already decided: approved at" in text


def run_cell(kc: Any, code: str, timeout: float = 120) -> str:
    """Run one cell in the kernel; its printed output, or AssertionError with the traceback."""
    out: list[str] = []
    errors: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))

    kc.execute_interactive(code, timeout=timeout, output_hook=hook, allow_stdin=False)
    assert not errors, f"cell failed:\n{code}\n{errors[0]}"
    return "".join(out)


@pytest.mark.notebook
@pytest.mark.timeout(300)
def test_restart_section_works_as_written_with_a_real_kernel_restart(
    walkthrough_kernel: str, tmp_path: Path
) -> None:
    """Run up to the save, restart the kernel, then do exactly what the prose says."""
    from jupyter_client.manager import KernelManager

    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    prose = next(i for i, c in enumerate(nb.cells) if "Restart the kernel now" in c.source)
    assert "run the first code cell" in nb.cells[prose].source
    assert "the two cells below" in nb.cells[prose].source
    before = [i for i in code if i < prose]
    after = [i for i in code if i > prose][:2]
    km = KernelManager(kernel_name=walkthrough_kernel)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    km.start_kernel(cwd=str(tmp_path), env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        where = run_cell(kc, "import nb_hitl\nprint(nb_hitl.__file__)").strip()
        assert Path(where).is_relative_to(REPO), where  # this checkout (conftest's PYTHONPATH)
        for i in before:
            run_cell(kc, nb.cells[i].source)
        assert (tmp_path / "nb_hitl_session_lunch.json").exists()
        km.restart_kernel(now=True)
        kc.wait_for_ready(timeout=60)
        gone = run_cell(kc, "try:\n    agent\nexcept NameError:\n    print('no agent')")
        assert gone == "no agent\n"  # the restart really wiped the kernel
        out = "".join(run_cell(kc, nb.cells[i].source) for i in [code[0], *after])
        assert "1 call(s) wait for you: ['inv_ann']" in out
        assert "Invited Ann; Bob is on holiday" in out
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
