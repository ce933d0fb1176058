"""Random rule sets, modes and decisions: no forbidden call runs, no saved rule is lost, and every
tool call is answered exactly once in memory."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nb_hitl.agent import PermissionPolicy, PermissionRule, ReActAgent, permissions_file
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit, tool_kind

PATHS = ["notes/a", "notes/sub/b", "notes/../secret/k", "./notes//c", "secret/k", "x"]
QUERIES = ["SELECT 1", "DROP TABLE t", "select 2", "x; DROP t", "UPDATE t"]
ARG_PATTERNS = {
    "touch_note": ("path", ["notes/*", "notes/**", "secret/**", "secret/*", "re:^notes", "*"]),
    "run_sql": ("query", ["re:^SELECT\\b", "re:DROP", "re:(?i)^select", "*", "UPDATE*"]),
}
MODES = ["ask", "allow_reads", "accept_edits", "plan", "allow_all", "dont_ask", "deny_all"]

rules = st.lists(
    st.tuples(
        st.sampled_from(["allow", "deny", "ask"]),
        st.sampled_from(sorted(ARG_PATTERNS)),
        st.integers(0, 4),
        st.sampled_from(["session", "always"]),
    ),
    min_size=1,
    max_size=6,
)
calls = st.lists(
    st.lists(
        st.one_of(
            st.tuples(st.just("touch_note"), st.sampled_from(PATHS)),
            st.tuples(st.just("run_sql"), st.sampled_from(QUERIES)),
        ),
        min_size=1,
        max_size=3,
    ),
    min_size=1,
    max_size=3,
)
DECISIONS = [
    "approve",
    "deny",
    "approve_session",
    "deny_session",
    "approve_always",
    "edit",
    "approve_typed",
]
"""``approve_typed``: the suggestion's text form read back (the card's rule box), saved."""


def build(ran: list[tuple[str, str]], turns: list[list[tuple[str, str]]], mode: str) -> ReActAgent:
    toolkit = Toolkit()

    @tool_kind("edits")
    def touch_note(path: str) -> str:
        """Touch a note.

        Args:
            path: which.
        """
        ran.append(("touch_note", path))
        return "ok"

    @tool_kind("reads")
    def run_sql(query: str) -> str:
        """Run SQL.

        Args:
            query: the statement.
        """
        ran.append(("run_sql", query))
        return "ok"

    toolkit.register_tool_function(touch_note, needs_approval=True)
    toolkit.register_tool_function(run_sql)
    script: list[Any] = [
        ScriptedTurn(
            tool_calls=[
                ScriptedToolCall(name, {ARG_PATTERNS[name][0]: value}, id=f"c{t}_{i}")
                for i, (name, value) in enumerate(turn)
            ]
        )
        for t, turn in enumerate(turns)
    ]
    script.append("Done.")
    policy = PermissionPolicy(mode, project_rules=False)  # type: ignore[arg-type]
    return ReActAgent("F", "T.", ScriptedModel(script, tokens_per_second=1e6), toolkit=toolkit,
                      permissions=policy)  # fmt: skip


async def drive(agent: ReActAgent, data: st.DataObject) -> None:
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 10
    while loop.time() < give_up:
        if task.done():
            break
        pending = agent.pending_approvals
        if not pending:
            await asyncio.sleep(0.0005)
            continue
        p = pending[0]
        word = data.draw(st.sampled_from(DECISIONS))
        if word == "edit":
            arg = ARG_PATTERNS[p.tool_name][0]
            value = data.draw(st.sampled_from(PATHS if arg == "path" else QUERIES))
            try:
                agent.decide(p.call_id, "edit", arguments={arg: value})
            except ApprovalError:  # an edit a deny rule refuses: decided otherwise
                agent.decide(p.call_id, "deny")
        elif word == "approve_typed":
            assert p.suggestion is not None and p.suggestion.written is not None
            typed = PermissionRule.parse(p.suggestion.written, scope="session")
            agent.decide(p.call_id, "approve", rule=typed)
        elif word.endswith("_session") or word.endswith("_always"):
            kind, scope = word.split("_")
            agent.decide(p.call_id, kind, rule=scope)  # type: ignore[arg-type]
        else:
            agent.decide(p.call_id, word)  # type: ignore[arg-type]
    assert task.done(), f"the reply never finished: {agent.reply_state}, {agent.approvals.state}"
    await task


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rules=rules, turns=calls, mode=st.sampled_from(MODES), data=st.data())
def test_random_policies_never_run_a_forbidden_call_and_lose_no_rule(
    rules: list[tuple[str, str, int, str]],
    turns: list[list[tuple[str, str]]],
    mode: str,
    data: st.DataObject,
) -> None:
    before = os.environ.get("NB_HITL_CONFIG_DIR")
    with tempfile.TemporaryDirectory() as config:
        os.environ["NB_HITL_CONFIG_DIR"] = config
        try:
            check(rules, turns, mode, data)
        finally:
            if before is None:
                os.environ.pop("NB_HITL_CONFIG_DIR", None)
            else:
                os.environ["NB_HITL_CONFIG_DIR"] = before


def check(
    rules: list[tuple[str, str, int, str]],
    turns: list[list[tuple[str, str]]],
    mode: str,
    data: st.DataObject,
) -> None:
    ran: list[tuple[str, str]] = []
    agent = build(ran, turns, mode)
    made = []
    for behavior, tool, index, scope in rules:
        arg, patterns = ARG_PATTERNS[tool]
        rule = PermissionRule(behavior, tool, {arg: patterns[index]}, scope=scope)  # type: ignore[arg-type]
        made.append(agent.permissions.add(rule))
    denies = [r for r in made if r.behavior == "deny"]
    saved_before = {r.id for r in made if r.scope == "always"}

    asyncio.run(drive(agent, data))

    tools = agent.toolkit.tools
    for name, value in ran:
        args = {ARG_PATTERNS[name][0]: value}
        assert mode != "deny_all", f"{name}({value}) ran in deny_all"
        assert not (mode == "plan" and not tools[name].read_only), f"{name} ran in plan mode"
        for rule in denies:
            assert not rule.matches(name, args, tools[name]), f"{rule.describe()} let {value}"
    saved = json.loads(permissions_file().read_text("utf-8"))["rules"] if saved_before else []
    assert saved_before <= {r["id"] for r in saved}, "a saved rule was lost"
    assert_history_valid(agent.memory.messages)
    uses = [b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_use")]
    answers = [b.id for m in agent.memory.messages for b in m.get_content_blocks("tool_result")]
    assert sorted(uses) == sorted(answers) and len(set(answers)) == len(answers)
