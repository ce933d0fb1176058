"""The agent's public seams other packages use: waiting for idle, the live agents."""

from __future__ import annotations

import asyncio

from nb_hitl import Msg, ReActAgent, ScriptedModel
from nb_hitl.agent import live_agents


def _agent() -> ReActAgent:
    words = " ".join(f"word{i}" for i in range(40))
    return ReActAgent("Ada", "sys", ScriptedModel([words], tokens_per_second=400))


async def test_wait_idle_returns_at_once_when_idle_and_after_the_reply_otherwise() -> None:
    agent = _agent()
    await asyncio.wait_for(agent.wait_idle(), 1)  # nothing runs: at once
    task = asyncio.create_task(agent(Msg("User", "go", "user")))
    await asyncio.sleep(0.02)
    assert agent.is_replying
    await asyncio.wait_for(agent.wait_idle(), 5)
    assert not agent.is_replying
    reply = await task
    assert not reply.metadata.get("_is_interrupted")  # waiting neither cancels nor joins


def test_live_agents_lists_every_agent_still_alive() -> None:
    agent = _agent()
    assert agent in live_agents()


def test_widgets_tell_an_agent_that_takes_decisions_without_a_base_class() -> None:
    from nb_hitl.agent import AgentBase, UserAgent
    from nb_hitl.agent.approvals import ApprovalMethods
    from nb_hitl.remote import RemoteAgent

    class Mine(ReActAgent):
        pass

    assert ApprovalMethods not in ReActAgent.__mro__
    assert isinstance(_agent(), ApprovalMethods)
    assert isinstance(Mine("Bo", "sys", ScriptedModel([])), ApprovalMethods)
    assert not isinstance(UserAgent("User"), ApprovalMethods)
    assert not issubclass(AgentBase, ApprovalMethods) and not issubclass(
        RemoteAgent, ApprovalMethods
    )
    assert ReActAgent.decide is ApprovalMethods.decide  # written once, named by the agent


async def test_a_gate_snapshot_puts_back_policy_state_and_log() -> None:
    agent = _agent()

    def lookup(q: str) -> str:
        """Look it up."""
        return q

    agent.toolkit.register_tool_function(lookup)
    snap = agent.approvals.snapshot()
    state = agent.approvals.state
    agent.always_allowed.add("lookup")
    agent.approvals.log.append({"call_id": "x"})
    agent.approvals.restore(snap)
    assert agent.always_allowed == set() and agent.approval_log == []
    assert agent.approvals.state is state
