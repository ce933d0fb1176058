"""Every notebook test's kernels run in the environment `scripts/walkthrough` builds, and import
nb_hitl from this checkout.

The walkthroughs must run from the README's setup, not from the test environment (which has
more installed: a green suite once hid that walkthrough 07 needed fastapi). So the kernels are
started with that environment's Python: `scripts/test` builds it first (a stage of its own, out
of any test's timeout); here the script is run again, which is instant when it is up to date
(and installs it otherwise). `NB_HITL_WALKTHROUGH_VENV` picks another folder.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KERNEL = "nb-hitl-walkthrough"
"""The kernel name the notebook tests use: Python from the walkthrough environment."""


def walkthrough_venv() -> Path:
    """The walkthrough environment's folder (made by `scripts/walkthrough --env-only`)."""
    venv = Path(os.environ.get("NB_HITL_WALKTHROUGH_VENV", REPO / ".venv-walkthrough"))
    return venv if venv.is_absolute() else REPO / venv


@pytest.fixture(scope="session")
def walkthrough_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The walkthrough environment's Python, built (or checked) by `scripts/walkthrough`."""
    venv = walkthrough_venv()
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{venv}.lock", "w") as lock:  # one build at a time (several test runs)
        fcntl.flock(lock, fcntl.LOCK_EX)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env["NB_HITL_VENV"] = str(venv)
        done = subprocess.run(
            ["bash", str(REPO / "scripts" / "walkthrough"), "--env-only"],
            env=env, capture_output=True, text=True, timeout=1500, check=False,
        )  # fmt: skip
    assert done.returncode == 0, f"scripts/walkthrough --env-only failed:\n{done.stderr[-3000:]}"
    yield venv / "bin" / "python"


@pytest.fixture(scope="session")
def walkthrough_kernels(walkthrough_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for JUPYTER_PATH with the kernel spec `nb-hitl-walkthrough`."""
    root = tmp_path_factory.mktemp("walkthrough-jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [str(walkthrough_python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "nb_hitl walkthroughs", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    return root


@pytest.fixture(autouse=True)
def _kernel_imports_this_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels import nb_hitl from this checkout, not wherever the shared editable install
    points (kernels are new processes: only PYTHONPATH puts the checkout first for them)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get(
        "PYTHONPATH")])))  # fmt: skip


@pytest.fixture
def walkthrough_kernel(walkthrough_kernels: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The kernel name to start (`NotebookClient(kernel_name=...)`, `KernelManager`)."""
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(filter(None, [str(walkthrough_kernels),
        os.environ.get("JUPYTER_PATH")])))  # fmt: skip
    return KERNEL
