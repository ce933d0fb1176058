"""AgentScope 1.x memory code, ported by renaming the import, runs on nb_hitl's InMemoryMemory.

Written from AgentScope's documented ``MemoryBase`` / ``InMemoryMemory`` behaviour. Deliberate
differences are marked ``# differs on purpose:`` with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from nb_hitl.memory import InMemoryMemory, MemoryBase
from nb_hitl.message import Msg
from nb_hitl.module import StateModule


def numbered(n: int) -> list[Msg]:
    """Messages whose ids are "0".."n-1", the way AgentScope code often pins ids."""
    roles = ["user", "assistant", "system"]
    out = []
    for i in range(n):
        msg = Msg(roles[i % 3], str(i), roles[i % 3])  # type: ignore[arg-type]
        msg.id = str(i)
        out.append(msg)
    return out


async def ids(memory: InMemoryMemory, **kwargs: object) -> list[str]:
    return [m.id for m in await memory.get_memory(**kwargs)]  # type: ignore[arg-type]


async def test_add_delete_size_clear() -> None:
    memory = InMemoryMemory()
    msgs = numbered(10)
    assert await memory.get_memory() == [] and await memory.size() == 0
    await memory.add(msgs[:5])
    assert await ids(memory) == ["0", "1", "2", "3", "4"]
    assert await memory.delete(msg_ids=["2", "4"]) == 2
    assert await ids(memory) == ["0", "1", "3"] and await memory.size() == 3
    assert await memory.delete(msg_ids=["nonexistent_id"]) == 0
    await memory.add(msgs[5:])
    assert await ids(memory) == ["0", "1", "3", "5", "6", "7", "8", "9"]
    await memory.clear()
    assert await memory.size() == 0


async def test_duplicates_are_skipped_silently() -> None:
    memory = InMemoryMemory()
    msgs = numbered(10)
    await memory.add(msgs[:8])
    await memory.add(msgs[5:])  # 5, 6, 7 are held already
    assert await ids(memory) == [str(i) for i in range(10)]


async def test_allow_duplicates_keeps_both() -> None:
    memory = InMemoryMemory()
    (msg,) = numbered(1)
    await memory.add(msg)
    await memory.add(msg, allow_duplicates=True)
    held = await memory.get_memory()
    assert [m.content for m in held] == ["0", "0"]
    # differs on purpose: AgentScope stores the second entry under the same id; nb_hitl gives
    # the copy a fresh id because marks, replace(), sessions and widgets key on unique ids.
    assert held[0].id == "0" and held[1].id != "0"


async def test_a_string_mark_is_one_mark_and_a_list_is_several() -> None:
    memory = InMemoryMemory()
    msgs = numbered(10)
    await memory.add(msgs[:5])
    assert await memory.get_memory(mark="nonexistent") == []
    await memory.add(msgs[5:7], marks=["important", "todo"])
    await memory.add(msgs[7:], marks="important")
    assert await ids(memory, mark="important") == ["5", "6", "7", "8", "9"]
    assert await ids(memory, mark="todo") == ["5", "6"]
    assert await ids(memory, mark="i") == []  # not one mark per character
    assert await ids(memory, exclude_mark="todo") == ["0", "1", "2", "3", "4", "7", "8", "9"]
    assert await ids(memory, exclude_mark="important") == ["0", "1", "2", "3", "4"]
    assert await ids(memory, mark="important", exclude_mark="todo") == ["7", "8", "9"]


async def test_bad_marks_raise_type_error() -> None:
    memory = InMemoryMemory()
    with pytest.raises(TypeError):
        await memory.add(numbered(1), marks=[1, 2])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        await memory.get_memory(mark=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await memory.delete_by_mark([None])  # type: ignore[list-item]
    assert await memory.size() == 0


async def test_update_messages_mark_adds_replaces_and_removes() -> None:
    memory = InMemoryMemory()
    msgs = numbered(10)
    await memory.add(msgs[:5])
    await memory.add(msgs[5:], marks="important")
    assert await memory.update_messages_mark(msg_ids=["0", "1", "2"], new_mark="review") == 3
    assert await ids(memory, mark="review") == ["0", "1", "2"]
    # remove: new_mark None with old_mark
    await memory.update_messages_mark(msg_ids=["5", "7"], old_mark="important", new_mark=None)
    assert await ids(memory, mark="important") == ["6", "8", "9"]
    # replace: old_mark -> new_mark
    await memory.update_messages_mark(msg_ids=["6", "8"], old_mark="important", new_mark="archived")
    assert await ids(memory, mark="important") == ["9"]
    assert await ids(memory, mark="archived") == ["6", "8"]
    # no msg_ids: every message with old_mark
    assert await memory.update_messages_mark(new_mark="seen", old_mark="archived") == 2
    assert await ids(memory, mark="seen") == ["6", "8"] and await ids(memory, mark="archived") == []


async def test_delete_by_mark_with_one_or_several_marks() -> None:
    memory = InMemoryMemory()
    msgs = numbered(8)
    await memory.add(msgs[:2], marks="review")
    await memory.add(msgs[2:4], marks="archived")
    await memory.add(msgs[4:6], marks="important")
    await memory.add(msgs[6:])
    assert await memory.delete_by_mark("important") == 2
    assert await ids(memory) == ["0", "1", "2", "3", "6", "7"]
    assert await memory.delete_by_mark(["review", "archived"]) == 4
    assert await ids(memory) == ["6", "7"]


async def test_compressed_summary_comes_first_unless_asked_not_to() -> None:
    memory = InMemoryMemory()
    await memory.update_compressed_summary("abc")
    assert len(await memory.get_memory()) == 1
    await memory.add(numbered(2))
    first, *rest = await memory.get_memory()
    assert (first.name, first.role, first.content) == ("user", "user", "abc")
    assert [m.id for m in rest] == ["0", "1"]
    assert await ids(memory, prepend_summary=False) == ["0", "1"]
    assert await memory.size() == 2  # the summary is not a stored message
    await memory.update_compressed_summary("")
    assert await ids(memory) == ["0", "1"]


async def test_state_dict_shape_and_round_trip() -> None:
    memory = InMemoryMemory()
    msg = Msg("user", "1", "user")
    await memory.add(msg)
    assert memory.state_dict() == {"_compressed_summary": "", "content": [[msg.to_dict(), []]]}
    await memory.update_compressed_summary("Hello World!")
    await memory.update_messages_mark(new_mark="kept")
    state = memory.state_dict()
    assert state == {"_compressed_summary": "Hello World!", "content": [[msg.to_dict(), ["kept"]]]}

    other = InMemoryMemory()
    other.load_state_dict(state)
    assert other.state_dict() == state
    assert (await ids(other, mark="kept"))[1:] == [msg.id]  # the summary comes first


async def test_load_state_dict_strict_and_malformed() -> None:
    memory = InMemoryMemory()
    await memory.add(numbered(1))
    before = memory.state_dict()
    with pytest.raises(KeyError):
        memory.load_state_dict({"_compressed_summary": "x"})  # strict: no "content"
    with pytest.raises(ValueError, match=r"content\[0\] must be"):
        memory.load_state_dict({"content": [42]})
    with pytest.raises(ValueError, match=r"content\[0\] is not a valid message"):
        memory.load_state_dict({"content": [[{"content": "no name or role"}, []]]})
    assert memory.state_dict() == before  # nothing changed by a failed load
    memory.load_state_dict({"_compressed_summary": "only this"}, strict=False)
    assert await memory.size() == 0 and await ids(memory) != []  # the summary message
    # a bare message dict (AgentScope's older states) loads with no marks
    memory.load_state_dict({"content": [before["content"][0][0]]})
    assert await ids(memory) == ["0"]


# -- MemoryBase: a memory written for AgentScope ---------------------------------------------------


class ListMemory(MemoryBase):
    """A user's own memory, written as for AgentScope: a list of messages, no marks."""

    def __init__(self) -> None:
        super().__init__()
        self.content: list[Msg] = []

    async def add(
        self, memories: Msg | list[Msg] | None, marks: str | list[str] | None = None, **kw: Any
    ) -> None:
        if memories is not None:
            self.content.extend([memories] if isinstance(memories, Msg) else memories)

    async def delete(self, msg_ids: list[str], **kwargs: Any) -> int:
        before = len(self.content)
        self.content = [m for m in self.content if m.id not in msg_ids]
        return before - len(self.content)

    async def size(self) -> int:
        return len(self.content)

    async def clear(self) -> None:
        self.content = []

    async def get_memory(
        self,
        mark: str | None = None,
        exclude_mark: str | None = None,
        prepend_summary: bool = True,
        **kwargs: Any,
    ) -> list[Msg]:
        summary = [Msg("user", self._compressed_summary, "user")] if prepend_summary else []
        return [*(summary if self._compressed_summary else []), *self.content]


