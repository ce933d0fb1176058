"""Issue 33's five holes: each test failed on the code before the fix (commit 2e49fdb).

1. argument regexes search (anchored only by ``^``/``$``); 2. path patterns are normalised and
``*`` stays in one segment; 3. an unreadable ``permissions.json`` is never overwritten, and
writes merge with another writer's; 4. a decision that cannot be applied whole changes nothing;
5. ``deny_all`` is a hard stop.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import PermissionPolicy, ReActAgent, permissions_file
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit


class Notes:
    """``run_sql(query)`` and ``touch_note(path)``, with a record of what really ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        def run_sql(query: str) -> str:
            """Run SQL.

            Args:
                query: the statement.
            """
            self.ran.append(f"sql {query}")
            return "ok"

        def touch_note(path: str) -> str:
            """Touch a note.

            Args:
                path: which.
            """
            self.ran.append(f"touch {path}")
            return "touched"

        toolkit.register_tool_function(run_sql, needs_approval=True)
        toolkit.register_tool_function(touch_note, needs_approval=True)
        return toolkit


def agent_with(notes: Notes, script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "Test.", model, toolkit=notes.toolkit(), **kwargs)


def use(name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id="c1", name=name, input=args)


def touch_turn(path: str, call_id: str = "t1") -> ScriptedTurn:
    return ScriptedTurn(tool_calls=[ScriptedToolCall("touch_note", {"path": path}, id=call_id)])


# -- 1: a deny rule written as the doc shows denies ------------------------------------------
def test_an_anchored_regex_matches_the_start_of_the_text_not_the_whole_text() -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.allow("run_sql", {"query": "re:^SELECT\\b"})
    agent.permissions.deny("run_sql", {"query": "re:^DROP\\b"})
    verdict = agent.permission_verdict
    assert verdict(use("run_sql", query="SELECT * FROM notes")).behavior == "allow"
    assert verdict(use("run_sql", query="DROP TABLE notes")).behavior == "deny"
    assert verdict(use("run_sql", query="SELECTED")).behavior == "ask"  # \b holds


def test_an_unanchored_regex_searches_and_dollar_anchors_the_end() -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.deny("run_sql", {"query": "re:(?i)delete"})
    agent.permissions.allow("run_sql", {"query": "re:^SELECT 1$"})
    verdict = agent.permission_verdict
    assert verdict(use("run_sql", query="WITH x AS (DELETE FROM t) SELECT 1")).behavior == "deny"
    assert verdict(use("run_sql", query="SELECT 1")).behavior == "allow"
    assert verdict(use("run_sql", query="SELECT 1; SELECT 2")).behavior == "ask"


# -- 2: path patterns mean what they say -----------------------------------------------------
@pytest.mark.parametrize(
    ("path", "behavior"),
    [
        ("notes/a.txt", "allow"),
        ("notes/../secret/key", "ask"),  # normalised to secret/key
        ("notes/sub/deep.txt", "ask"),  # * stays within one segment
        ("./notes//b.txt", "allow"),  # . and repeated / are normalised away
        ("notes/./c.txt", "allow"),
    ],
)
def test_a_star_stays_in_one_segment_of_a_normalised_path(path: str, behavior: str) -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.allow("touch_note", {"path": "notes/*"})
    assert agent.permission_verdict(use("touch_note", path=path)).behavior == behavior


def test_a_double_star_crosses_segments_but_never_climbs_out() -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.allow("touch_note", {"path": "notes/**"})
    agent.permissions.deny("touch_note", {"path": "secret/**"})
    verdict = agent.permission_verdict
    assert verdict(use("touch_note", path="notes/sub/deep.txt")).behavior == "allow"
    assert verdict(use("touch_note", path="notes/../secret/key")).behavior == "deny"
    assert verdict(use("touch_note", path="notes/../../etc/passwd")).behavior == "ask"


def test_a_symlink_is_resolved_when_the_tool_says_the_argument_is_a_path(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key").write_text("k", encoding="utf-8")
    (tmp_path / "notes" / "link").symlink_to(tmp_path / "secret" / "key")
    toolkit = Toolkit()

    def read_note(path: str) -> str:
        """Read a note.

        Args:
            path: which.
        """
        return path

    toolkit.register_tool_function(read_note, path_args=["path"])
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit)
    agent.permissions.allow("read_note", {"path": f"{tmp_path}/notes/**"})
    agent.permissions.deny("read_note", {"path": f"{tmp_path}/secret/**"})
    verdict = agent.permission_verdict
    assert verdict(use("read_note", path=f"{tmp_path}/notes/link")).behavior == "deny"


def test_a_relative_path_is_resolved_in_the_working_directory_of_the_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The working directory's real path is kept between verdicts (bench/decide_latency.py):
    # a change of directory, or a link to it, must still be seen.
    for name in ("one", "two"):
        (tmp_path / name / "notes").mkdir(parents=True)
        (tmp_path / name / "secret").mkdir()
    (tmp_path / "two" / "notes" / "link").symlink_to(tmp_path / "two" / "secret")
    (tmp_path / "alias").symlink_to(tmp_path / "two")
    toolkit = Toolkit()

    def read_note(path: str) -> str:
        """Read a note.

        Args:
            path: which.
        """
        return path

    toolkit.register_tool_function(read_note, path_args=["path"])
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit)
    agent.permissions.deny("read_note", {"path": "secret/**"})
    call = use("read_note", path="notes/link/key")
    monkeypatch.chdir(tmp_path / "one")
    assert agent.permission_verdict(call).behavior == "allow"  # no link here
    monkeypatch.chdir(tmp_path / "alias")  # the same folder as two, through a link
    assert agent.permission_verdict(call).behavior == "deny"


