"""PermissionPolicy: modes, ordered allow/deny/ask rules, their scopes, and bad rules."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import PermissionPolicy, PermissionRule, ReActAgent, permissions_file
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import ConfigError
from nb_hitl.message import Msg, ToolUseBlock
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit


class Notes:
    """A read-only search tool, a writing tool and a tool that needs approval."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def toolkit(self) -> Toolkit:
        toolkit = Toolkit()

        def search_notes(query: str) -> str:
            """Search the notes.

            Args:
                query: what to look for.
            """
            self.ran.append(f"search {query}")
            return f"found {query}"

        def write_note(path: str, text: str) -> str:
            """Write a note.

            Args:
                path: where.
                text: what.
            """
            self.ran.append(f"write {path}")
            return "written"

        def send_mail(to: str) -> str:
            """Send mail.

            Args:
                to: whom.
            """
            self.ran.append(f"mail {to}")
            return "sent"

        toolkit.register_tool_function(search_notes, read_only=True)
        toolkit.register_tool_function(write_note)
        toolkit.register_tool_function(send_mail, needs_approval=True)
        return toolkit


def agent_with(notes: Notes, script: list[Any], **kwargs: Any) -> ReActAgent:
    model = ScriptedModel(script, tokens_per_second=1e6)
    return ReActAgent("Friday", "Test.", model, toolkit=notes.toolkit(), **kwargs)


def use(name: str, call_id: str = "c1", **args: Any) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input=args)


def turn(*calls: tuple[str, dict[str, Any]]) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[ScriptedToolCall(n, a, id=f"c{i}") for i, (n, a) in enumerate(calls, 1)]
    )


def results(agent: ReActAgent) -> dict[str, str]:
    return {
        b.id: b.output_text()
        for m in agent.memory.messages
        for b in m.get_content_blocks("tool_result")
    }


@pytest.mark.parametrize(
    ("mode", "search", "write", "mail"),
    [
        ("ask", "allow", "allow", "ask"),
        ("allow_reads", "allow", "ask", "ask"),
        ("allow_all", "allow", "allow", "allow"),
        ("deny_all", "deny", "deny", "deny"),
    ],
)
def test_each_mode_decides_reads_writes_and_tools_that_need_approval(
    mode: str, search: str, write: str, mail: str
) -> None:
    agent = agent_with(Notes(), [], permissions=PermissionPolicy(mode))  # type: ignore[arg-type]
    got = [
        agent.permission_verdict(use("search_notes", query="x")).behavior,
        agent.permission_verdict(use("write_note", path="a", text="t")).behavior,
        agent.permission_verdict(use("send_mail", to="ann")).behavior,
    ]
    assert got == [search, write, mail]


def test_rules_beat_the_mode_and_deny_beats_ask_beats_allow_whatever_their_order() -> None:
    agent = agent_with(Notes(), [], permissions=PermissionPolicy("allow_all"))
    policy = agent.permissions
    policy.allow("write_note")
    policy.ask("write_note", {"path": "drafts/*"})
    policy.deny("write_note", {"path": "re:.*\\.secret"})
    verdict = agent.permission_verdict
    assert verdict(use("write_note", path="a.txt", text="t")).behavior == "allow"
    assert verdict(use("write_note", path="drafts/x", text="t")).behavior == "ask"
    deny = verdict(use("write_note", path="drafts/k.secret", text="t"))
    assert deny.behavior == "deny" and deny.rule is not None and "re:" in deny.reason
    assert verdict(use("search_notes", query="x")).behavior == "allow"  # the mode


def test_a_when_predicate_and_argument_globs_match_the_call() -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.allow("send_mail", when=lambda args: args["to"].endswith("@example.com"))
    assert agent.permission_verdict(use("send_mail", to="a@example.com")).behavior == "allow"
    assert agent.permission_verdict(use("send_mail", to="a@evil.com")).behavior == "ask"
    agent.permissions.allow("send_*", {"to": "bob*"})
    assert agent.permission_verdict(use("send_mail", to="bobby")).behavior == "allow"


