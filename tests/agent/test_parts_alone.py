"""The agent's parts alone, each on a small host that has only what its protocol names:
``Compressor`` (``CompressionHost``), ``BranchTable`` (``BranchHost``), ``Resumer``
(``ResumeHost``). The agents' own tests cover them wired together."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nb_hitl.agent._branches import BranchTable
from nb_hitl.agent._compressor import Compressor
from nb_hitl.agent.resume import Resumer
from nb_hitl.compression import CompressionConfig
from nb_hitl.events import CompressionConfigChanged, Event
from nb_hitl.exceptions import AgentBusyError, BranchError, NothingToResumeError
from nb_hitl.formatter import OpenAIChatFormatter
from nb_hitl.memory import PINNED, InMemoryMemory
from nb_hitl.message import MetaKey, Msg
from nb_hitl.model import ScriptedModel
from nb_hitl.tool import Toolkit


class Host:
    """The pieces of an agent the parts read: name, memory, model, events..."""

    def __init__(self) -> None:
        self.name = "Friday"
        self.sys_prompt = "Be brief."
        self.model = ScriptedModel(["ok"])
        self.formatter = OpenAIChatFormatter(plain_content=True)
        self.toolkit = Toolkit()
        self.memory = InMemoryMemory()
        self._where = ""
        self._reply_task: asyncio.Task[Any] | None = None
        self._reply_id: str | None = None
        self.events: list[Event] = []
        self.is_replying = False
        self.approvals = _Approvals()
        self.compressor = _Undo()

    def _emit(self, event: Event) -> None:
        self.events.append(event)


class _Approvals:
    def __init__(self) -> None:
        self.has_parked_calls = False  # the one thing of ApprovalGate the parts read


class _Undo:
    def __init__(self) -> None:
        self.undo: list[Any] = []


def said(host: Host, *texts: str) -> list[Msg]:
    msgs = [
        Msg("user" if i % 2 == 0 else host.name, t, "user" if i % 2 == 0 else "assistant")
        for i, t in enumerate(texts)
    ]
    host.memory.add_sync(msgs)
    return msgs


def test_compressor_settings_are_announced_and_pins_are_marks() -> None:
    host = Host()
    compressor = Compressor(host)  # type: ignore[arg-type]
    compressor.config = {"enable": True, "trigger_threshold": 5000, "keep_recent": 2}
    assert isinstance(compressor.config, CompressionConfig)
    changed = [e for e in host.events if isinstance(e, CompressionConfigChanged)]
    assert changed and changed[-1].trigger_threshold == 5000
    question, _answer = said(host, "What is 2+2?", "4")
    assert compressor.current_question_id() == question.id
    compressor.pin(question.id)
    assert PINNED in host.memory.marks_of(question.id)
    compressor.unpin(question.id)
    assert PINNED not in host.memory.marks_of(question.id)
    plan = compressor.plan()
    assert not plan.would_trigger and not compressor.can_undo


async def test_compressor_refuses_to_compress_beside_a_running_reply() -> None:
    host = Host()
    host._reply_task = asyncio.get_running_loop().create_future()  # type: ignore[assignment]
    try:
        with pytest.raises(AgentBusyError):
            await Compressor(host).compress_now(force=True)  # type: ignore[arg-type]
    finally:
        host._reply_task.cancel()  # type: ignore[union-attr]


def test_branch_table_forks_and_checks_out_without_an_agent() -> None:
    host = Host()
    table = BranchTable(host)  # type: ignore[arg-type]
    first, _a, second, _b = said(host, "one", "1", "two", "2")
    assert [b.id for b in table.branches] == ["main"]
    forked = table.fork(second.id, "three", name="try")
    assert forked.name == "try" and forked.active
    assert [m.get_text_content() for m in host.memory.messages] == ["one", "1", "three"]
    assert table.stored_histories()[0][-1].get_text_content() == "2"
    table.checkout("main")
    assert [m.get_text_content() for m in host.memory.messages] == ["one", "1", "two", "2"]
    with pytest.raises(BranchError, match="No branch"):
        table.checkout("nope")
    copy = table.copy()
    assert [b.id for b in copy.branches] == [b.id for b in table.branches]
    assert first.id == host.memory.messages[0].id


def test_resumer_finds_the_point_an_interrupt_left() -> None:
    host = Host()
    resumer = Resumer(host)  # type: ignore[arg-type]
    said(host, "Tell me a story", "Once upon")
    assert not resumer.can_resume()  # the last reply finished
    with pytest.raises(NothingToResumeError):
        resumer.point()
    partial = host.memory.messages[-1]
    partial.metadata[MetaKey.PARTIAL] = True
    marker = Msg(
        host.name,
        "[Interrupted]",
        "assistant",
        metadata={MetaKey.IS_INTERRUPTED: True, MetaKey.PARTIAL_MSG_ID: partial.id},
    )
    host.memory.add_sync(marker)
    point = resumer.point()
    assert point.interrupted_id == marker.id and point.partial_id == partial.id
    assert point.partial_text == "Once upon"
    instruction = resumer.prepare("shorter, please")
    assert instruction is not None and resumer.pending is not None
    assert instruction.metadata[MetaKey.RESUME_INSTRUCTION] is True
    assert resumer.take() is resumer.active and resumer.pending is None
