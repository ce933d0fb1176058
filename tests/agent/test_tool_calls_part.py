"""``ToolCalls`` (``agent.tool_calls``, the acting step) alone, on a host that has only what
``ActingHost`` names; the ReAct loop's tests cover it wired into an agent."""

from __future__ import annotations

from typing import Any

from nb_hitl.agent._acting import INTERRUPTED_RESULT, NOT_STARTED_RESULT, ToolCalls
from nb_hitl.events import Event, ToolResultReady
from nb_hitl.memory import InMemoryMemory
from nb_hitl.message import MetaKey, Msg, ToolResultBlock, ToolUseBlock
from nb_hitl.testing import assert_history_valid


class Host:
    def __init__(self) -> None:
        self.name = "Friday"
        self.memory = InMemoryMemory()
        self._reply_id: str | None = "r1"
        self.events: list[Event] = []

    def _emit(self, event: Event) -> None:
        self.events.append(event)

    async def _commit(self, msg: Msg) -> None:
        await self.memory.add(msg)

    def _print_wanted(self) -> bool:
        return False

    async def print(self, msg: Msg, last: bool = True, speech: Any = None) -> None:
        raise AssertionError("nothing prints")


def asking(*ids: str) -> Msg:
    calls = [ToolUseBlock(id=i, name="search", input={"q": i}) for i in ids]
    return Msg("Friday", calls, "assistant")


async def test_ids_stay_unique_across_memory_and_a_renamed_call_keeps_the_providers() -> None:
    host = Host()
    calls = ToolCalls(host)  # type: ignore[arg-type]
    first = asking("call_0")
    calls.open_calls_of(first)
    await host.memory.add(first)
    second = asking("call_0", "")
    calls.open_calls_of(second)
    assert [c.id for c in second.get_content_blocks("tool_use")] == ["call_0_1", "call_1"]
    assert second.metadata[MetaKey.PROVIDER_TOOL_CALL_IDS] == {"call_0_1": "call_0", "call_1": ""}
    assert set(calls.open) == {"call_0", "call_0_1", "call_1"}


async def test_an_interrupt_closes_every_open_call_once_with_what_it_had_done() -> None:
    host = Host()
    calls = ToolCalls(host)  # type: ignore[arg-type]
    calls.start()
    msg = asking("a", "b", "c")
    calls.open_calls_of(msg)
    await host.memory.add(msg)
    a = msg.get_content_blocks("tool_use")[0]
    await calls.commit_result(a, ToolResultBlock(id="a", name="search", output="found"))
    await calls.commit_result(a, ToolResultBlock(id="a", name="search", output="again"))
    calls.started.add("b")
    calls.partial["b"] = "half"
    closed, closing = calls.close_interrupted()
    assert closed == {"not_run": ["c"], "interrupted": ["b"]}
    assert calls.open == {} and calls.partial == {}
    # the results come back unrecorded: handle_interrupt records them with the interrupted
    # message in one memory.add, then emits their MessageAdded and ToolResultReady
    assert all(host.memory.get(m.id) is None for m in closing)
    await host.memory.add(closing)
    results = {
        r.id: r.output for m in host.memory.messages for r in m.get_content_blocks("tool_result")
    }
    assert results == {
        "a": "found",
        "b": f"{INTERRUPTED_RESULT}\nPartial output:\nhalf",
        "c": NOT_STARTED_RESULT,
    }
    assert len([e for e in host.events if isinstance(e, ToolResultReady)]) == 1  # a's only
    assert_history_valid(host.memory.messages)


async def test_a_failed_reply_gives_each_open_call_an_error_result() -> None:
    host = Host()
    calls = ToolCalls(host)  # type: ignore[arg-type]
    msg = asking("a")
    calls.open_calls_of(msg)
    await host.memory.add(msg)
    await calls.close_failed(RuntimeError("model down"))
    [result] = host.memory.messages[-1].get_content_blocks("tool_result")
    assert result.is_error and "model down" in str(result.output)
    assert_history_valid(host.memory.messages)
