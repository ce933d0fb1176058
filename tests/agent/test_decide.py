"""Decisions from anywhere: another thread, twice, late, unknown, and after a restart."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from nb_hitl.agent import PermissionRule, ReActAgent
from nb_hitl.events import ApprovalRequested
from nb_hitl.exceptions import ApprovalError
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.testing import assert_history_valid, wait_for_event
from nb_hitl.tool import Toolkit

DOCS_TEXT = (Path(__file__).resolve().parents[2] / "docs" / "permissions.md").read_text()


def mail_agent(ran: list[str], script: list[Any]) -> ReActAgent:
    toolkit = Toolkit()

    def send_mail(to: str) -> str:
        """Send mail.

        Args:
            to: whom.
        """
        ran.append(to)
        return f"sent to {to}"

    toolkit.register_tool_function(send_mail, needs_approval=True)
    return ReActAgent(
        "Friday", "Test.", ScriptedModel(script, tokens_per_second=1e6), toolkit=toolkit
    )


def mail_turn(*to: str) -> ScriptedTurn:
    return ScriptedTurn(
        tool_calls=[
            ScriptedToolCall("send_mail", {"to": t}, id=f"m{i}") for i, t in enumerate(to, 1)
        ]
    )


async def parked(agent: ReActAgent) -> asyncio.Task[Msg]:
    task = asyncio.create_task(agent(Msg("User", "mail", "user")))
    await wait_for_event(agent, lambda e: isinstance(e, ApprovalRequested))
    await asyncio.sleep(0)
    return task


async def test_two_threads_decide_at_once_and_the_tool_runs_exactly_once() -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann"), "Sent."])
    task = await parked(agent)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def decide() -> None:
        barrier.wait()
        try:
            outcomes.append(agent.decide("m1", "approve").kind)
        except ApprovalError as exc:
            outcomes.append(str(exc))

    loop = asyncio.get_running_loop()
    await asyncio.gather(*(loop.run_in_executor(None, decide) for _ in range(2)))
    await task
    assert ran == ["ann"]
    assert outcomes.count("approved") == 1
    [refused] = [o for o in outcomes if o != "approved"]
    assert "already decided: approved at" in refused


async def test_a_decision_after_the_call_ran_is_refused_and_changes_nothing() -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann"), "Sent."])
    task = await parked(agent)
    agent.decide("m1", "deny", reason="not today")
    await task
    before = [m.to_dict() for m in agent.memory.messages]
    with pytest.raises(ApprovalError, match=r"already decided: denied at \d\d:\d\d:\d\d UTC"):
        agent.decide("m1", "approve")
    with pytest.raises(ApprovalError, match="No tool call 'nope' is waiting"):
        agent.decide("nope", "approve")
    with pytest.raises(ApprovalError, match="'approve', 'edit' or 'deny'"):
        agent.decide("m1", "maybe")  # type: ignore[arg-type]
    assert [m.to_dict() for m in agent.memory.messages] == before and ran == []


async def test_a_bad_decision_word_or_edit_leaves_the_call_waiting() -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann"), "Sent."])
    task = await parked(agent)
    with pytest.raises(ApprovalError, match="needs arguments"):
        agent.decide("m1", "edit")
    with pytest.raises(ApprovalError, match="Invalid arguments"):
        agent.decide("m1", "edit", arguments={"to": 3})
    assert [p.call_id for p in agent.pending_approvals] == ["m1"]
    agent.decide("m1", "edit", arguments={"to": "bob"})
    await task
    assert ran == ["bob"]


async def test_a_decision_the_loop_never_takes_is_withdrawn_and_not_consumed() -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann"), "Sent."])
    task = await parked(agent)
    got: list[str] = []

    def too_late() -> None:  # the loop is blocked below, so the hop cannot land in time
        try:
            agent.decide("m1", "approve", timeout=0.05)
        except ApprovalError as exc:
            got.append(str(exc))

    thread = threading.Thread(target=too_late)
    thread.start()
    thread.join()  # blocks the event loop the whole time
    await asyncio.sleep(0.01)
    assert "did not take the decision" in got[0]
    assert [p.call_id for p in agent.pending_approvals] == ["m1"]  # still waiting
    agent.decide("m1", "approve")
    await task
    assert ran == ["ann"]


async def test_a_decision_with_a_rule_decides_the_other_waiting_calls_it_covers() -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann", "bob"), mail_turn("cid"), "Sent."])
    task = await parked(agent)
    # a scope word gives the narrow suggested rule (test_permission_suggestions.py); a
    # rule for the whole tool covers the other calls
    agent.decide("m1", "approve", rule=PermissionRule("allow", "send_mail", scope="session"))
    await task
    assert ran == ["ann", "bob", "cid"]
    [rule] = agent.permissions.rules
    assert rule.scope == "session" and rule.tool == "send_mail"


async def test_a_decision_survives_a_restart_and_lands_once(tmp_path: Path) -> None:
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann")])
    task = await parked(agent)
    path = agent.save_session(tmp_path / "s.json")
    await agent.interrupt()
    await task

    restarted = mail_agent(ran, ["Sent after the restart."])
    restarted.load_session(path)
    [pending] = restarted.pending_approvals
    assert pending.suggestion is not None and pending.asked_at > 0
    outside = threading.Thread(target=lambda: restarted.decide(pending.call_id, "approve"))
    outside.start()
    outside.join()
    with pytest.raises(ApprovalError, match="already decided: approved at"):
        restarted.decide(pending.call_id, "approve")

    # a resumed run stopped before it began keeps the decision (nothing is consumed)
    resumed = asyncio.create_task(restarted.resume_pending())
    await asyncio.sleep(0)
    assert await restarted.interrupt()
    stopped = await resumed
    assert stopped.is_interrupted and ran == []
    assert restarted.is_waiting_for_approval and not restarted.is_replying

    reply = await restarted.resume_pending()
    assert reply.get_text_content() == "Sent after the restart."
    assert ran == ["ann"]
    assert_history_valid(restarted.memory.messages)


async def test_the_web_hook_example_of_the_docs_decides_exactly_once() -> None:
    import json
    import re
    import urllib.error
    import urllib.request

    code = re.search(r"```python\n(from http\.server.*?)```", DOCS_TEXT, re.S)
    assert code is not None
    ran: list[str] = []
    agent = mail_agent(ran, [mail_turn("ann"), "Sent."])
    task = await parked(agent)
    scope: dict[str, Any] = {"agent": agent}
    exec(code.group(1).replace("8765", "0"), scope)  # a free port on loopback
    server = scope["server"]
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    def post() -> int:
        body = json.dumps({"call_id": "m1", "decision": "approve"}).encode()
        request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except (ConnectionError, urllib.error.URLError):
            return 500  # the handler raised (already decided): the connection was dropped

    try:
        loop = asyncio.get_running_loop()
        first = await loop.run_in_executor(None, post)
        await task
        second = await loop.run_in_executor(None, post)  # a duplicated delivery
    finally:
        server.shutdown()
        server.server_close()
    assert first == 204 and second != 204
    assert ran == ["ann"]
