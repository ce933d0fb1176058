"""docs/permissions.md's pattern table says what rules match: each row is checked here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nb_hitl.agent.approvals._match import ArgPattern, Specifier

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "permissions.md").read_text("utf-8")
ROW = re.compile(r"^\| (text|path|command) \| `(.+?)` \| `(.+?)` \| (yes|no) \|$", re.M)
ROWS = [(w, p, a.replace("\\|", "|"), m == "yes") for w, p, a, m in ROW.findall(DOCS)]


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