def test_a_failing_predicate_never_lets_a_call_through() -> None:
    agent = agent_with(Notes(), [])
    agent.permissions.allow("send_mail", when=lambda args: 1 / 0 > 0)
    assert agent.permission_verdict(use("send_mail", to="a")).behavior == "ask"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.allow("nope"), "no registered tool has that name"),
        (lambda p: p.allow("search_*", {"path": "*"}), "has no argument 'path'"),
        (lambda p: p.allow("search_notes", {"query": "re:("}), "regular expression"),
        (lambda p: p.allow("search_notes", {"query": "[abc"}), "unclosed"),
        (lambda p: p.allow("search_notes", {"query": ""}), "non-empty string"),
        (lambda p: p.allow("search notes"), "tool name or a glob"),
        (lambda p: p.add(PermissionRule("maybe", "search_notes")), "behavior"),  # type: ignore[arg-type]
        (lambda p: p.allow("search_notes", scope="forever"), "scope"),  # type: ignore[arg-type]
        (lambda p: p.allow("search_notes", when=lambda a: True, scope="always"), "cannot have"),
        (lambda p: p.add("allow search"), "PermissionRule objects"),
    ],
)
def test_rules_that_cannot_match_anything_are_refused_at_creation(make: Any, message: str) -> None:
    agent = agent_with(Notes(), [])
    with pytest.raises(ConfigError, match=message):
        make(agent.permissions)
    assert agent.permissions.rules == []


def test_a_policy_with_a_bad_rule_is_refused_when_given_to_the_agent() -> None:
    policy = PermissionPolicy(rules=[PermissionRule("allow", "unknown_tool")])
    with pytest.raises(ConfigError, match="unknown_tool"):
        agent_with(Notes(), [], permissions=policy)
    with pytest.raises(ConfigError, match="permission mode"):
        PermissionPolicy("yolo")  # type: ignore[arg-type]


async def test_call_scope_covers_the_next_call_only() -> None:
    notes = Notes()
    agent = agent_with(
        notes, [turn(("send_mail", {"to": "a"}), ("send_mail", {"to": "b"})), "Done."]
    )
    agent.permissions.allow("send_mail", scope="call")
    task = asyncio.create_task(agent(Msg("User", "mail", "user")))
    event = await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    assert event.tool_use.input == {"to": "b"}  # type: ignore[attr-defined]
    assert agent.permissions.rules == []
    agent.approve(event.tool_use.id)  # type: ignore[attr-defined]
    await task
    assert notes.ran == ["mail a", "mail b"]


async def test_reply_scope_ends_with_the_reply() -> None:
    notes = Notes()
    agent = agent_with(notes, [turn(("send_mail", {"to": "a"})), "Done.", "Hi."])
    rule = agent.permissions.allow("send_mail", scope="reply")
    await agent(Msg("User", "mail", "user"))
    assert notes.ran == ["mail a"]
    assert rule not in agent.permissions.rules
    await agent(Msg("User", "hello", "user"))
    assert agent.permissions.rules == []


async def test_a_reply_rule_made_mid_reply_is_gone_when_that_reply_ends() -> None:
    notes = Notes()
    agent = agent_with(
        notes, [turn(("send_mail", {"to": "a"})), turn(("send_mail", {"to": "b"})), "Done."]
    )
    task = asyncio.create_task(agent(Msg("User", "mail", "user")))
    event = await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    whole_tool = PermissionRule("allow", "send_mail", scope="reply")
    decision = agent.decide(event.tool_use.id, "approve", rule=whole_tool)  # type: ignore[attr-defined]
    assert decision.kind == "approved"
    await task
    assert notes.ran == ["mail a", "mail b"]  # the second call was covered by the rule
    assert agent.permissions.rules == []


async def test_session_rules_and_mode_survive_save_and_load(tmp_path: Path) -> None:
    notes = Notes()
    agent = agent_with(notes, ["Hi."], permissions=PermissionPolicy("allow_reads"))
    agent.permissions.allow("send_mail", {"to": "*@example.com"}, note="team mail")
    agent.permissions.allow("write_note", scope="reply")  # not saved
    agent.permissions.allow("write_note", when=lambda a: True)  # functions are not saved
    await agent(Msg("User", "hi", "user"))
    path = agent.save_session(tmp_path / "s.json")
    other = agent_with(Notes(), [])
    other.load_session(path)
    assert other.permissions.mode == "allow_reads"
    [rule] = other.permissions.rules
    assert (rule.tool, dict(rule.args), rule.note) == (
        "send_mail",
        {"to": "*@example.com"},
        "team mail",
    )
    assert other.permission_verdict(use("send_mail", to="x@example.com")).behavior == "allow"


