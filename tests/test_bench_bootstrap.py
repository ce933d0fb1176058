"""``python bench/X.py`` imports the nb_hitl of the checkout it is in (no ``PYTHONPATH=.``).

Every bench script imports ``bench/_bootstrap.py`` before nb_hitl or a test helper; it puts
the checkout's root first on ``sys.path``, ahead of whatever nb_hitl is installed (an editable
install of another worktree, a released wheel).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
LOCAL = {"nb_hitl", "_stats", "_page_timing", "_agui_agent", "lab_server", "marimo_server",
         "kernel_harness", "llama_server"}  # fmt: skip


def _imported(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module.split(".")[0]]
    return []


def test_every_bench_script_imports_the_bootstrap_before_nb_hitl_or_a_helper() -> None:
    scripts = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))  # not helpers
    assert len(scripts) > 10
    for script in scripts:
        names = [n for node in ast.parse(script.read_text()).body for n in _imported(node)]
        local = [i for i, n in enumerate(names) if n in LOCAL]
        if not local:
            continue
        assert "_bootstrap" in names, f"{script.name} does not import _bootstrap"
        assert names.index("_bootstrap") < local[0], f"{script.name}: _bootstrap comes too late"


def test_the_bootstrap_puts_this_checkout_first(tmp_path: Path) -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(BENCH)!r}); "  # as `python bench/X.py` does
        "import _bootstrap, nb_hitl; print(nb_hitl.__file__); print(sys.path[0])"
    )
    env = {"PATH": "/usr/bin:/bin", "NB_HITL_DISABLE_CONSOLE_OUTPUT": "true"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path, env=env)  # fmt: skip
    module, first = out.stdout.split()
    assert Path(module) == ROOT / "nb_hitl" / "__init__.py"
    assert Path(first) == ROOT


def test_import_time_src_times_the_tree_given_not_the_one_it_runs_from(tmp_path: Path) -> None:
    # Started from this checkout's root (``''`` first on a child's ``sys.path``), ``--src DIR``
    # must still time DIR's nb_hitl: here a stand-in package with the two names imported.
    package = tmp_path / "other" / "nb_hitl"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("ReActAgent = Msg = None\n")
    script = str(BENCH / "import_time.py")
    out = subprocess.run(
        [sys.executable, script, "--runs", "1", "--src", str(package.parent)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    first = out.stdout.splitlines()[0]
    assert first.startswith(f"nb_hitl from {package / '__init__.py'};"), first
