"""The ``Subscribers`` part alone: who observes a speaker's replies, per hub."""

from __future__ import annotations

from typing import Any

from nb_hitl.agent._broadcast import Subscribers
from nb_hitl.message import Msg


class Listener:
    """A participant that only observes (the part needs nothing more of it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.memory: Any = None
        self._reply = None
        self.seen: list[Msg] = []

    @property
    def is_replying(self) -> bool:
        return False

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        assert isinstance(msg, Msg)
        self.seen.append(msg)


def test_reset_leaves_the_speaker_out_and_remove_forgets_the_hub() -> None:
    speaker, other = Listener("a"), Listener("b")
    subs = Subscribers(speaker)
    assert not subs
    subs.reset("hub", [speaker, other])
    assert subs.hubs() == {"hub": [other]}
    subs.remove("hub")
    subs.remove("hub")  # twice is fine
    assert not subs and subs.hubs() == {}


async def test_broadcast_gives_each_subscriber_the_reply_without_tool_blocks() -> None:
    speaker, other = Listener("a"), Listener("b")
    subs = Subscribers(speaker)
    subs.reset("hub", [other])
    await subs.broadcast(Msg("a", "the answer", "assistant"))
    assert [m.get_text_content() for m in other.seen] == ["the answer"]
    assert speaker.seen == []
