"""What agent users expect of permissions: plan and accept-edits modes, tool kinds, tools that
insist on a person, rule specifiers, the can_use_tool callback, layered settings files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import PermissionPolicy, PermissionRule, ReActAgent
from nb_hitl.agent.approvals import Allow, Ask, Deny, ToolContext
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import ConfigError, ToolError
from nb_hitl.message import Msg, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit, tool_kind


class Workbench:
    """One tool of each kind, and a deploy tool that insists on a person."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        @tool_kind("reads", path_args=["path"])
        def read_file(path: str) -> str:
            """Read a file.

            Args:
                path: which.
            """
            self.ran.append(f"read {path}")
            return "text"

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

        def fetch_url(url: str) -> str:
            """Fetch a page.

            Args:
                url: which.
            """
            self.ran.append(f"fetch {url}")
            return "page"

        def deploy(target: str) -> str:
            """Deploy.

            Args:
                target: where.
            """
            self.ran.append(f"deploy {target}")
            return "deployed"

        toolkit.register_tool_function(read_file)
        toolkit.register_tool_function(write_file, needs_approval=True)
        toolkit.register_tool_function(run_shell, needs_approval=True)
        toolkit.register_tool_function(fetch_url, kind="network")
        toolkit.register_tool_function(deploy, always_ask=True)
        return toolkit


def agent_with(bench: Workbench, script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "Test.", model, toolkit=bench.toolkit(), **kwargs)


def use(name: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id="c1", name=name, input=args)


def one_call(name: str, **args: Any) -> ScriptedTurn:
    return ScriptedTurn(tool_calls=[ScriptedToolCall(name, args, id="c1")])


def results(agent: ReActAgent) -> dict[str, str]:
    return {
        b.id: b.output_text()
        for m in agent.memory.messages
        for b in m.get_content_blocks("tool_result")
    }


def verdicts(agent: ReActAgent) -> list[str]:
    calls = [
        use("read_file", path="a"),
        use("write_file", path="a", text="t"),
        use("run_shell", command="ls"),
        use("fetch_url", url="https://x"),
        use("deploy", target="prod"),
    ]
    return [agent.permission_verdict(c).behavior for c in calls]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("ask", ["allow", "ask", "ask", "allow", "ask"]),
        ("allow_reads", ["allow", "ask", "ask", "ask", "ask"]),
        ("accept_edits", ["allow", "allow", "ask", "allow", "ask"]),
        ("plan", ["allow", "deny", "deny", "deny", "deny"]),
        ("allow_all", ["allow", "allow", "allow", "allow", "ask"]),
        ("dont_ask", ["allow", "deny", "deny", "allow", "deny"]),
        ("deny_all", ["deny", "deny", "deny", "deny", "deny"]),
    ],
)
def test_each_mode_on_reads_edits_commands_network_and_an_insisting_tool(
    mode: str, expected: list[str]
) -> None:
    agent = agent_with(Workbench(), [], permissions=PermissionPolicy(mode))  # type: ignore[arg-type]
    assert verdicts(agent) == expected


async def test_plan_mode_refuses_a_write_and_the_model_is_told_why() -> None:
    bench = Workbench()
    script = [one_call("write_file", path="notes/a", text="t"), "I will only plan."]
    agent = agent_with(bench, script, permissions=PermissionPolicy("plan"))
    agent.permissions.allow("write_file")  # plan mode beats an allow rule
    reply = await agent(Msg("User", "write", "user"))
    assert reply.get_text_content() == "I will only plan." and bench.ran == []
    assert results(agent)["c1"].startswith("denied by policy: mode plan: `write_file`")
    assert_history_valid(agent.memory.messages)


