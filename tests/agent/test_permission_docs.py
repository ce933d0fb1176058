"""docs/permissions.md: its pattern table says what rules match (each row is checked here), and
every code block marked ``<!-- checked ... -->`` runs as written (top-level ``await`` as in a
notebook), in a config folder of its own."""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path

import pytest

from nb_hitl.agent.approvals._match import ArgPattern, Specifier

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "permissions.md").read_text("utf-8")
ROW = re.compile(r"^\| (text|path|command) \| `(.+?)` \| `(.+?)` \| (yes|no) \|$", re.M)
ROWS = [(w, p, a.replace("\\|", "|"), m == "yes") for w, p, a, m in ROW.findall(DOCS)]
CHECKED = re.findall(r"<!-- checked[^>]*-->\n```python\n(.*?)\n```", DOCS, re.S)


def test_the_doc_has_its_pattern_table() -> None:
    assert len(ROWS) >= 20 and {r[0] for r in ROWS} == {"text", "path", "command"}


@pytest.mark.parametrize(("what", "pattern", "argument", "matches"), ROWS)
def test_each_documented_pattern_matches_as_the_doc_says(
    what: str, pattern: str, argument: str, matches: bool
) -> None:
    if what == "command":
        got = Specifier(pattern).matches(argument, is_path=False, allowing=True)
    else:
        got = ArgPattern("arg", pattern).matches(argument)
    assert got is matches


def test_the_doc_has_its_checked_examples() -> None:
    # the text form, user_rules=False, which exception, view_task, question_answered's outcome
    assert len(CHECKED) >= 5
    for name in ("PermissionRule.parse", "user_rules=False", "ApprovalError", "view_task"):
        assert any(name in block for block in CHECKED), name
    assert any("outcome" in block for block in CHECKED)


@pytest.mark.parametrize("block", CHECKED, ids=[f"block{i}" for i in range(len(CHECKED))])
def test_each_checked_example_runs_as_written(block: str, user_config_dir: Path) -> None:
    code = compile(block, "docs/permissions.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)

    async def run() -> None:
        result = eval(code, {"__name__": "docs_example"})  # the doc's own code
        if asyncio.iscoroutine(result):
            await asyncio.wait_for(result, timeout=30)

    asyncio.run(run())