# -- 3: the user's rules are never lost ------------------------------------------------------
async def test_approving_always_with_an_unreadable_file_leaves_it_and_its_deny_rule() -> None:
    notes = Notes()
    path = permissions_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = (
        '{"rules": [{"behavior": "deny", "tool": "touch_note", "args": {"path": "secret/*"}},]}'
    )
    path.write_text(broken, encoding="utf-8")
    agent = agent_with(notes, [touch_turn("notes/a"), "Done.", touch_turn("secret/key"), "Ok."])
    task = asyncio.create_task(agent(Msg("User", "touch", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    with pytest.raises(ApprovalError, match=r"permissions\.json"):
        agent.decide("t1", "approve", rule="always")
    assert path.read_text(encoding="utf-8") == broken
    assert [p.call_id for p in agent.pending_approvals] == ["t1"] and notes.ran == []
    agent.deny("t1", "later")
    await task
    path.write_text(broken.replace("},]", "}]"), encoding="utf-8")  # the user fixes the typo
    assert agent.permission_verdict(use("touch_note", path="secret/key")).behavior == "deny"


def test_a_rule_another_process_rewrote_within_the_same_clock_tick_is_kept() -> None:
    first = agent_with(Notes(), [])
    first.permissions.allow("run_sql", {"query": "re:^SELECT"}, scope="always")
    assert len(first.permissions.rules) == 1  # the file is read and cached now
    path = permissions_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"][0]["id"] = "elsewhere1"  # same length: the file keeps its size
    stat = path.stat()
    tmp = path.with_name("other-process.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)  # another process, within the same clock tick
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    first.permissions.allow("touch_note", {"path": "notes/*"}, scope="always")
    ids = [r["id"] for r in json.loads(path.read_text(encoding="utf-8"))["rules"]]
    assert ids[0] == "elsewhere1" and len(ids) == 2


WRITER = """
import sys
from nb_hitl import PermissionPolicy
policy = PermissionPolicy()
for i in range(12):
    policy.allow(f"tool_{sys.argv[1]}_{i}", scope="always")
"""


def test_always_rules_written_by_several_processes_at_once_are_all_kept() -> None:
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(n)], env=env) for n in range(4)]
    assert [p.wait(60) for p in procs] == [0, 0, 0, 0]
    rules = json.loads(permissions_file().read_text(encoding="utf-8"))["rules"]
    assert len(rules) == 48


# -- 4: a decision is all or nothing ---------------------------------------------------------
@pytest.mark.parametrize("broken", ["user_rules_off", "config_dir_is_a_file"])
async def test_a_decision_whose_rule_cannot_be_saved_changes_nothing(
    broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = Notes()
    kwargs: dict[str, Any] = {}
    if broken == "user_rules_off":
        kwargs["permissions"] = PermissionPolicy(user_rules=False)
    else:
        (tmp_path / "file").write_text("", encoding="utf-8")
        monkeypatch.setenv("NB_HITL_CONFIG_DIR", str(tmp_path / "file"))
    agent = agent_with(notes, [touch_turn("notes/a"), "Done."], **kwargs)
    task = asyncio.create_task(agent(Msg("User", "touch", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    with pytest.raises(ApprovalError):
        agent.decide("t1", "approve", rule="always")
    assert [p.call_id for p in agent.pending_approvals] == ["t1"]
    assert agent.approval_log == [] and agent.permissions.rules == []
    agent.decide("t1", "deny", reason="not now")
    await task
    assert notes.ran == []
    assert_history_valid(agent.memory.messages)


# -- 5: deny_all is a hard stop --------------------------------------------------------------
def test_deny_all_refuses_calls_that_rules_would_allow_or_ask_about() -> None:
    path = permissions_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rules": [{"behavior": "allow", "tool": "run_sql"}]}), "utf-8")
    agent = agent_with(Notes(), [], permissions=PermissionPolicy("deny_all"))
    agent.permissions.allow("touch_note")
    agent.permissions.ask("touch_note", {"path": "drafts/*"})
    verdict = agent.permission_verdict
    assert verdict(use("run_sql", query="SELECT 1")).behavior == "deny"
    assert verdict(use("touch_note", path="a")).behavior == "deny"
    assert verdict(use("touch_note", path="drafts/a")).behavior == "deny"


async def test_an_unattended_run_never_waits_and_runs_only_what_rules_allow() -> None:
    notes = Notes()
    script = [
        ScriptedTurn(
            tool_calls=[
                ScriptedToolCall("run_sql", {"query": "SELECT 1"}, id="s1"),
                ScriptedToolCall("touch_note", {"path": "a"}, id="t1"),
            ]
        ),
        "Done.",
    ]
    agent = agent_with(notes, script, permissions=PermissionPolicy("dont_ask"))
    agent.permissions.allow("run_sql", {"query": "re:^SELECT"})
    agent.permissions.ask("touch_note")
    reply = await asyncio.wait_for(agent(Msg("User", "go", "user")), 5)
    assert reply.get_text_content() == "Done." and notes.ran == ["sql SELECT 1"]
    assert_history_valid(agent.memory.messages)


async def test_edited_arguments_never_get_around_a_deny_rule() -> None:
    """Found while writing the property test: an edit to a denied path ran."""
    notes = Notes()
    agent = agent_with(notes, [touch_turn("notes/a"), "Done."])
    agent.permissions.deny("touch_note", {"path": "secret/**"})
    task = asyncio.create_task(agent(Msg("User", "touch", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    with pytest.raises(ApprovalError, match="edited call is refused"):
        agent.decide("t1", "edit", arguments={"path": "notes/../secret/key"})
    assert [p.call_id for p in agent.pending_approvals] == ["t1"]
    agent.decide("t1", "edit", arguments={"path": "notes/b"})
    await task
    assert notes.ran == ["touch notes/b"]