def test_a_tool_that_always_asks_is_allowed_by_no_mode_and_no_broad_rule() -> None:
    agent = agent_with(Workbench(), [], permissions=PermissionPolicy("allow_all"))
    agent.permissions.allow("*")
    agent.permissions.allow("deploy", {"target": "prod"})
    agent.always_allow("deploy")
    verdict = agent.permission_verdict(use("deploy", target="prod"))
    assert verdict.behavior == "ask" and "always asks" in verdict.reason
    agent.permissions.deny("deploy")
    assert agent.permission_verdict(use("deploy", target="prod")).behavior == "deny"


async def test_only_a_decision_on_that_call_runs_a_tool_that_always_asks() -> None:
    bench = Workbench()
    agent = agent_with(bench, [one_call("deploy", target="prod"), "Deployed."])
    agent.permissions.can_use_tool = lambda tool, args, ctx: Allow()  # insisting beats it
    task = asyncio.create_task(agent(Msg("User", "deploy", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    assert bench.ran == []
    agent.decide("c1", "approve")
    await task
    assert bench.ran == ["deploy prod"]


def test_rules_select_tools_by_their_declared_kind() -> None:
    agent = agent_with(Workbench(), [], permissions=PermissionPolicy("allow_all"))
    rule = agent.permissions.deny("*", kind="network", note="offline today")
    assert verdicts(agent)[3] == "deny" and verdicts(agent)[:3] == ["allow"] * 3
    assert rule.describe() == "deny `*` (network tools) with any arguments for this session"
    with pytest.raises(ConfigError, match="kind"):
        PermissionRule("deny", "*", kind="dangerous")


@pytest.mark.parametrize(
    ("rule", "command", "allowed"),
    [
        ("run_shell(npm test:*)", "npm test", True),
        ("run_shell(npm test:*)", "npm test -- --watch", True),
        ("run_shell(npm test:*)", "npm testing", False),
        ("run_shell(npm test:*)", "npm test && rm -rf /", False),  # a chain never matches
        ("run_shell(npm test:*)", "npm test; curl evil", False),
        ("run_shell(re:^git (log|status)\\b)", "git status -s", True),
        ("run_shell(re:^git (log|status)\\b)", "git push", False),
    ],
)
def test_a_command_specifier_allows_its_prefix_and_never_a_chain(
    rule: str, command: str, allowed: bool
) -> None:
    agent = agent_with(Workbench(), [])
    agent.permissions.add(PermissionRule("allow", rule))
    got = agent.permission_verdict(use("run_shell", command=command)).behavior
    assert got == ("allow" if allowed else "ask")


def test_a_deny_prefix_catches_the_command_anywhere_in_a_chain() -> None:
    agent = agent_with(Workbench(), [], permissions=PermissionPolicy("allow_all"))
    agent.permissions.add(PermissionRule("deny", "run_shell(rm:*)"))
    verdict = agent.permission_verdict
    assert verdict(use("run_shell", command="ls && rm -rf build")).behavior == "deny"
    assert verdict(use("run_shell", command="rmdir x")).behavior == "allow"


def test_a_path_specifier_matches_the_normalised_path_argument() -> None:
    agent = agent_with(Workbench(), [])
    agent.permissions.add(PermissionRule("allow", "write_file(./notes/**)"))
    verdict = agent.permission_verdict
    assert verdict(use("write_file", path="notes/a/b.txt", text="t")).behavior == "allow"
    assert verdict(use("write_file", path="notes/../x", text="t")).behavior == "ask"
    [rule] = agent.permissions.rules
    assert rule.text == "write_file(./notes/**)" and rule.to_dict()["tool"] == rule.text


def test_a_tool_matcher_reads_specifiers_its_own_way() -> None:
    toolkit = Toolkit()

    def query(sql: str, database: str) -> str:
        """Query.

        Args:
            sql: the statement.
            database: which one.
        """
        return sql

    toolkit.register_tool_function(
        query, rule_matcher=lambda spec, args: args["database"] == spec, needs_approval=True
    )
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit)
    agent.permissions.add(PermissionRule("allow", "query(scratch)"))
    assert agent.permission_verdict(use("query", sql="x", database="scratch")).behavior == "allow"
    assert agent.permission_verdict(use("query", sql="x", database="prod")).behavior == "ask"


def test_a_specifier_for_a_tool_without_a_rule_argument_is_refused() -> None:
    toolkit = Toolkit()

    def pair(a: str, b: str) -> str:
        """Pair.

        Args:
            a: one.
            b: two.
        """
        return a + b

    toolkit.register_tool_function(pair)
    agent = ReActAgent("F", "T.", ScriptedModel([]), toolkit=toolkit)
    with pytest.raises(ConfigError, match="specifier"):
        agent.permissions.add(PermissionRule("allow", "pair(x*)"))
    with pytest.raises(ToolError, match="no argument 'c'"):
        toolkit.register_tool_function(pair, func_name="pair2", path_args=["c"])


@pytest.mark.parametrize(
    ("name", "arguments", "suggested"),
    [
        ("write_file", {"path": "notes/sub/a.txt", "text": "t"}, "write_file(notes/sub/*)"),
        ("write_file", {"path": "./a.txt", "text": "t"}, "write_file(*)"),
        ("run_shell", {"command": "npm test -- --watch"}, "run_shell(npm test:*)"),
        ("run_shell", {"command": "ls -la"}, "run_shell(ls:*)"),
        ("deploy", {"target": "prod eu"}, "deploy"),
    ],
)
def test_allow_similar_suggests_the_narrowest_rule_covering_the_call(
    name: str, arguments: dict[str, Any], suggested: str
) -> None:
    agent = agent_with(Workbench(), [])
    rule = agent.permissions.suggest(name, arguments)
    assert rule.text == suggested
    assert rule.matches(name, arguments, agent.toolkit.tools[name])


async def test_can_use_tool_allows_denies_rewrites_and_asks() -> None:
    bench = Workbench()
    seen: list[ToolContext] = []

    async def gate(tool: Any, args: dict[str, Any], ctx: ToolContext) -> Any:
        seen.append(ctx)
        if tool.name == "run_shell" and args["command"] == "ls":
            return "allow"
        if tool.name == "run_shell":
            return Deny("not that command")
        if args["path"].startswith("/"):
            return Allow(updated_arguments={**args, "path": "sandbox" + args["path"]})
        return Ask("a person should look")

    script = [
        ScriptedTurn(
            tool_calls=[
                ScriptedToolCall("run_shell", {"command": "ls"}, id="r1"),
                ScriptedToolCall("run_shell", {"command": "rm x"}, id="r2"),
                ScriptedToolCall("write_file", {"path": "/etc/x", "text": "t"}, id="w1"),
                ScriptedToolCall("write_file", {"path": "b", "text": "t"}, id="w2"),
            ]
        ),
        "Done.",
    ]
    agent = agent_with(bench, script, permissions=PermissionPolicy(can_use_tool=gate))
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    [pending] = agent.pending_approvals
    assert pending.call_id == "w2" and pending.reason == "a person should look"
    agent.approve("w2")
    await task
    assert bench.ran == ["run ls", "write sandbox/etc/x", "write b"]
    assert results(agent)["r2"] == "denied by policy: not that command"
    assert [c.call.id for c in seen] == ["r1", "r2", "w1", "w2"]
    assert seen[0].reason == "the tool needs approval" and seen[0].agent_name == "Friday"
    assert_history_valid(agent.memory.messages)


async def test_can_use_tool_can_interrupt_the_reply_and_a_broken_one_asks() -> None:
    bench = Workbench()
    agent = agent_with(
        bench,
        [one_call("run_shell", command="rm -rf /")],
        permissions=PermissionPolicy(can_use_tool=lambda t, a, c: Deny("stop", interrupt=True)),
    )
    reply = await agent(Msg("User", "go", "user"))
    assert reply.is_interrupted and reply.metadata["interrupted_by"] == "permission"
    assert bench.ran == [] and results(agent)["c1"] == "denied by policy: stop"
    assert_history_valid(agent.memory.messages)

    def broken(tool: Any, args: Any, ctx: Any) -> Any:
        raise RuntimeError("bug")

    other = agent_with(Workbench(), [one_call("run_shell", command="ls"), "Ok."])
    other.permissions.can_use_tool = broken
    task = asyncio.create_task(other(Msg("User", "go", "user")))
    await wait_for_event(other, lambda e: isinstance(e, ApprovalRequested))
    other.deny("c1")
    await task


def test_settings_layers_each_rule_knows_its_source(tmp_path: Path, user_config_dir: Path) -> None:
    (user_config_dir / "permissions.json").write_text(
        json.dumps({"rules": [{"behavior": "allow", "tool": "run_shell(ls:*)"}]}), "utf-8"
    )
    project = tmp_path / "project"
    (project / ".nb_hitl").mkdir(parents=True)
    (project / ".nb_hitl" / "permissions.json").write_text(
        json.dumps({"rules": [{"behavior": "deny", "tool": "run_shell(ls:*)"}]}), "utf-8"
    )
    own = tmp_path / "agent.json"
    policy = PermissionPolicy(project_rules=project, rules_file=own)
    agent = agent_with(Workbench(), [], permissions=policy)
    saved = agent.permissions.allow("fetch_url", scope="always")
    agent.permissions.allow("read_file")
    assert [(r.tool, r.source) for r in agent.permissions.rules] == [
        ("read_file", "code"),
        ("fetch_url", "file"),
        ("run_shell", "project"),
        ("run_shell", "user"),
    ]
    assert saved.source_path == str(own)
    assert [r["tool"] for r in json.loads(own.read_text("utf-8"))["rules"]] == ["fetch_url"]
    # a deny from the project beats the user's allow
    assert agent.permission_verdict(use("run_shell", command="ls")).behavior == "deny"
    project_rule = next(r for r in agent.permissions.rules if r.source == "project")
    agent.permissions.revoke(project_rule.id)
    assert agent.permission_verdict(use("run_shell", command="ls")).behavior == "allow"
    assert json.loads((project / ".nb_hitl" / "permissions.json").read_text("utf-8")) == {
        "rules": []
    }


async def test_the_clearer_names_and_their_old_aliases_do_the_same() -> None:
    assert ReActAgent.always_allow is ReActAgent.allow_for_session
    assert ReActAgent.deny_all is ReActAgent.deny_waiting
    assert ReActAgent.approve_all is ReActAgent.approve_waiting
    bench = Workbench()
    script = [
        ScriptedTurn(
            tool_calls=[
                ScriptedToolCall("run_shell", {"command": "a"}, id="r1"),
                ScriptedToolCall("write_file", {"path": "a", "text": "t"}, id="w1"),
            ]
        ),
        "Done.",
    ]
    agent = agent_with(bench, script)
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    agent.allow_for_session("run_shell")
    agent.deny_waiting("no writes")
    await task
    assert bench.ran == ["run a"] and results(agent)["w1"] == "denied by the user: no writes"
    assert [r.scope for r in agent.permissions.rules] == ["session"]


async def test_a_panel_follows_mode_and_rules_through_one_event(user_config_dir: Path) -> None:
    from nb_hitl.events import Event, PermissionsChanged

    agent = agent_with(Workbench(), [])
    seen: list[PermissionsChanged] = []

    def on(event: Event) -> None:
        if isinstance(event, PermissionsChanged):
            seen.append(event)

    agent.subscribe(on)
    agent.permissions.mode = "plan"
    rule = agent.permissions.allow("read_file", scope="always")
    for _ in range(50):
        await asyncio.sleep(0)
    assert [e.mode for e in seen] == ["plan", "plan"]
    [shown] = seen[-1].rules
    assert (shown["id"], shown["source"], shown["text"]) == (rule.id, "user", "read_file")
    view = agent.approvals.permissions_view()
    assert view["mode"] == "plan" and "read-only" in view["mode_text"]
    assert view["rules"] == list(seen[-1].rules) and view["file_error"] == ""
