"""Execute the teaching walkthroughs top to bottom in a real kernel (nbclient + ipykernel).

Each walkthrough backs its claims with ``assert`` cells, so executing it tests what it teaches.
The kernels run in the environment ``scripts/walkthrough`` builds (conftest.py), not the test
environment: a walkthrough that needs something the README's setup does not install fails.
After Run All, each notebook's panels are used once more as a reader would (send, Stop,
Continue, Next round) and must answer. Outputs must be stripped in the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from walkthrough_run import NOTEBOOKS, READER, outputs_text, run_walkthrough


def test_every_walkthrough_has_a_reader_run() -> None:
    assert sorted(READER) == sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.notebook
@pytest.mark.parametrize(
    "name",
    [
        "01_interrupt_and_resume.ipynb",
        "02_tools_and_human_input.ipynb",
        "03_compression_explorer.ipynb",
        "06_multi_agent.ipynb",
        "07_remote_agents.ipynb",
    ],
)
def test_walkthrough_runs_in_the_walkthrough_environment_and_answers_after(
    name: str, walkthrough_kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)  # walkthroughs need no key
    run_walkthrough(name, walkthrough_kernel, NOTEBOOKS)


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name
    first = nb.cells[0].source
    assert "What you will learn" in first or "what you will learn" in first.lower()


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_no_walkthrough_cuts_the_messages_it_shows(path: Path) -> None:
    """05 printed `str(exc)[:40]`: the reader saw half of what the refusal said."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            assert not re.search(r"str\((exc|e|error)\)\[:\d+\]", cell.source), cell.source


@pytest.mark.notebook
def test_walkthrough_04_runs_offline_on_its_demo_server(
    walkthrough_kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    for var in ("NB_HITL_OLLAMA_BASE_URL", "NB_HITL_LLAMA_BASE_URL"):
        monkeypatch.setenv(var, "http://127.0.0.1:9/v1")  # nothing listens there
    nb = run_walkthrough("04_real_models.ipynb", walkthrough_kernel, NOTEBOOKS)
    text = outputs_text(nb)
    assert "openai package is missing" not in text and "pip install" not in text
    assert "Could not connect" in text or "127.0.0.1:9" in text, text  # the no-server part ran
    # The demo server on 127.0.0.1 makes the rest real: a stream, an interrupt the server saw,
    # a resumed answer, and a model error in the panel.
    assert "the server stopped after" in text and "client disconnected: True" in text, text
    assert "Skipped: no model is configured" not in text, text
    assert "error · ModelStreamError" in text, text


def test_the_walkthrough_environment_has_what_every_walkthrough_imports() -> None:
    """`scripts/walkthrough` installs `.[notebook]`: it must cover every notebook's imports."""
    import ast
    import importlib.metadata
    import re
    import sys

    tomllib = pytest.importorskip("tomllib")

    project = tomllib.loads((NOTEBOOKS.parent / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["notebook"]
    provided = {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs}
    dists = importlib.metadata.packages_distributions()
    needed: set[str] = set()
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code" or cell.source.lstrip().startswith("%%"):
                continue  # a cell magic's body is not Python (e.g. %%ask's message)
            source = "\n".join(
                line for line in cell.source.splitlines() if not line.lstrip().startswith("%")
            )
            flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            tree = compile(source, path.name, "exec", flags=flags)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    needed.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    needed.add(node.module.split(".")[0])
            needed.update(re.findall(r"find_spec\(\"(\w+)\"\)", source))
    third_party = {m for m in needed if m not in sys.stdlib_module_names and m != "nb_hitl"}
    assert "openai" in third_party  # walkthrough 04 looks for it
    for module in sorted(third_party):
        names = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
        assert names & provided, f"{module} is not in the walkthrough environment ({reqs})"
