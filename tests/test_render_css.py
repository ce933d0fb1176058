"""The kernel's stylesheet is a real CSS file (nb_hitl/_render/widgets.css), read at import.

``nb_hitl._render.CSS`` and the parts other modules use (``CARD_RULES``, ``QUESTION_RULES``,
``FILLED_RULES``) come from it; the badge, button and speaker rules in it still follow
``_theme.py``'s lists; the wheel carries it (pyproject's artifacts); a fresh interpreter that
imports the package gets the same stylesheet. ``npm run lint`` (js/) lints the file with biome.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

from nb_hitl._render import CARD_CSS, CSS, QUESTION_RULES, _css
from nb_hitl._render._theme import variables

ROOT = Path(__file__).resolve().parents[1]


def test_the_stylesheet_is_the_css_file_with_the_themes_variables_first() -> None:
    text = _css.STYLESHEET.read_text(encoding="utf-8")
    assert _css.STYLESHEET == ROOT / "nb_hitl" / "_render" / "widgets.css"
    assert CSS == "\n<style>\n" + variables() + _css.FILLED_RULES + "</style>\n"
    assert CARD_CSS == f"<style>{_css.CARD_RULES}</style>"
    for part in (_css.CARD_RULES, QUESTION_RULES):
        assert part.strip() and part in text and part in CSS
    assert "/* @" not in CSS  # the file's section marks are not sent
    assert "Marked sections" not in CSS  # nor its header comment
    assert "<" not in _css.FILLED_RULES  # a stylesheet, nothing that closes the <style>


def test_the_generated_rules_in_the_file_follow_the_themes_lists() -> None:
    for made in (_css._badges(), _css._buttons(), _css._speakers()):
        assert made in _css.FILLED_RULES
    assert _css.RULES.count("@BADGES@") == _css.RULES.count("@SPEAKERS@") == 1
    assert _css.RULES.count("@BUTTONS@") == _css.RULES.count("@CARDS@") == 1


def test_the_wheel_carries_the_file() -> None:
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    wheel = project.split("[tool.hatch.build.targets.wheel]", 1)[1].split("\n[", 1)[0]
    globs = re.findall(r'"([^"]+)"', wheel.split("artifacts", 1)[1])
    name = "nb_hitl/_render/widgets.css"
    assert any(fnmatch.fnmatch(name, g) for g in globs), globs
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", name], cwd=ROOT, capture_output=True, text=True
    )
    assert tracked.returncode == 0, "widgets.css must be committed"


def test_a_fresh_interpreter_reads_the_same_stylesheet() -> None:
    code = "import sys, nb_hitl._render as r; sys.stdout.write(r.CSS)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == CSS
