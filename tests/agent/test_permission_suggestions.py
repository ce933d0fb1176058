"""'Allow similar': the scope words save the narrow suggested rule (they saved a rule for the
whole tool: a bug, these tests failed before the fix), a tool that always asks gets no rule,
and the rule's text form reads back as the same rule (``PermissionRule.parse`` / ``written``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nb_hitl.agent import PermissionRule, ReActAgent
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import ApprovalError, ConfigError
from nb_hitl.message import Msg, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import wait_for_event
from nb_hitl.tool import Toolkit, tool_kind


class Bench:
    """``write_file`` (a path), ``run_shell`` (a command), ``run_sql`` (a text) and ``deploy``,
    which always asks; ``ran`` records what really ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        @tool_kind("edits", path_args=["path"])
        def write_file(path: str, text: str) -> str:
            """Write a file.

            Args:
                path: which.
                text: what.
            """
            self.ran.append(f"write {path}")
            return "written"

        @tool_kind("runs")
        def run_shell(command: str) -> str:
            """Run a command.

            Args:
                command: the command line.
            """
            self.ran.append(f"run {command}")
            return "ran"

        def run_sql(query: str) -> str:
            """Run SQL.

            Args:
                query: the statement.
            """
            self.ran.append(f"sql {query}")
            return "ok"

        def deploy(target: str) -> str:
            """Deploy.

            Args:
                target: where.
            """
            self.ran.append(f"deploy {target}")
            return "deployed"

        toolkit.register_tool_function(write_file, needs_approval=True)
        toolkit.register_tool_function(run_shell, needs_approval=True)
        toolkit.register_tool_function(run_sql, needs_approval=True)
        toolkit.register_tool_function(deploy, always_ask=True)
        return toolkit


def agent_with(bench: Bench, script: list[Any]) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "Test.", model, toolkit=bench.toolkit())


def calls(*pairs: tuple[str, dict[str, Any]]) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[ScriptedToolCall(n, a, id=f"c{i}") for i, (n, a) in enumerate(pairs)]
    )


def use(name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id="x", name=name, input=args)


async def parked(agent: ReActAgent) -> asyncio.Task[Any]:
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    for _ in range(20):  # the rest of the turn's calls park too
        await asyncio.sleep(0)
    return task


@pytest.mark.parametrize("scope", ["reply", "session", "always"])
async def test_a_scope_word_saves_the_suggested_rule_not_one_for_the_whole_tool(
    scope: str, user_config_dir: Path
) -> None:
    bench = Bench()
    agent = agent_with(
        bench,
        [
            calls(
                ("write_file", {"path": "notes/a.txt", "text": "1"}),
                ("write_file", {"path": "notes/b.txt", "text": "2"}),
                ("write_file", {"path": "secret/key", "text": "3"}),
            ),
            "Done.",
        ],
    )
    task = await parked(agent)
    suggested = agent.pending_approvals[0].suggestion
    assert suggested is not None and suggested.text == "write_file(notes/*)"
    agent.decide("c0", "approve", rule=scope)  # type: ignore[arg-type]
    # the rule covered the other note, not the secret: that one still waits
    assert [p.call_id for p in agent.pending_approvals] == ["c2"]
    [rule] = [r for r in agent.permissions.rules if r.behavior == "allow"]
    assert (rule.text, rule.scope) == ("write_file(notes/*)", scope)
    if scope == "always":
        saved = json.loads((user_config_dir / "permissions.json").read_text("utf-8"))
        assert [r["tool"] for r in saved["rules"]] == ["write_file(notes/*)"]
    agent.deny("c2", "not there")
    await task
    assert bench.ran == ["write notes/a.txt", "write notes/b.txt"]


