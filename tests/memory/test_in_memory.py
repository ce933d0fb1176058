"""InMemoryMemory: add/get/delete/clear/size, marks, summary, state."""

from __future__ import annotations

import pytest

from nb_hitl.memory import COMPRESSED, PINNED, InMemoryMemory
from nb_hitl.message import Msg


def msgs(n: int) -> list[Msg]:
    return [Msg("User", f"m{i}", "user") for i in range(n)]


async def test_add_single_list_and_none() -> None:
    memory = InMemoryMemory()
    a, b, c = msgs(3)
    await memory.add(a)
    await memory.add([b, c])
    await memory.add(None)
    assert await memory.size() == 3
    assert [m.id for m in await memory.get_memory()] == [a.id, b.id, c.id]


async def test_add_skips_duplicates_and_rejects_non_messages_without_changing_memory() -> None:
    memory = InMemoryMemory()
    a, b = msgs(2)
    await memory.add(a)
    await memory.add([b, a, b])  # a is held already, b comes twice: each id is kept once
    assert memory.messages == [a, b]
    with pytest.raises(TypeError, match="Msg"):
        await memory.add([msgs(1)[0], "text"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="marks must be"):
        await memory.add(msgs(1), marks=[1])  # type: ignore[list-item]
    assert memory.messages == [a, b]


async def test_allow_duplicates_adds_a_copy_with_a_fresh_id() -> None:
    memory = InMemoryMemory()
    (a,) = msgs(1)
    await memory.add(a, marks="first")
    await memory.add(a, marks="again", allow_duplicates=True)
    first, copy = memory.messages
    assert first is a and copy.id != a.id and copy.content == a.content
    assert memory.marks_of(a.id) == {"first"} and memory.marks_of(copy.id) == {"again"}


async def test_marks_filtering_and_delete() -> None:
    memory = InMemoryMemory()
    a, b, c = msgs(3)
    await memory.add([a, b, c])
    assert await memory.update_messages_mark(COMPRESSED, msg_ids=[a.id, b.id]) == 2
    await memory.update_messages_mark(PINNED, msg_ids=[b.id])
    assert [m.id for m in await memory.get_memory(exclude_mark=COMPRESSED)] == [c.id]
    assert [m.id for m in await memory.get_memory(mark=PINNED)] == [b.id]
    # remove a mark: new_mark None with old_mark
    assert await memory.update_messages_mark(None, old_mark=COMPRESSED) == 2
    assert memory.marks_of(a.id) == frozenset()
    assert memory.marks_of(b.id) == {PINNED}
    assert await memory.delete(b.id) == 1
    assert memory.marks_of(b.id) == frozenset()
    assert await memory.delete(0) == 1
    assert memory.messages == [c]


async def test_clear_also_clears_summary_and_version_counts_changes() -> None:
    memory = InMemoryMemory()
    seen: list[int] = []
    remove = memory.add_listener(lambda m: seen.append(m.version))
    await memory.add(msgs(2))
    await memory.update_compressed_summary("summary")
    assert await memory.get_compressed_summary() == "summary"
    await memory.clear()
    assert memory.summary == "" and len(memory) == 0
    assert seen == [1, 2, 3]
    remove()
    await memory.add(msgs(1))
    assert seen == [1, 2, 3]


async def test_load_state_dict_is_all_or_nothing() -> None:
    memory = InMemoryMemory()
    await memory.add(msgs(2))
    before = memory.state_dict()
    bad = {**before, "content": before["content"] + [before["content"][0]]}
    with pytest.raises(ValueError, match="same message id"):
        memory.load_state_dict(bad)
    broken = {**before, "content": before["content"] + [["not a message", []]]}
    with pytest.raises(ValueError, match=r"content\[2\] must be a message dict"):
        memory.load_state_dict(broken)
    with pytest.raises(KeyError, match="no 'content'"):
        memory.load_state_dict({"_compressed_summary": "x"})
    assert memory.state_dict() == before


async def test_load_state_dict_reads_the_older_nb_hitl_shape() -> None:
    memory = InMemoryMemory()
    a, b = msgs(2)
    old = {
        "messages": [a.to_dict(), b.to_dict()],
        "marks": {a.id: [PINNED]},
        "summary": "earlier talk",
    }
    memory.load_state_dict(old)
    assert [m.id for m in memory.messages] == [a.id, b.id]
    assert memory.marks_of(a.id) == {PINNED} and memory.summary == "earlier talk"
    assert memory.state_dict()["content"][0][1] == [PINNED]
