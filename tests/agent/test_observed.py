"""What the other participants of a MsgHub observe of a reply: that reply's own text, once.

The observed form of an interrupted reply is the text the speaker wrote in *that* reply (every
model turn of it, steering in between or not), never an earlier reply's partial text or its
"[Interrupted]" marker.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from nb_hitl.agent import ReActAgent
from nb_hitl.events import Event, Subscription
from nb_hitl.message import Msg
from nb_hitl.model import ScriptedModel, ScriptedToolCall, ScriptedTurn
from nb_hitl.pipeline import MsgHub, SequentialPipeline, stream_printing_messages
from nb_hitl.testing import assert_history_valid
from nb_hitl.tool import Toolkit


def words(prefix: str, n: int = 40) -> str:
    return " ".join(f"{prefix}{i}" for i in range(n))


async def lookup(word: str) -> str:
    """Look a word up.

    Args:
        word: the word.
    """
    await asyncio.sleep(0.02)  # the steer given when it starts is taken in after it
    return f"{word}: found"


def speaker(name: str, script: list[Any]) -> ReActAgent:
    toolkit = Toolkit()
    toolkit.register_tool_function(lookup)
    model = ScriptedModel(script, tokens_per_second=2000)
    return ReActAgent(name, f"You are {name}.", model, toolkit=toolkit)


def stop_on(agent: ReActAgent, kind: str, nth: int) -> Subscription:
    """Interrupt each reply of ``agent`` at its ``nth`` event of ``kind``."""
    counts: Counter[str | None] = Counter()

    def on_event(e: Event) -> None:
        if e.kind == kind and (kind != "message_updated" or getattr(e, "delta", "")):
            counts[e.reply_id] += 1
            if counts[e.reply_id] == nth:
                agent.interrupt_nowait()

    return agent.subscribe(on_event)


def observed_of(observer: ReActAgent, name: str) -> list[tuple[str, bool]]:
    return [
        (m.get_text_content() or "", m.is_interrupted)
        for m in observer.memory.messages
        if m.name == name
    ]


def partial_text(agent: ReActAgent, marker: Msg) -> str:
    partial = agent.memory.get(marker.metadata["partial_msg_id"])
    assert partial is not None
    return partial.get_text_content() or ""


async def test_a_retry_without_instruction_interrupted_again_is_observed_as_its_own_text() -> None:
    alice = speaker("Alice", ["Alice opens."])
    bob = speaker("Bob", [words("first"), words("second"), "Bob ends."])
    carol = speaker("Carol", ["Carol closes.", "Carol again."])
    stops = stop_on(bob, "message_updated", 3)
    async with MsgHub([alice, bob, carol]):
        pipe = SequentialPipeline([alice, bob, carol])
        first = await pipe(Msg("Host", "go", "user"))
        assert isinstance(first, Msg) and first.is_interrupted
        second = await pipe.resume("retry")  # no instruction: agent(None)
        assert isinstance(second, Msg) and second.is_interrupted
        first_text, second_text = partial_text(bob, first), partial_text(bob, second)
        assert first_text.startswith("first0") and second_text.startswith("second0")
        for observer in (alice, carol):
            assert observed_of(observer, "Bob") == [(first_text, True), (second_text, True)]
        stops.close()
        final = await pipe.resume("retry")
    assert isinstance(final, Msg) and final.get_text_content() == "Carol closes."
    for observer in (alice, carol):
        assert observed_of(observer, "Bob") == [
            (first_text, True),
            (second_text, True),
            ("Bob ends.", False),
        ]
        assert_history_valid(observer.memory.messages)


def steered_speaker(after_steer: str | ScriptedTurn) -> ReActAgent:
    turn = ScriptedTurn(
        text="Let me look that up.",
        tool_calls=[ScriptedToolCall("lookup", {"word": "tabs"})],
    )
    return speaker("Bob", [turn, after_steer])


def steer_on_tool(agent: ReActAgent) -> None:
    def on_event(e: Event) -> None:
        if e.kind == "tool_call_started":
            agent.steer_nowait(Msg("Host", "Mention spaces too.", "user"))

    agent.subscribe(on_event)


async def test_a_speaker_steered_then_interrupted_is_observed_with_all_its_text() -> None:
    alice, carol = speaker("Alice", ["Alice opens."]), speaker("Carol", ["Carol closes."])
    bob = steered_speaker(words("after"))
    steer_on_tool(bob)
    stop_on(bob, "message_updated", 25)  # 4 chunks before the steer, the rest after it
    async with MsgHub([alice, bob, carol]):
        out = await SequentialPipeline([alice, bob, carol])(Msg("Host", "go", "user"))
    assert isinstance(out, Msg) and out.is_interrupted
    assert any(m.metadata.get("_steered") for m in bob.memory.messages)
    after = partial_text(bob, out)
    assert after.startswith("after0")
    expected = f"Let me look that up.\n\n{after}"
    assert observed_of(alice, "Bob") == [(expected, True)]
    assert observed_of(carol, "Bob") == [(expected, True)]


async def test_a_speaker_interrupted_right_after_a_steer_is_observed_with_its_earlier_text() -> (
    None
):
    alice, carol = speaker("Alice", ["Alice opens."]), speaker("Carol", ["Carol closes."])
    bob = steered_speaker(ScriptedTurn(text=words("after"), first_token_delay=5.0))
    steer_on_tool(bob)
    stop_on(bob, "steered", 1)  # nothing streamed after the steering message
    async with MsgHub([alice, bob, carol]):
        out = await SequentialPipeline([alice, bob, carol])(Msg("Host", "go", "user"))
    assert isinstance(out, Msg) and out.is_interrupted
    for observer in (alice, carol):
        (text, interrupted), *rest = observed_of(observer, "Bob")
        assert (text, interrupted, rest) == ("Let me look that up.", True, [])


async def test_an_interrupted_reply_prints_its_partial_as_final_once() -> None:
    bob = speaker("Bob", [words("said")])
    stop_on(bob, "message_updated", 3)
    printed = [
        (m.id, m.get_text_content(), last)
        async for m, last in stream_printing_messages([bob], bob(Msg("Host", "go", "user")))
    ]
    marker = bob.memory.messages[-1]
    partial = bob.memory.get(marker.metadata["partial_msg_id"])
    assert partial is not None
    finals = [(i, text) for i, text, last in printed if last]
    assert finals == [
        (partial.id, partial.get_text_content()),
        (marker.id, marker.get_text_content()),
    ]
    assert {i for i, _, _ in printed} == {partial.id, marker.id}


async def test_a_continuation_is_observed_as_what_it_added_exactly_once() -> None:
    alice = speaker("Alice", [])
    bob = speaker("Bob", [words("a"), " " + words("b"), " c0 c1 c2."])
    stops = stop_on(bob, "message_updated", 3)
    async with MsgHub([alice, bob]):
        first = await bob(Msg("Host", "go", "user"))
        again = await bob.resume()  # continued mid-sentence, and interrupted again
        stops.close()
        done = await bob.resume()
    assert first.is_interrupted and again.is_interrupted and not done.is_interrupted
    assert again.metadata["continued_by"] == done.metadata["continued_by"] == "assistant_prefix"
    observed = [m for m in alice.memory.messages if m.name == "Bob"]
    assert [m.is_interrupted for m in observed] == [True, True, False]
    texts = [m.get_text_content() or "" for m in observed]
    assert texts[0] == partial_text(bob, first)
    assert texts[1].startswith("b0") and texts[2] == "c0 c1 c2."
    answer = done.get_text_content() or ""  # the joined answer, in Bob's own memory
    assert " ".join(texts).split() == answer.split()  # every word observed exactly once
    assert observed[1].metadata["continues"] == observed[0].id
    assert observed[2].metadata["continues"] == observed[1].id
    assert "continued_from" not in observed[2].metadata  # an id only Bob's memory holds
    assert_history_valid(alice.memory.messages)


async def test_a_continuation_stopped_before_it_starts_still_continues_the_partial_later() -> None:
    alice = speaker("Alice", [])
    bob = speaker("Bob", [words("alpha"), " and the end."])
    stops = stop_on(bob, "message_updated", 3)
    async with MsgHub([alice, bob]):
        first = await bob(Msg("Host", "go", "user"))
        stops.close()
        before = partial_text(bob, first)
        stops = stop_on(bob, "reply_started", 1)  # Stop lands as the continuation starts
        again = await bob.resume()
        stops.close()
        assert again.is_interrupted and again.metadata["interrupted_at"] == "before start"
        assert again.metadata["continued_by"] == "assistant_prefix"  # marked, as resume() says
        done = await bob.resume()  # the same partial answer is continued, mid-sentence
    assert done.get_text_content() == before + " and the end."
    observed = [(m.get_text_content(), m.is_interrupted) for m in alice.memory.messages]
    assert observed == [(before, True), (bob.interrupt_text, True), ("and the end.", False)]


async def test_a_short_partial_answer_continued_to_its_end_is_not_doubled() -> None:
    alice, bob = speaker("Alice", []), speaker("Bob", [words("a"), " and the end."])
    stops = stop_on(bob, "message_updated", 3)
    async with MsgHub([alice, bob]):
        first = await bob(Msg("Host", "go", "user"))
        stops.close()
        done = await bob.resume()
    before = partial_text(bob, first)
    assert len(before) < 12  # shorter than a repeat the continuation would recognise
    assert done.get_text_content() == before + " and the end."
    assert alice.memory.messages[-1].get_text_content() == "and the end."