async def test_a_session_whose_rule_does_not_fit_the_agent_is_refused_whole(tmp_path: Path) -> None:
    from nb_hitl.exceptions import SessionError

    agent = agent_with(Notes(), ["Hi."])
    agent.permissions.allow("send_mail")
    await agent(Msg("User", "hi", "user"))
    path = agent.save_session(tmp_path / "s.json")
    bare = ReActAgent("Friday", "Test.", ScriptedModel([]), toolkit=Toolkit())
    before = bare.permissions.snapshot()
    with pytest.raises(SessionError):
        bare.load_session(path)
    assert bare.permissions.snapshot() == before and bare.memory.messages == []


def test_always_rules_live_in_the_users_file_and_can_be_revoked(user_config_dir: Path) -> None:
    agent = agent_with(Notes(), [])
    rule = agent.permissions.allow("search_notes", scope="always")
    assert permissions_file() == user_config_dir / "permissions.json"
    saved = json.loads(permissions_file().read_text(encoding="utf-8"))
    assert [r["tool"] for r in saved["rules"]] == ["search_notes"]
    second = agent_with(Notes(), [], permissions=PermissionPolicy("deny_all"))
    assert second.permission_verdict(use("search_notes", query="q")).behavior == "deny"  # hard
    second.permissions.mode = "allow_reads"
    assert second.permission_verdict(use("write_note", path="a", text="t")).behavior == "ask"
    assert [r.source for r in second.permissions.rules] == ["user"]
    second.permissions.revoke(rule.id)
    assert json.loads(permissions_file().read_text(encoding="utf-8")) == {"rules": []}
    assert agent.permission_verdict(use("search_notes", query="q")).behavior == "allow"  # mode ask
    with pytest.raises(ConfigError, match="No permission rule has id"):
        second.permissions.revoke(rule.id)


def test_a_hand_edited_users_file_is_read_and_a_broken_one_makes_every_call_ask() -> None:
    permissions_file().parent.mkdir(parents=True, exist_ok=True)
    permissions_file().write_text(
        json.dumps({"rules": [{"behavior": "deny", "tool": "write_*"}]}), encoding="utf-8"
    )
    agent = agent_with(Notes(), [])
    assert agent.permission_verdict(use("write_note", path="a", text="b")).behavior == "deny"
    permissions_file().write_text("{not json", encoding="utf-8")
    verdict = agent.permission_verdict(use("search_notes", query="q"))
    assert verdict.behavior == "ask" and "permissions.json" in verdict.reason
    assert "fix or delete" in agent.permissions.file_error


async def test_a_denied_call_never_runs_and_the_model_is_told_why() -> None:
    notes = Notes()
    agent = agent_with(notes, [turn(("write_note", {"path": "a", "text": "t"})), "Ok."])
    agent.permissions.deny("write_note", note="read-only day")
    reply = await agent(Msg("User", "write", "user"))
    assert reply.get_text_content() == "Ok." and notes.ran == []
    assert results(agent)["c1"].startswith("denied by policy: rule: deny `write_note`")
    assert_history_valid(agent.memory.messages)


def test_always_allow_adds_a_session_rule_the_policy_lists() -> None:
    agent = agent_with(Notes(), [])
    agent.always_allow("send_mail")
    [rule] = agent.permissions.rules
    assert (rule.behavior, rule.tool, rule.scope) == ("allow", "send_mail", "session")
    assert rule.describe(agent.toolkit) == "allow `send_mail` with any to for this session"
    assert "send_mail" in agent.always_allowed
    agent.always_allowed.discard("send_mail")
    assert agent.permissions.rules == []


def test_the_suggested_rule_is_the_narrowest_that_covers_the_call() -> None:
    agent = agent_with(Notes(), [])
    rule = agent.permissions.suggest("search_notes", {"query": "x marks"})
    assert rule.describe(agent.toolkit) == (
        "allow `search_notes` with query matching 're:^x\\b' for this session"
    )
    assert rule.matches("search_notes", {"query": "x again"})
    assert not rule.matches("search_notes", {"query": "xyz"})
    rule = agent.permissions.suggest("write_note", {"path": "a", "text": "t"})
    assert rule.describe(agent.toolkit) == "allow `write_note` with any arguments for this session"