async def test_a_deny_with_a_scope_word_denies_calls_like_this_one_only() -> None:
    bench = Bench()
    agent = agent_with(
        bench,
        [
            calls(
                ("run_shell", {"command": "rm -rf build"}),
                ("run_shell", {"command": "rm -rf dist"}),
                ("run_shell", {"command": "ls"}),
            ),
            "Done.",
        ],
    )
    task = await parked(agent)
    agent.decide("c0", "deny", reason="no deleting", rule="session")
    [rule] = agent.permissions.rules
    assert (rule.behavior, rule.text) == ("deny", "run_shell(rm:*)")
    assert [p.call_id for p in agent.pending_approvals] == ["c2"]  # ls still waits
    agent.approve("c2")
    await task
    assert bench.ran == ["run ls"]


async def test_an_edited_call_gets_the_rule_that_covers_what_runs() -> None:
    bench = Bench()
    agent = agent_with(bench, [calls(("run_sql", {"query": "DROP TABLE t"})), "Done."])
    task = await parked(agent)
    agent.decide("c0", "edit", arguments={"query": "SELECT 1"}, rule="session")
    await task
    [rule] = agent.permissions.rules
    assert rule.written == "run_sql(query: re:^SELECT\\b)"
    assert bench.ran == ["sql SELECT 1"]


async def test_a_tool_that_always_asks_has_no_suggestion_and_refuses_an_allow_rule() -> None:
    bench = Bench()
    agent = agent_with(bench, [calls(("deploy", {"target": "prod"})), "Done."])
    task = await parked(agent)
    [pending] = agent.pending_approvals
    assert pending.suggestion is None
    for rule in ("session", PermissionRule("allow", "deploy")):
        with pytest.raises(ApprovalError, match="always asks"):
            agent.decide("c0", "approve", rule=rule)  # type: ignore[arg-type]
    assert agent.permissions.rules == [] and bench.ran == []  # nothing changed
    agent.decide("c0", "approve")
    await task
    assert bench.ran == ["deploy prod"]


async def test_rules_made_by_a_decision_say_they_came_from_the_session() -> None:
    bench = Bench()
    agent = agent_with(bench, [calls(("run_shell", {"command": "npm test"})), "Done."])
    agent.permissions.allow("run_sql(query: re:^SELECT\\b)")
    task = await parked(agent)
    agent.decide("c0", "approve", rule="session")
    await task
    views = agent.approvals.permissions_view()["rules"]
    assert [(v["written"], v["source"], v["source_text"]) for v in views] == [
        ("run_sql(query: re:^SELECT\\b)", "code", "in code"),
        ("run_shell(npm test:*)", "session", "this session"),
    ]


# -- the text form: parse and written ------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "tool", "specifier", "args"),
    [
        ("run_shell", "run_shell", None, {}),
        ("run_shell(npm test:*)", "run_shell", "npm test:*", {}),
        ("write_file(./notes/**)", "write_file", "./notes/**", {}),
        ("run_sql(query: re:^SELECT\\b)", "run_sql", None, {"query": "re:^SELECT\\b"}),
        ("  run_sql( query:   re:^(a|b)$ ) ", "run_sql", None, {"query": "re:^(a|b)$"}),
        ("run_shell(ls:*)", "run_shell", "ls:*", {}),
        ("search_*", "search_*", None, {}),
    ],
)
def test_the_text_form_reads_as_a_person_writes_it(
    text: str, tool: str, specifier: str | None, args: dict[str, str]
) -> None:
    rule = PermissionRule.parse(text)
    assert (rule.behavior, rule.scope) == ("allow", "session")
    assert (rule.tool, rule.specifier, dict(rule.args)) == (tool, specifier, args)
    assert PermissionRule.parse(rule.written or "").written == rule.written


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("run_shell(npm test:*", "a rule is written"),
        ("run shell", "tool"),
        ("run_shell()", "must not be empty"),
        ("run_sql(query: )", "non-empty"),
        ("run_sql(query: re:(unclosed)", "malformed"),
        ("write_file(notes/[a)", "unclosed"),
        ("<img src=x onerror=alert(1)>", "tool"),
    ],
)
def test_text_that_is_no_rule_gets_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        PermissionRule.parse(text)


