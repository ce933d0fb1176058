"""Every notebook test's kernels import nb_hitl from this checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _kernel_imports_this_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels import nb_hitl from this checkout, not wherever the shared editable install
    points (kernels are new processes: only PYTHONPATH puts the checkout first for them)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get(
        "PYTHONPATH")])))  # fmt: skip
