"""``python bench/X.py`` runs on the checkout it is in: every bench script imports this first.

It puts the repository root at ``sys.path[0]``, so ``import nb_hitl`` finds the nb_hitl beside
the script (a worktree's, not the one an editable install points at; no ``PYTHONPATH=.``), and
the test helpers the benches reuse (``tests/browser``: the JupyterLab and marimo servers;
``tests/kernel``: the kernel harness; ``tests/real_model``: the local model server) and
``bench/`` itself behind it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _first(path: Path) -> None:
    entry = str(path)
    while entry in sys.path:
        sys.path.remove(entry)
    sys.path.insert(0, entry)


TESTS = ROOT / "tests"
for _path in (TESTS / "real_model", TESTS / "kernel", TESTS / "browser", ROOT / "bench", ROOT):
    _first(_path)  # the root last: it ends up first
