"""Run AgentScope's own unit tests against nb_hitl, with only the package name changed.

This measures the README's claim that AgentScope 1.x code ports by the rename alone, the way a
user would check it: take AgentScope's tests for the modules nb_hitl claims, replace
``agentscope`` by ``nb_hitl`` in the imports and in ``patch()`` targets (nothing else), run them
with this interpreter's pytest against this checkout's ``nb_hitl``, and count.

    python scripts/agentscope_tests.py /path/to/agentscope            # a clone or a git dir
    python scripts/agentscope_tests.py /path/to/agentscope --tag v1.0.21 -v

The checkout is read at run time (a work tree's ``tests/``, or ``git archive TAG tests`` of a
git directory) into a temporary folder; nothing of AgentScope's is copied into this repository.
CI has no AgentScope checkout, so this is a developer tool; ``tests/agentscope_compat/`` holds
nb_hitl's own tests in AgentScope's calling style, which CI runs.

A test is set apart, not counted, when it needs the network or an SDK nb_hitl does not use
(its failure is a missing module other than nb_hitl's, or a connection/DNS error) or when it
skips itself. The last line is ``passed: P passed, F failed, S skipped`` over the counted
tests, preceded by the percentage.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# AgentScope's test files for the modules nb_hitl claims (README, "Coming from AgentScope 1.x").
# Not claimed: PlanNotebook, RAG, MCP, A2A, TTS,
# realtime, tracing, evaluation, tuner, embeddings, long-term memories and the other providers'
# models and formatters (Anthropic, Gemini, Ollama, DeepSeek, OpenAI Responses).
CLAIMED = [
    "formatter_dashscope_test.py",
    "formatter_openai_test.py",
    "hook_test.py",
    "memory_compression_test.py",
    "memory_test.py",
    "model_dashscope_test.py",
    "model_openai_test.py",
    "pipeline_test.py",
    "react_agent_test.py",
    "session_test.py",
    "token_char_test.py",
    "token_openai_test.py",
    "tool_test.py",
    "toolkit_async_execution_test.py",
    "toolkit_basic_test.py",
    "toolkit_meta_tool_test.py",
    "toolkit_middleware_test.py",
    "user_input_test.py",
]

_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)agentscope\b", re.MULTILINE)
_TARGET = re.compile(r"""(["'])agentscope\.""")
_MISSING = re.compile(r"No module named '([\w.]+)'")
_NETWORK = re.compile(
    r"APIConnectionError|ConnectError|ConnectionRefusedError|Connection refused|"
    r"Temporary failure in name resolution|Name or service not known|getaddrinfo|"
    r"nodename nor servname|Network is unreachable",
)
# Packages nb_hitl (or its test extras) uses: a test failing for want of one of them counts.
USED = {"nb_hitl", "openai", "dashscope", "sqlalchemy", "aiosqlite", "asyncpg", "redis"}
USED |= {"fakeredis", "tiktoken", "pydantic", "shortuuid", "greenlet"}
# Tests that need an SDK nb_hitl does not use even in AgentScope's own run (they mock it).
FOREIGN = {
    "session_test.py::TablestoreSessionTest": "needs the tablestore SDK (TablestoreSession)",
}


def rename(source: str) -> str:
    """AgentScope's test source with only the package name changed."""
    return _TARGET.sub(r"\1nb_hitl.", _IMPORT.sub(r"\1nb_hitl", source))


def read_tests(checkout: Path, tag: str | None, dest: Path) -> list[str]:
    """Put the claimed test files (renamed) and their data files into ``dest``."""
    git_dir = checkout if (checkout / "HEAD").is_file() else checkout / ".git"
    if tag is not None or not (checkout / "tests").is_dir():
        if not git_dir.exists():
            sys.exit(f"{checkout} is neither an AgentScope work tree nor a git directory")
        ref = tag or "HEAD"
        archive = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", ref, "tests"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    else:
        shutil.copytree(checkout / "tests", dest / "tests")
    tests = dest / "tests"
    found = []
    for name in CLAIMED:
        path = tests / name
        if not path.is_file():
            print(f"warning: {name} is not in this checkout", file=sys.stderr)
            continue
        path.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
        found.append(name)
    for path in tests.glob("*_test.py"):
        if path.name not in found:
            path.unlink()
    return found


def static_test_count(path: Path) -> dict[str, int]:
    """How many tests each class of a file defines (for a file whose collection failed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def methods(cls: ast.ClassDef) -> set[str]:
        own = {
            n.name
            for n in cls.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")
        }
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                own |= methods(classes[base.id])
        return own

    counts = {c.name: len(methods(c)) for c in classes.values() if "Test" in c.name}
    counts[""] = sum(
        1
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")
    )
    return counts


@dataclass
class FileResult:
    """Outcomes of one test file."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)
    set_apart: list[tuple[str, str]] = field(default_factory=list)


def classify(text: str) -> str | None:
    """Why a failure is set apart (an SDK nb_hitl does not use), or None when it counts.

    A connection error counts as a failure: AgentScope's own tests reach no host (they replace
    ``model.client`` or patch the SDK), so one that tries is one whose stand-in was ignored.
    """
    for module in _MISSING.findall(text):
        top = module.split(".")[0]
        if top not in USED:
            return f"needs the {top} SDK"
    return None


def note(text: str) -> str:
    """The failure's line, marked when it tried to reach the network."""
    line = first_line(text)
    return f"{line} (tried the network)" if _NETWORK.search(text) else line


def first_line(text: str) -> str:
    """The error's own line (the last 'E   ' line of pytest's report, else the message)."""
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    return (lines[-1] if lines else text.strip().splitlines()[-1] if text.strip() else "")[:200]


def run(tests_dir: Path, files: list[str], timeout: int) -> dict[str, FileResult]:
    """Run pytest on the renamed files and read its JUnit report."""
    report = tests_dir / "report.xml"
    (tests_dir / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("NB_HITL_DISABLE_CONSOLE_OUTPUT", "true")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(tests_dir / "pytest.ini"),
        "--rootdir",
        str(tests_dir),
        "-p",
        "no:cacheprovider",
        f"--timeout={timeout}",
        "-q",
        "--continue-on-collection-errors",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "--tb=short",
        f"--junitxml={report}",
        *files,
    ]
    subprocess.run(cmd, cwd=tests_dir, env=env, stdout=subprocess.DEVNULL, check=False)
    results: dict[str, FileResult] = {name: FileResult() for name in files}
    if not report.exists():
        sys.exit("pytest wrote no report")
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        # A collection error has no class: its name is the file's.
        module = (classname or case.get("name", "")).split(".")[0] + ".py"
        result = results.setdefault(module, FileResult())
        test_id = f"{classname.split('.', 1)[-1]}::{case.get('name')}"
        foreign = FOREIGN.get(f"{module}::{test_id.split('::')[0]}")
        if foreign:
            result.counts["set apart"] += 1
            result.set_apart.append((test_id, foreign))
            continue
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        skipped = case.find("skipped")
        if problem is not None:
            text = (problem.get("message") or "") + "\n" + (problem.text or "")
            reason = classify(text)
            if not classname:
                # The file did not import: every test in it failed.
                n = 0
                for cls, count in static_test_count(tests_dir / module).items():
                    why = FOREIGN.get(f"{module}::{cls}")
                    if why:
                        result.counts["set apart"] += count
                        result.set_apart.append((f"{cls} ({count} tests)", why))
                    else:
                        n += count
                key = "set apart" if reason else "failed"
                result.counts[key] += n
                target = result.set_apart if reason else result.failures
                target.append((f"{module} (all {n} tests: import failed)", reason or note(text)))
                continue
            if reason:
                result.counts["set apart"] += 1
                result.set_apart.append((test_id, reason))
            else:
                result.counts["failed"] += 1
                result.failures.append((test_id, note(text)))
        elif skipped is not None:
            result.counts["skipped"] += 1
            result.set_apart.append((test_id, "skipped: " + (skipped.get("message") or "")[:150]))
        else:
            result.counts["passed"] += 1
    return results


def main() -> None:
    """Parse the arguments, run the tests, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="an AgentScope clone or git directory")
    parser.add_argument("--tag", default=None, help="read the tests at this tag (git archive)")
    parser.add_argument("--timeout", type=int, default=120, help="per-test timeout, seconds")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failure")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="agentscope-tests-"))
    try:
        files = read_tests(args.checkout.resolve(), args.tag, tmp)
        results = run(tmp / "tests", files, args.timeout)
        total: Counter[str] = Counter()
        width = max(len(f) for f in files)
        for name in files:
            r = results[name]
            total.update(r.counts)
            print(
                f"{name:<{width}}  {r.counts['passed']:3d} passed  {r.counts['failed']:3d} failed"
                f"  {r.counts['skipped']:3d} skipped  {r.counts['set apart']:3d} network/SDK"
            )
            if args.verbose:
                for test_id, why in r.failures:
                    print(f"    FAILED {test_id}: {why}")
                for test_id, why in r.set_apart:
                    print(f"    apart  {test_id}: {why}")
        counted = total["passed"] + total["failed"]
        share = 100.0 * total["passed"] / counted if counted else 0.0
        print(
            f"set apart: {total['set apart']} need the network or an SDK nb_hitl does not use, "
            f"{total['skipped']} skip themselves"
        )
        print(f"{share:.1f}% of the {counted} counted tests pass")
        passed, failed, skipped = total["passed"], total["failed"], total["skipped"]
        print(f"total: {passed} passed, {failed} failed, {skipped} skipped")
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
