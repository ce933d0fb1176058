"""A ledger of what each participant of a hub said, reply by reply, and what the others must hold.

Kept from each speaker's own events, independently of how the hub builds what it broadcasts:
a reply's text so far is the final text of every message it *streamed* (``MessageUpdated``,
grouped by the reply's id), whatever came in between (tool results, steering, another reply of
the same speaker before it). ``check_observed(observer, speaker)`` then demands that the
observer holds each of the speaker's replies exactly once, in order, and exactly so: a finished
reply as the message it returned (less tool blocks), an interrupted one as that reply's own
text so far (or its marker's text when it said nothing), never a tool block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from interrupt_harness import Violation

from nb_hitl.events import Event
from nb_hitl.message import Msg

TOOL_BLOCKS = ("tool_use", "tool_result")


@dataclass
class ReplyEntry:
    """One reply of a speaker: the messages it streamed and what it returned."""

    reply_id: str
    streamed: list[Msg] = field(default_factory=list)
    result: Msg | None = None
    interrupted: bool = False

    def own_text(self) -> str:
        """The reply's text so far: every message it streamed, each once, in order (of a
        continuation, ``agent.resume()``, only what it added after the seam)."""
        texts = [added(m) for m in self.streamed]
        return "\n\n".join(t for t in texts if t)

    @property
    def continuation(self) -> bool:
        return self.result is not None and "continued_by" in self.result.metadata

    def expected(self) -> tuple[str, str | None]:
        """What the others must hold: its text, and the id it keeps (finished, no tools)."""
        assert self.result is not None
        if self.interrupted:
            return self.own_text() or (self.result.get_text_content() or ""), None
        blocks = self.result.get_content_blocks()
        if self.continuation:  # what it added, as a message of its own
            return added(self.result), None
        text = "\n".join(b.text for b in blocks if b.type == "text")
        plain = isinstance(self.result.content, str) or not any(
            b.type in TOOL_BLOCKS for b in blocks
        )
        return text, self.result.id if plain else None


def added(msg: Msg) -> str:
    """A message's text, after the seam of the partial answer it continues if it has one
    (``metadata["partial_chars"]``: the partial text it repeats first)."""
    chars = msg.metadata.get("partial_chars")
    if isinstance(chars, int) and chars > 0:
        return "".join(b.text for b in msg.get_content_blocks("text"))[chars:].strip()
    return "\n".join(b.text for b in msg.get_content_blocks("text")).strip()


class Ledger:
    """Every reply of every participant, from their events (subscribed for their lifetime)."""

    def __init__(self, agents: list[Any]) -> None:
        self.replies: dict[str, list[ReplyEntry]] = {a.name: [] for a in agents}
        self._open: dict[tuple[str, str], ReplyEntry] = {}
        for a in agents:
            a.subscribe(self._handler(a.name))

    def _handler(self, name: str) -> Any:
        def on_event(e: Event) -> None:
            rid = e.reply_id
            if rid is None:
                return
            entry = self._open.setdefault((name, rid), ReplyEntry(rid))
            if e.kind == "message_updated":
                msg = e.msg  # type: ignore[attr-defined]
                if msg is not None and all(m.id != msg.id for m in entry.streamed):
                    entry.streamed.append(msg)  # the live message: its final state counts
            elif e.kind == "reply_finished":
                del self._open[(name, rid)]
                entry.result = e.msg  # type: ignore[attr-defined]
                entry.interrupted = bool(e.interrupted)  # type: ignore[attr-defined]
                if entry.result is not None:
                    self.replies[name].append(entry)

        return on_event

    def results(self, name: str) -> list[Msg]:
        """What ``name``'s replies returned, in order."""
        return [e.result for e in self.replies[name] if e.result is not None]

    def check_streamed_kept(self, speaker: Any) -> None:
        """Each message an interrupted reply streamed with text is in the speaker's memory."""
        ids = {m.id for m in speaker.memory.messages}
        for entry in self.replies[speaker.name]:
            for m in entry.streamed:
                if (m.get_text_content() or "").strip() and m.id not in ids:
                    raise Violation(f"{speaker.name} streamed {m.id} but memory lost it")

    def check_observed(self, observer: Any, speaker: Any) -> None:
        """``observer`` holds each of ``speaker``'s replies once, in order, exactly."""
        theirs = [m for m in observer.memory.messages if m.name == speaker.name]
        replies = self.replies[speaker.name]
        for held in theirs:
            if any(b.type in TOOL_BLOCKS for b in held.get_content_blocks()):
                raise Violation(f"{observer.name} observed a tool block of {speaker.name}")
        if len(theirs) != len(replies):
            raise Violation(
                f"{observer.name} holds {len(theirs)} messages of {speaker.name}, who replied "
                f"{len(replies)} times (a broadcast lost or duplicated)"
            )
        for k, (held, entry) in enumerate(zip(theirs, replies, strict=True)):
            if held.is_interrupted != entry.interrupted:
                raise Violation(
                    f"{observer.name} holds {speaker.name}'s reply {k + 1} as "
                    f"{'interrupted' if held.is_interrupted else 'finished'}, it was not"
                )
            text, kept_id = entry.expected()
            if kept_id is not None and held.id != kept_id:
                raise Violation(f"{observer.name} does not hold {speaker.name}'s reply {k + 1}")
            if (held.get_text_content() or "") != text:
                raise Violation(
                    f"{observer.name} observed {speaker.name}'s reply {k + 1} as "
                    f"{held.get_text_content()!r}, but that reply said {text!r}"
                )


__all__ = ["TOOL_BLOCKS", "Ledger", "ReplyEntry"]
