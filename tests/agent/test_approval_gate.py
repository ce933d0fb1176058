"""The approval gate alone: a fake host stands in for the agent that owns it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent.approvals import ApprovalGate, PermissionPolicy
from nb_hitl.events import ApprovalDecided, ApprovalRequested, Event
from nb_hitl.exceptions import ApprovalError
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import Msg, ToolResultBlock, ToolUseBlock
from nb_hitl.tool import Toolkit


class FakeHost:
    """Just what ``GateHost`` names: tools, memory, loop, events and recorded results."""

    def __init__(self) -> None:
        self.name = "Host"
        self.toolkit = Toolkit()

        def send(to: str) -> str:
            """Send.

            Args:
                to: whom.
            """
            return to

        def look(path: str) -> str:
            """Look.

            Args:
                path: where.
            """
            return path

        self.toolkit.register_tool_function(send, needs_approval=True)
        self.toolkit.register_tool_function(look)
        self.memory = InMemoryMemory()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._where = ""
        self._open_calls: dict[str, ToolUseBlock] = {}
        self.events: list[Event] = []
        self.results: dict[str, Any] = {}

    @property
    def _reply_id(self) -> str | None:
        return "r1"

    @property
    def is_replying(self) -> bool:
        return False

    def _listened(self) -> bool:
        return True  # self.events records every event

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    def _commit_sync(self, msg: Msg) -> None:
        self.memory.add_sync(msg)

    async def _commit_result(self, call: ToolUseBlock, block: ToolResultBlock) -> None:
        self.results[call.id] = block.output


def gate_of(host: FakeHost) -> ApprovalGate:
    gate = ApprovalGate(host)
    gate.policy = PermissionPolicy(user_rules=False)
    return gate


async def test_a_turn_parks_until_every_asked_call_is_decided_then_runs_in_order() -> None:
    host = FakeHost()
    gate = gate_of(host)
    calls = [
        ToolUseBlock(id="a", name="send", input={"to": "ann"}),
        ToolUseBlock(id="b", name="look", input={"path": "x"}),
        ToolUseBlock(id="c", name="send", input={"to": "bob"}),
    ]
    parked = asyncio.create_task(gate.park(calls))
    await asyncio.sleep(0)
    assert [p.call_id for p in gate.pending] == ["a", "c"] and gate.is_parked
    asked = [type(e) for e in host.events if isinstance(e, ApprovalRequested)]
    assert asked == [ApprovalRequested, ApprovalRequested]
    gate.decide("a", "edit", arguments={"to": "amy"})
    assert not parked.done()
    gate.deny("c", "not bob")
    ran = await parked
    assert [(c.id, c.input) for c in ran] == [("a", {"to": "amy"}), ("b", {"path": "x"})]
    assert host.results == {"c": "denied by the user: not bob"}
    assert [e.decision for e in host.events if isinstance(e, ApprovalDecided)] == [
        "edited",
        "denied",
    ]
    with pytest.raises(ApprovalError, match="already decided"):
        gate.approve("a")


async def test_a_refused_decision_changes_nothing() -> None:
    host = FakeHost()
    gate = gate_of(host)
    parked = asyncio.create_task(gate.park([ToolUseBlock(id="a", name="send", input={"to": "x"})]))
    await asyncio.sleep(0)
    with pytest.raises(ApprovalError):
        gate.decide("a", "edit", arguments={"nobody": 1})
    with pytest.raises(ApprovalError):
        gate.decide("a", "maybe")  # type: ignore[arg-type]
    assert [p.call_id for p in gate.pending] == ["a"] and gate.log == []
    gate.always_allow("send")
    assert [c.id for c in await parked] == ["a"] and "send" in gate.always_allowed


async def test_decisions_from_another_thread_make_one_hop_onto_the_loop() -> None:
    host = FakeHost()
    host._loop = asyncio.get_running_loop()
    gate = gate_of(host)
    parked = asyncio.create_task(gate.park([ToolUseBlock(id="a", name="send", input={"to": "x"})]))
    await asyncio.sleep(0)
    decision = await asyncio.to_thread(gate.decide, "a", "approve")
    assert decision.kind == "approved" and [c.id for c in await parked] == ["a"]


def test_saved_state_round_trips_without_looking_like_a_nested_module() -> None:
    host = FakeHost()
    gate = gate_of(host)
    gate.always_allowed.add("send")
    state = gate.dump_state()
    assert not hasattr(gate, "state_dict")  # the agent saves it after memory, on purpose
    other = gate_of(FakeHost())
    other.load_state(state)
    assert set(other.always_allowed) == {"send"}