async def test_a_memorybase_subclass_works_as_in_agentscope() -> None:
    memory = ListMemory()
    assert isinstance(memory, StateModule)
    msgs = numbered(3)
    await memory.add(msgs)
    assert await memory.delete(["1"]) == 1 and await memory.size() == 2
    await memory.update_compressed_summary("earlier: a greeting")
    got = await memory.get_memory()
    assert [m.get_text_content() for m in got] == ["earlier: a greeting", "0", "2"]
    # the summary is part of the saved state, as AgentScope registers it
    assert memory.state_dict() == {"_compressed_summary": "earlier: a greeting"}
    fresh = ListMemory()
    fresh.load_state_dict(memory.state_dict())
    assert fresh._compressed_summary == "earlier: a greeting"


async def test_in_memory_memory_is_a_memorybase() -> None:
    memory = InMemoryMemory()
    assert isinstance(memory, MemoryBase)
    await memory.update_compressed_summary("so far")
    assert memory._compressed_summary == "so far"  # AgentScope's attribute name
    assert memory.state_dict()["_compressed_summary"] == "so far"


async def test_an_unimplemented_method_says_which() -> None:
    class Partial(MemoryBase):
        pass

    memory = Partial()
    # differs on purpose: AgentScope's abstract methods silently return None (MemoryBase is
    # not an ABC), so a missing size() reads as "None messages"; nb_hitl names what is missing.
    with pytest.raises(NotImplementedError, match=r"Partial does not implement size\(\)"):
        await memory.size()
    for call in (
        memory.add(None),
        memory.delete([]),
        memory.delete_by_mark("x"),
        memory.clear(),
        memory.get_memory(),
        memory.update_messages_mark("x"),
    ):
        with pytest.raises(NotImplementedError, match="a MemoryBase subclass must define"):
            await call