def test_a_rule_the_text_form_cannot_hold_has_no_written_form() -> None:
    assert PermissionRule("allow", "run_sql", {"query": "a", "db": "b"}).written is None
    assert PermissionRule("allow", "run_sql", kind="reads").written is None
    assert PermissionRule("allow", "run_sql", when=lambda a: True).written is None
    assert PermissionRule("allow", "run_sql", {"query": " padded "}).written is None


def test_the_tool_field_takes_the_text_form_and_a_clash_is_refused() -> None:
    rule = PermissionRule("deny", "run_sql(query: re:DROP)", {"db": "main"})
    assert dict(rule.args) == {"query": "re:DROP", "db": "main"} and rule.specifier is None
    assert rule.matches("run_sql", {"query": "x; DROP t", "db": "main"})
    with pytest.raises(ConfigError, match="twice"):
        PermissionRule("deny", "run_sql(query: re:DROP)", {"query": "x"})
    saved = PermissionRule.from_dict(rule.to_dict())
    assert (saved.tool, dict(saved.args)) == ("run_sql", dict(rule.args))


names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)
tools = st.one_of(names, st.from_regex(r"[a-z_]{1,6}\*", fullmatch=True))
text_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
patterns = st.one_of(
    st.text(text_chars, min_size=1, max_size=20).filter(lambda s: s.strip() == s),
    st.from_regex(r"re:\^[A-Za-z]([A-Za-z ]{0,6}[A-Za-z])?(\\b)?", fullmatch=True),
    st.from_regex(r"(\./)?[a-z]{1,5}(/[a-z*]{1,4}){0,3}(/\*\*)?", fullmatch=True),
)
prefixes = st.from_regex(r"[a-z]{1,6}( [a-z]{1,6})?:\*", fullmatch=True)


def _valid(make: Any) -> PermissionRule | None:
    try:
        return make()
    except ConfigError:
        return None


@given(
    tool=tools,
    how=st.sampled_from(["tool", "specifier", "prefix", "arg"]),
    pattern=patterns,
    prefix=prefixes,
    name=names,
    behavior=st.sampled_from(["allow", "deny", "ask"]),
)
def test_written_then_parsed_is_the_same_rule(
    tool: str, how: str, pattern: str, prefix: str, name: str, behavior: str
) -> None:
    if how == "tool":
        rule = _valid(lambda: PermissionRule(behavior, tool))  # type: ignore[arg-type]
    elif how == "specifier":
        rule = _valid(lambda: PermissionRule(behavior, tool + "(" + pattern + ")"))  # type: ignore[arg-type]
    elif how == "prefix":
        rule = _valid(lambda: PermissionRule(behavior, f"{tool}({prefix})"))  # type: ignore[arg-type]
    else:
        rule = _valid(lambda: PermissionRule(behavior, tool, {name: pattern}))  # type: ignore[arg-type]
    if rule is None:  # a pattern that is no pattern (an unclosed '[', a bad regex)
        return
    written = rule.written
    if how in ("tool", "prefix") or (how == "arg" and pattern == pattern.strip()):
        # what the card suggests always has a text form (a pattern with spaces at its ends
        # has none: the form reads `tool(name: pattern)` with the spaces around it dropped)
        assert written is not None
    if written is None:
        return
    back = PermissionRule.parse(written, behavior=rule.behavior)
    assert (back.tool, back.specifier, dict(back.args)) == (
        rule.tool,
        rule.specifier,
        dict(rule.args),
    )
    assert back.written == written
    call = {name: pattern} if how == "arg" else {}
    assert back.matches(tool, call) == rule.matches(tool, call)


@given(text=st.text(max_size=60))
def test_any_text_typed_in_the_box_is_a_rule_or_a_config_error(text: str) -> None:
    try:
        rule = PermissionRule.parse(text)
    except ConfigError as exc:
        assert str(exc)  # a message the card shows
    else:
        assert rule.written is None or PermissionRule.parse(rule.written).written == rule.written
